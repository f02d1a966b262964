# fastText-style text classifier (Joulin et al., "Bag of Tricks"), adapted from the PyTorch tutorial
# text_sentiment_ngrams_tutorial.py: EmbeddingBag (mean of word + hashed bigram embeddings) -> Linear,
# offsets-based collate, SGD lr 5 with StepLR(1, gamma), clip_grad_norm_, 64-doc batches.
# Synthetic corpus: four news topics, each with its own keywords mixed into shared filler words; 4% label noise.
import json, time, sys
import torch
import torch.nn as nn

torch.set_num_threads(1)
SEED = 8
torch.manual_seed(SEED)

N_CLASSES = 4
N_WORDS = 1500
N_BUCKETS = 4000
EMBED_DIM = 48
EPOCHS = 8
LR = 4.0
BATCH_SIZE = 64
WEIGHT_DECAY = 0.0
LABEL_NOISE = 0.04

g = torch.Generator().manual_seed(99)
topic_words = torch.randperm(N_WORDS - 1, generator=g)[:N_CLASSES * 40].view(N_CLASSES, 40) + 1
topic_pairs = [torch.randint(1, N_WORDS, (25, 2), generator=g) for _ in range(N_CLASSES)]


def make_doc(label, gen):
    n = torch.randint(18, 40, (1,), generator=gen).item()
    words = torch.randint(1, N_WORDS, (n,), generator=gen)
    k = max(2, int(n * 0.15))
    pos = torch.randperm(n, generator=gen)[:k]
    words[pos] = topic_words[label][torch.randint(0, 40, (k,), generator=gen)]
    # a topic phrase (bigram) and a distractor keyword from another topic
    j = torch.randint(0, n - 1, (1,), generator=gen).item()
    words[j:j + 2] = topic_pairs[label][torch.randint(0, 25, (1,), generator=gen).item()]
    other = (label + 1 + torch.randint(0, N_CLASSES - 1, (1,), generator=gen).item()) % N_CLASSES
    words[torch.randint(0, n, (1,), generator=gen).item()] = topic_words[other][torch.randint(0, 40, (1,), generator=gen).item()]
    return words


def make_split(n, gen, noisy):
    docs, labels = [], []
    for _ in range(n):
        y = torch.randint(0, N_CLASSES, (1,), generator=gen).item()
        docs.append(make_doc(y, gen))
        if noisy and torch.rand(1, generator=gen).item() < LABEL_NOISE:
            y = torch.randint(0, N_CLASSES, (1,), generator=gen).item()
        labels.append(y)
    return docs, torch.tensor(labels)


def text_pipeline(words):
    # unigram ids + hashed bigram ids (the tutorial's ngrams=2)
    bigrams = (words[:-1] * 7919 + words[1:]) % N_BUCKETS + N_WORDS
    return torch.cat([words, bigrams])


train_docs, train_labels = make_split(6000, torch.Generator().manual_seed(31), True)
valid_docs, valid_labels = make_split(1000, torch.Generator().manual_seed(32), False)
test_docs, test_labels = make_split(1000, torch.Generator().manual_seed(33), False)


def collate_batch(docs, labels):
    text_list = [text_pipeline(d) for d in docs]
    offsets = torch.tensor([0] + [len(t) for t in text_list[:-1]]).cumsum(dim=0)
    return labels, torch.cat(text_list), offsets


def batches(docs, labels, shuffle):
    order = torch.randperm(len(docs)) if shuffle else torch.arange(len(docs))
    for i in range(0, len(docs), BATCH_SIZE):
        idx = order[i:i + BATCH_SIZE].tolist()
        yield collate_batch([docs[j] for j in idx], labels[idx])


class TextClassificationModel(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_class):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, sparse=False)
        self.fc = nn.Linear(embed_dim, num_class)
        self.init_weights()

    def init_weights(self):
        initrange = 0.5
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.fc.weight.data.uniform_(-initrange, initrange)
        self.fc.bias.data.zero_()

    def forward(self, text, offsets):
        embedded = self.embedding(text, offsets)
        return self.fc(embedded)


model = TextClassificationModel(N_WORDS + N_BUCKETS, EMBED_DIM, N_CLASSES)
criterion = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.85)


def log(**kw):
    print(json.dumps(kw))


def evaluate(docs, labels):
    model.eval()
    total_acc, total_count, total_loss = 0, 0, 0.0
    with torch.no_grad():
        for label, text, offsets in batches(docs, labels, shuffle=False):
            predicted_label = model(text, offsets)
            total_loss += criterion(predicted_label, label).item() * label.size(0)
            total_acc += (predicted_label.argmax(1) == label).sum().item()
            total_count += label.size(0)
    return total_acc / total_count, total_loss / total_count


log(event="config", n_train=len(train_docs), n_valid=len(valid_docs), vocab=N_WORDS + N_BUCKETS, embed_dim=EMBED_DIM, lr=LR, batch_size=BATCH_SIZE, epochs=EPOCHS)
n_batches = (len(train_docs) + BATCH_SIZE - 1) // BATCH_SIZE
for epoch in range(1, EPOCHS + 1):
    epoch_start_time = time.time()
    model.train()
    total_acc, total_count, total_loss = 0, 0, 0.0
    for idx, (label, text, offsets) in enumerate(batches(train_docs, train_labels, shuffle=True)):
        optimizer.zero_grad()
        predicted_label = model(text, offsets)
        loss = criterion(predicted_label, label)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()
        total_acc += (predicted_label.argmax(1) == label).sum().item()
        total_loss += loss.item() * label.size(0)
        total_count += label.size(0)
        if (idx + 1) % 25 == 0:
            log(event="train", epoch=epoch, batch=idx + 1, n_batches=n_batches, loss=round(total_loss / total_count, 4), accuracy=round(total_acc / total_count, 4))
            total_acc, total_count, total_loss = 0, 0, 0.0
    accu_val, loss_val = evaluate(valid_docs, valid_labels)
    log(event="epoch_end", epoch=epoch, time_s=round(time.time() - epoch_start_time, 2), valid_loss=round(loss_val, 4), valid_accuracy=round(accu_val, 4), lr=round(scheduler.get_last_lr()[0], 5))
    scheduler.step()
accu_test, loss_test = evaluate(test_docs, test_labels)
log(event="done", test_loss=round(loss_test, 4), test_accuracy=round(accu_test, 4))
