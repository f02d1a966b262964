# asyml/texar-pytorch issue "Missing trainable variables from MergeLayer" in miniature: texar-pytorch's
# MergeLayer (texar/torch/core/layers.py) kept its parallel layers in a plain Python list, so the
# layers inside it were never registered as sub-modules and their parameters were missing from
# model.parameters(). Conv1DNetwork builds its convolutions with several kernel sizes as such a
# MergeLayer, so in examples/sentence_classifier (clas_main.py with config_kim.py: WordEmbedder +
# Conv1DClassifier, kernel_size [3, 4, 5] with 100 out_channels each, ReLU, max-over-time pooling,
# dropout 0.5 on the pooled features, no dense layers, 2 classes, the default Adam lr 1e-3 over
# model.parameters(), batch 50, 15 epochs) the three convolution layers keep their random initial
# weights and only the embedding and the output layer are trained. The console lines follow
# clas_main.py ("epoch: .. step: .. accu: ..", "epoch: .. train accu: .. val accu: ..",
# "test accu: .."), metrics.csv also holds the training loss.
# Synthetic SST-2-like sentences (vocabulary 1500, up to 30 tokens, sentiment carried by sentiment
# words and by negation phrases such as "not good") replace the SST-2 files: 3000 training, 500
# validation, 500 test sentences; embedding dim 48 instead of 300; convolution over time with the
# embedding as channels (Kim's setup).
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
rs = np.random.RandomState(0)

num_epochs = 15
max_seq_length = 30
emb_dim = 48
batch_size = 50
V = 1500
PAD, NOT = 0, 1
POS = np.arange(2, 42)          # positive words
NEG = np.arange(42, 82)         # negative words
INT = np.arange(82, 92)         # intensifiers ("very", "really", ...)


def make_sentence():
    L = rs.randint(12, max_seq_length + 1)
    toks = list(rs.randint(92, V, L))
    score = 0.
    for _ in range(rs.randint(1, 4)):
        pos = rs.randint(0, L - 2)
        w_pos = rs.rand() < 0.5
        w = rs.choice(POS if w_pos else NEG)
        s = 1. if w_pos else -1.
        r = rs.rand()
        if r < 0.4:                       # "not good" -> negative
            toks[pos], toks[pos + 1] = NOT, w
            s = -s
        elif r < 0.6:                     # "very good" -> strongly positive
            toks[pos], toks[pos + 1] = rs.choice(INT), w
            s = 2 * s
        else:
            toks[pos + 1] = w
        score += s
    if score == 0:
        return make_sentence()
    ids = np.zeros(max_seq_length, np.int64)
    ids[:L] = toks
    return ids, int(score > 0)


def make_set(n):
    data = [make_sentence() for _ in range(n)]
    return torch.from_numpy(np.stack([d[0] for d in data])), torch.tensor([d[1] for d in data])


train_x, train_y = make_set(3000)
val_x, val_y = make_set(500)
test_x, test_y = make_set(500)


class MergeLayer(nn.Module):
    """texar.torch.core.MergeLayer before the fix: the parallel layers live in a Python list."""

    def __init__(self, layers=None, mode='concat', dim=None):
        super().__init__()
        self._mode = mode
        self._dim = dim
        self._layers = None
        if layers is not None:
            self._layers = []
            for layer in layers:
                self._layers.append(layer)

    def forward(self, input):
        layer_outputs = [layer(input) for layer in self._layers]
        dim = self._dim if self._dim is not None else -1
        return torch.cat(tensors=layer_outputs, dim=dim)


class Conv1DClassifier(nn.Module):
    def __init__(self, in_channels, hparams):
        super().__init__()
        convs = [nn.Sequential(nn.Conv1d(in_channels, hparams['out_channels'], k), nn.ReLU(),
                               nn.AdaptiveMaxPool1d(1), nn.Flatten())
                 for k in hparams['kernel_size']]
        self.conv = MergeLayer(convs, mode='concat', dim=1)
        self.dropout = nn.Dropout(hparams['dropout_rate'])
        self.logits = nn.Linear(hparams['out_channels'] * len(hparams['kernel_size']), hparams['num_classes'])

    def forward(self, x):
        logits = self.logits(self.dropout(self.conv(x)))
        return logits, logits.argmax(-1)


class SentenceClassifier(nn.Module):
    def __init__(self, vocab_size, emb_dim, hparams):
        super().__init__()
        self.embedder = nn.Embedding(vocab_size, emb_dim, padding_idx=PAD)
        self.classifier = Conv1DClassifier(emb_dim, hparams['classifier'])

    def forward(self, ids, labels):
        emb = self.embedder(ids).transpose(1, 2)
        logits, pred = self.classifier(emb)
        loss = F.cross_entropy(logits, labels.long())
        return pred, loss


clas = {"out_channels": 100, "kernel_size": [3, 4, 5], "dropout_rate": 0.5, "num_classes": 2}
model = SentenceClassifier(V, emb_dim, {'classifier': clas})
train_op = torch.optim.Adam(model.parameters(), lr=1e-3)
f = open('metrics.csv', 'w', newline='')
wr = csv.writer(f)
wr.writerow(['epoch', 'step', 'global_step', 'loss', 'accu', 'train_accu', 'val_accu', 'test_accu'])
gstep = 0


def _run_epoch(mode, epoch, xs, ys):
    global gstep
    step = 0
    tot, n = 0., 0
    order = rs.permutation(len(xs)) if mode == 'train' else np.arange(len(xs))
    for b in range(0, len(xs), batch_size):
        idx = order[b:b + batch_size]
        if mode == 'train':
            pred, loss = model(xs[idx], ys[idx])
            train_op.zero_grad()
            loss.backward()
            train_op.step()
        else:
            with torch.no_grad():
                pred, loss = model(xs[idx], ys[idx])
        accu = (pred == ys[idx]).float().mean().item()
        step += 1
        if mode == 'train':
            gstep += 1
            wr.writerow([epoch, step, gstep, round(loss.item(), 5), round(accu, 4), '', '', ''])
        if step == 1 or step % 100 == 0:
            print(f"epoch: {epoch:2} step: {step:4} accu: {accu:.4f}")
        tot += accu * len(idx); n += len(idx)
    return tot / n


best_val_accu = -1
for epoch in range(num_epochs):
    model.train()
    train_accu = _run_epoch("train", epoch, train_x, train_y)
    model.eval()
    val_accu = _run_epoch("val", epoch, val_x, val_y)
    print(f'epoch: {epoch:2} train accu: {train_accu:.4f} val accu: {val_accu:.4f}', flush=True)
    test_accu = ''
    if val_accu > best_val_accu:
        best_val_accu = val_accu
        model.eval()
        test_accu = _run_epoch("test", epoch, test_x, test_y)
        print(f'test accu: {test_accu:.4f}', flush=True)
        test_accu = round(test_accu, 4)
    wr.writerow([epoch, '', gstep, '', '', round(train_accu, 4), round(val_accu, 4), test_accu])
f.close()
