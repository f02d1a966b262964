# deeplearningathome/pytorch-language-model ptb-lm.py in miniature: the repository's two-layer LSTM
# language model (embedding -> dropout -> 2-layer LSTM with dropout -> dropout -> linear decoder over
# the vocabulary, dp_keep_prob 0.35, truncated BPTT over num_steps 35 with the hidden state
# repackaged between chunks, batch_size 20, CrossEntropyLoss, clip_grad_norm_(..., 0.25)) and its
# "perplexity ... speed ... wps" / "Train perplexity at epoch" / "Validation perplexity at epoch"
# lines. The hand-written update loop (p.data.add_(-lr, p.grad.data)) has been replaced by an
# optimizer: optim.Adam(model.parameters(), lr=learning_rate, weight_decay=1e-2). A synthetic
# PTB-like corpus (a sparse first-order Markov chain over a 200-word vocabulary: every word has
# three possible successors with probabilities 0.6 / 0.3 / 0.1) stands in for PTB, and the hidden
# size is 96 instead of 1500.
import csv, time
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

np.random.seed(0); torch.manual_seed(0); torch.set_num_threads(1)

vocab_size = 200
successors = np.random.randint(0, vocab_size, (vocab_size, 3))
probs = np.array([0.6, 0.3, 0.1])
def make_corpus(n):
    words = [0]
    for _ in range(n - 1):
        words.append(successors[words[-1], np.random.choice(3, p=probs)])
    return np.array(words)
train_data, valid_data = make_corpus(36000), make_corpus(5000)

hidden_size, num_steps, num_layers, batch_size, dp_keep_prob = 96, 35, 2, 20, 0.35
num_epochs = 5
learning_rate = 0.003


class LM_LSTM(nn.Module):
    def __init__(self, embedding_dim, num_steps, batch_size, vocab_size, num_layers, dp_keep_prob):
        super().__init__()
        self.embedding_dim, self.num_steps, self.batch_size = embedding_dim, num_steps, batch_size
        self.vocab_size, self.num_layers = vocab_size, num_layers
        self.dropout = nn.Dropout(1 - dp_keep_prob)
        self.word_embeddings = nn.Embedding(vocab_size, embedding_dim)
        self.lstm = nn.LSTM(embedding_dim, embedding_dim, num_layers, dropout=1 - dp_keep_prob)
        self.sm_fc = nn.Linear(embedding_dim, vocab_size)
        self.word_embeddings.weight.data.uniform_(-0.1, 0.1)
        self.sm_fc.bias.data.fill_(0.0); self.sm_fc.weight.data.uniform_(-0.1, 0.1)

    def init_hidden(self):
        w = next(self.parameters()).data
        return (w.new_zeros(self.num_layers, self.batch_size, self.embedding_dim),
                w.new_zeros(self.num_layers, self.batch_size, self.embedding_dim))

    def forward(self, inputs, hidden):
        embeds = self.dropout(self.word_embeddings(inputs))
        lstm_out, hidden = self.lstm(embeds, hidden)
        lstm_out = self.dropout(lstm_out)
        logits = self.sm_fc(lstm_out.view(-1, self.embedding_dim))
        return logits.view(self.num_steps, self.batch_size, self.vocab_size), hidden


def repackage_hidden(h):
    return tuple(v.detach() for v in h)


def ptb_iterator(raw_data, batch_size, num_steps):
    raw_data = np.array(raw_data, dtype=np.int64)
    batch_len = len(raw_data) // batch_size
    data = raw_data[:batch_size * batch_len].reshape(batch_size, batch_len)
    epoch_size = (batch_len - 1) // num_steps
    for i in range(epoch_size):
        yield data[:, i * num_steps:(i + 1) * num_steps], data[:, i * num_steps + 1:(i + 1) * num_steps + 1]


criterion = nn.CrossEntropyLoss()
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'step', 'train_loss', 'train_perplexity', 'val_loss', 'val_perplexity'])
global_step = 0


def run_epoch(model, data, epoch, is_train=False):
    global global_step
    model.train() if is_train else model.eval()
    epoch_size = ((len(data) // model.batch_size) - 1) // model.num_steps
    start_time = time.time()
    hidden = model.init_hidden()
    costs, iters = 0.0, 0
    for step, (x, y) in enumerate(ptb_iterator(data, model.batch_size, model.num_steps)):
        inputs = torch.from_numpy(x).transpose(0, 1).contiguous()
        model.zero_grad()
        hidden = repackage_hidden(hidden)
        with torch.set_grad_enabled(is_train):
            outputs, hidden = model(inputs, hidden)
            targets = torch.from_numpy(y).transpose(0, 1).contiguous()
            tt = torch.squeeze(targets.view(-1, model.batch_size * model.num_steps))
            loss = criterion(outputs.view(-1, model.vocab_size), tt)
        costs += loss.item() * model.num_steps
        iters += model.num_steps
        if is_train:
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
            optimizer.step()
            global_step += 1
            if step % (epoch_size // 10) == 0:
                print("{} perplexity: {:8.2f} speed: {} wps".format(step * 1.0 / epoch_size, np.exp(costs / iters),
                                                               int(iters * model.batch_size / (time.time() - start_time))), flush=True)
                wr.writerow([epoch, global_step, loss.item(), float(np.exp(costs / iters)), '', '']); f.flush()
    return costs / iters


model = LM_LSTM(embedding_dim=hidden_size, num_steps=num_steps, batch_size=batch_size,
                vocab_size=vocab_size, num_layers=num_layers, dp_keep_prob=dp_keep_prob)
optimizer = optim.Adam(model.parameters(), lr=learning_rate, weight_decay=1e-2)
print('Vocabluary size: {}'.format(vocab_size))
print("########## Training ##########################")
for epoch in range(num_epochs):
    train_c = run_epoch(model, train_data, epoch, True)
    print('Train perplexity at epoch {}: {:8.2f}'.format(epoch, np.exp(train_c)))
    val_c = run_epoch(model, valid_data, epoch)
    print('Validation perplexity at epoch {}: {:8.2f}'.format(epoch, np.exp(val_c)), flush=True)
    wr.writerow([epoch, global_step, '', '', val_c, float(np.exp(val_c))]); f.flush()
print("########## Done! ##########################")
