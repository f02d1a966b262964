# texar-pytorch examples/bert/bert_classifier_main.py in miniature: a small Transformer-encoder
# text classifier (stand-in for the BERT classifier; embedding and encoder dropout 0.1, pooled
# output dropout 0.1) fine-tuned on a synthetic 2-class sentence task (600 training / 500 eval
# sentences, 24 tokens each), Adam with linear warmup then linear decay, batch 32, 12 epochs,
# "step: N; loss: X" logging every 20 steps and _eval_epoch() after every training epoch.
import csv, math
import numpy as np
import torch, torch.nn as nn

np.random.seed(310); torch.manual_seed(310); torch.set_num_threads(1)

V, L, C = 1200, 24, 2
pos_w, neg_w = np.arange(10, 40), np.arange(40, 70)
def make(n):
    X = np.random.randint(70, V, size=(n, L)); y = np.random.randint(0, C, n)
    for i in range(n):
        k = np.random.randint(2, 5); j = np.random.choice(L, k + 1, replace=False)
        X[i, j[:k]] = np.random.choice(pos_w if y[i] else neg_w, k)
        if np.random.rand() < 0.5: X[i, j[k]] = np.random.choice(neg_w if y[i] else pos_w)   # a distractor word
    flip = np.random.rand(n) < 0.08; y[flip] = 1 - y[flip]          # label noise
    return torch.tensor(X), torch.tensor(y)
xtr, ytr = make(600); xev, yev = make(500)

class Classifier(nn.Module):
    def __init__(self, d=128):
        super().__init__()
        self.emb = nn.Embedding(V, d); self.pos = nn.Parameter(torch.randn(L, d) * 0.02)
        self.drop = nn.Dropout(0.1)
        layer = nn.TransformerEncoderLayer(d, 4, 4 * d, dropout=0.1, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2)
        self.pool = nn.Sequential(nn.Linear(d, d), nn.Tanh()); self.pdrop = nn.Dropout(0.1)
        self.out = nn.Linear(d, C)
    def forward(self, x):
        h = self.enc(self.drop(self.emb(x) + self.pos))
        return self.out(self.pdrop(self.pool(h.mean(1))))

model = Classifier()
num_epochs, batch_size, lr, warmup_prop = 12, 32, 1e-3, 0.1
steps_per_epoch = math.ceil(len(xtr) / batch_size); total = num_epochs * steps_per_epoch
opt = torch.optim.Adam(model.parameters(), lr=lr)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min((s + 1) / (warmup_prop * total), max(0.0, (total - s) / (total * (1 - warmup_prop)))))
crit = nn.CrossEntropyLoss()
f = open('metrics.csv', 'w', newline=''); w = csv.writer(f); w.writerow(['step', 'epoch', 'loss', 'eval_loss', 'eval_accu'])
step = 0

def _train_epoch(epoch):
    global step
    perm = torch.randperm(len(xtr))
    for i in range(0, len(xtr), batch_size):
        j = perm[i:i + batch_size]
        loss = crit(model(xtr[j]), ytr[j])
        opt.zero_grad(); loss.backward(); opt.step(); sched.step(); step += 1
        if step % 20 == 0:
            print("step: %d; loss: %f" % (step, loss.item()))
            w.writerow([step, epoch, round(loss.item(), 5), '', ''])

@torch.no_grad()
def _eval_epoch(epoch):
    model.eval()
    lo = model(xev); l = crit(lo, yev).item(); a = (lo.argmax(1) == yev).float().mean().item()
    print("eval accu: %.4f; loss: %.4f; nsamples: %d" % (a, l, len(xev)))
    w.writerow([step, epoch, '', round(l, 5), round(a, 5)]); f.flush()

model.train()
for epoch in range(num_epochs):
    _train_epoch(epoch)
    _eval_epoch(epoch)
f.close()
