# LSTM text classifier in miniature, after an early TextClassificationBenchmark main.py (torchtext-style batches,
# embedding + 1-layer LSTM (hidden 64) + linear + log-softmax, NLLLoss, Adam lr 1e-3, utils.clip_gradient clamping
# each gradient element to +-0.1): synthetic IMDB-like binary sentiment reviews (vocabulary 2000, 20-60 tokens,
# sentiment carried by a few dozen polar words amid neutral filler and negations), 6400 training and 1000 test
# reviews, batch 64, 4 epochs. optimizer.zero_grad() is called once before the training loop, as in that main.py.
# Prints "loss : ..." every 20 batches and the test accuracy after each epoch, writes metrics.csv.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(345)
V, POL = 2000, 40
polarity = torch.zeros(V)
polarity[2:2 + POL] = 1.0           # positive words
polarity[2 + POL:2 + 2 * POL] = -1.0  # negative words
NEG = 1                             # "not"


def reviews(n):
    X = torch.zeros(n, 60, dtype=torch.long)
    y = torch.randint(0, 2, (n,), generator=g)
    for k in range(n):
        L = int(torch.randint(20, 61, (1,), generator=g))
        toks = torch.randint(2 + 2 * POL, V, (L,), generator=g)
        npol = int(torch.randint(3, 7, (1,), generator=g))
        pos = torch.randperm(L - 1, generator=g)[:npol] + 1
        for p in pos.tolist():
            want = 1 if y[k] == 1 else -1
            if torch.rand(1, generator=g) < 0.2:  # negated opposite word
                toks[p - 1] = NEG
                want = -want
            toks[p] = (2 if want == 1 else 2 + POL) + int(torch.randint(0, POL, (1,), generator=g))
        X[k, 60 - L:] = toks  # left padding with 0
    return X, y


Xtr, Ytr = reviews(6400)
Xte, Yte = reviews(1000)


class LSTMClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, 64, padding_idx=0)
        self.lstm = nn.LSTM(64, 64, batch_first=True)
        self.out = nn.Linear(64, 2)

    def forward(self, x):
        h = self.lstm(self.emb(x))[0][:, -1]
        return F.log_softmax(self.out(h), -1)


def clip_gradient(optimizer, grad_clip):
    for group in optimizer.param_groups:
        for param in group['params']:
            if param.grad is not None:
                param.grad.data.clamp_(-grad_clip, grad_clip)


model = LSTMClassifier()
model.train()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
optimizer.zero_grad()
loss_fun = nn.NLLLoss()
rows = []
for epoch in range(1, 5):
    perm = torch.randperm(len(Xtr), generator=g)
    ls = []
    for index, k in enumerate(range(0, len(Xtr), 64)):
        i = perm[k:k + 64]
        predicted = model(Xtr[i])
        loss = loss_fun(predicted, Ytr[i])
        loss.backward()
        clip_gradient(optimizer, 0.1)
        optimizer.step()
        ls.append(loss.item())
        if index % 20 == 0:
            print("loss : %.5f" % loss.item())
    model.eval()
    with torch.no_grad():
        acc = (model(Xte).argmax(1) == Yte).float().mean().item()
    model.train()
    rows.append(dict(epoch=epoch, train_loss=sum(ls) / len(ls), test_acc=acc))
    print(f"epoch {epoch} mean loss {rows[-1]['train_loss']:.5f} test accuracy {acc:.4f}")
with open('metrics.csv', 'w', newline='') as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
