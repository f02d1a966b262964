# CBOW word2vec (Mikolov et al., "Efficient Estimation of Word Representations in Vector Space", 2013,
# arXiv:1301.3781), written as in the CBOW exercise of the PyTorch tutorial "Word Embeddings: Encoding Lexical
# Semantics": the context words' embeddings are averaged and a Linear layer scores every word of the vocabulary,
# full softmax with CrossEntropyLoss, plain SGD. Synthetic corpus of topical documents (6 topics x 40 words plus
# 60 function words). Progress shown with a tqdm bar per epoch with a postfix; the embeddings are scored by topic@5
# (the share of each topic word's 5 nearest neighbours, by cosine, that belong to the same topic; chance ~0.17).
import torch
import torch.nn as nn
import torch.nn.functional as F
from tqdm import tqdm

torch.set_num_threads(1)
torch.manual_seed(13)

N_TOPICS, TOPIC_WORDS, FUNC_WORDS = 6, 40, 60
VOCAB = N_TOPICS * TOPIC_WORDS + FUNC_WORDS
N_DOCS, DOC_LEN = 500, 80
WINDOW = 2
EMB = 32
BATCH = 128
EPOCHS = 6
LR = 4.0


def make_corpus(n_docs, g):
    docs = []
    for _ in range(n_docs):
        t = torch.randint(0, N_TOPICS, (1,), generator=g).item()
        is_topic = torch.rand(DOC_LEN, generator=g) < 0.6
        topic_w = t * TOPIC_WORDS + torch.randint(0, TOPIC_WORDS, (DOC_LEN,), generator=g)
        func_w = N_TOPICS * TOPIC_WORDS + torch.randint(0, FUNC_WORDS, (DOC_LEN,), generator=g)
        docs.append(torch.where(is_topic, topic_w, func_w))
    return docs


def windows(docs):
    ctx, tgt = [], []
    for d in docs:
        for i in range(WINDOW, len(d) - WINDOW):
            ctx.append(torch.cat([d[i - WINDOW:i], d[i + 1:i + 1 + WINDOW]]))
            tgt.append(d[i])
    return torch.stack(ctx), torch.stack(tgt)


g = torch.Generator().manual_seed(1301)
Ctr, Ttr = windows(make_corpus(N_DOCS, g))
Cva, Tva = windows(make_corpus(100, g))


class CBOW(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embeddings = nn.Embedding(vocab, dim)
        self.linear = nn.Linear(dim, vocab)

    def forward(self, context):
        h = self.embeddings(context).mean(1)
        return self.linear(h)


def topic_at5(emb):
    w = F.normalize(emb[:N_TOPICS * TOPIC_WORDS], dim=1)
    sim = w @ w.t()
    sim.fill_diagonal_(-2)
    nn5 = sim.topk(5, dim=1).indices
    topic = torch.arange(N_TOPICS * TOPIC_WORDS) // TOPIC_WORDS
    return (topic[nn5] == topic.unsqueeze(1)).float().mean().item()


model = CBOW(VOCAB, EMB)
opt = torch.optim.SGD(model.parameters(), lr=LR)
N = len(Ttr)
print(f"vocab={VOCAB} train_windows={N} val_windows={len(Tva)} emb={EMB} window={WINDOW} lr={LR}")
print(f"initial topic@5={topic_at5(model.embeddings.weight.detach()):.3f}")
for epoch in range(1, EPOCHS + 1):
    model.train()
    perm = torch.randperm(N)
    bar = tqdm(range(0, N, BATCH), desc=f"epoch {epoch}/{EPOCHS}", ncols=100, mininterval=0.5)
    tot, cnt = 0.0, 0
    for i in bar:
        idx = perm[i:i + BATCH]
        logits = model(Ctr[idx])
        loss = F.cross_entropy(logits, Ttr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        tot += loss.item()
        cnt += 1
        if cnt % 10 == 0:
            bar.set_postfix(loss=f"{tot / cnt:.4f}")
    bar.close()
    model.eval()
    with torch.no_grad():
        vl = F.cross_entropy(model(Cva), Tva).item()
    t5 = topic_at5(model.embeddings.weight.detach())
    tqdm.write(f"epoch {epoch}: train_loss={tot / cnt:.4f} val_loss={vl:.4f} topic@5={t5:.3f}")
