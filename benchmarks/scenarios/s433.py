# chemprop v2 issue "[BUG] [v2]: training loss much lower than test and validation loss" in miniature:
# the report's script (a 100-molecule regression set with normalized targets, batch_size 50,
# MoleculeDataset + BondMessagePassing + SumAggregation + RegressionFFN, models.MPNN(mp, agg, ffn, True)
# i.e. batch_norm=True, L.Trainer(max_epochs=100, overfit_batches=2), trainer.fit(model, dataloader,
# dataloader) and trainer.test(model, dataloader): the same two batches for training, validation and
# test) rebuilt in plain PyTorch. Molecules are 100 synthetic graphs of 8-20 atoms (12-d atom features,
# ring-and-chain bonds), the target is a fixed nonlinear function of the graph, normalized to mean 0 /
# std 1. Message passing: 3 iterations, hidden 300, ReLU; sum aggregation over atoms; BatchNorm1d(300)
# on the aggregated fingerprint (what batch_norm=True adds); FFN 300 -> 300 -> 1; MSE; Adam with the
# chemprop warm-up/decay schedule (1e-4 -> 1e-3 over 2 epochs -> 1e-4 at the end). overfit_batches=2
# uses the first two batches in a fixed order every epoch. Validation and test run in eval mode.
import csv
import numpy as np
import torch, torch.nn as nn

np.random.seed(607); torch.manual_seed(607); torch.set_num_threads(1)
N, AMAX, FA, H = 100, 20, 12, 300
X = np.zeros((N, AMAX, FA), np.float32); A = np.zeros((N, AMAX, AMAX), np.float32); M = np.zeros((N, AMAX), np.float32)
for i in range(N):
    n = np.random.randint(8, AMAX + 1); M[i, :n] = 1
    X[i, :n] = np.eye(FA)[np.random.choice(FA, n, p=np.r_[[0.4, 0.2, 0.1, 0.1], np.full(FA - 4, 0.2 / (FA - 4))])]
    X[i, :n, -3:] = np.random.rand(n, 3)
    for a in range(1, n):
        b = np.random.randint(max(0, a - 3), a); A[i, a, b] = A[i, b, a] = 1
    for _ in range(np.random.randint(0, 3)):
        a, b = np.random.choice(n, 2, replace=False); A[i, a, b] = A[i, b, a] = 1
deg = A.sum(2)
y = (X[:, :, 1] * deg).sum(1) - 0.7 * (X[:, :, 2] * X[:, :, -1]).sum(1) + 0.3 * np.sqrt(M.sum(1)) + 0.5 * (X[:, :, 0] * (deg > 2)).sum(1)
y = ((y - y.mean()) / y.std()).astype(np.float32)
X, A, M, y = map(torch.tensor, (X, A, M, y))

class MPNN(nn.Module):
    def __init__(self, batch_norm=True):
        super().__init__()
        self.W_i = nn.Linear(FA, H, bias=False); self.W_h = nn.Linear(H, H, bias=False); self.W_o = nn.Linear(FA + H, H)
        self.bn = nn.BatchNorm1d(H) if batch_norm else nn.Identity()
        self.ffn = nn.Sequential(nn.Linear(H, H), nn.ReLU(), nn.Linear(H, 1))
    def forward(self, x, adj, mask):
        h0 = self.W_i(x); h = torch.relu(h0)
        for _ in range(2):
            h = torch.relu(h0 + self.W_h(adj @ h))
        atom = torch.relu(self.W_o(torch.cat([x, adj @ h], -1))) * mask.unsqueeze(-1)
        fp = atom.sum(1)                      # SumAggregation
        return self.ffn(self.bn(fp)).squeeze(-1)

model = MPNN(True)
opt = torch.optim.Adam(model.parameters(), lr=1e-4)
batch_size, max_epochs, steps_per_epoch = 50, 100, 2
total, warm = max_epochs * steps_per_epoch, 2 * steps_per_epoch
def lr_at(s):
    if s < warm: return 1e-4 + (1e-3 - 1e-4) * s / warm
    return 1e-3 * (1e-4 / 1e-3) ** ((s - warm) / (total - warm))
batches = [slice(0, 50), slice(50, 100)]      # overfit_batches=2: the same two batches, fixed order
def evaluate():
    model.eval()
    with torch.no_grad():
        ls = [((model(X[b], A[b], M[b]) - y[b]) ** 2).mean().item() for b in batches]
    model.train(); return float(np.mean(ls))
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['epoch', 'step', 'train_loss', 'val_loss', 'lr'])
step = 0
for epoch in range(max_epochs):
    model.train(); tl = []
    for b in batches:
        for g in opt.param_groups: g['lr'] = lr_at(step)
        loss = ((model(X[b], A[b], M[b]) - y[b]) ** 2).mean()
        opt.zero_grad(); loss.backward(); opt.step(); step += 1; tl.append(loss.item())
    vl = evaluate()
    if epoch % 2 == 1 or epoch < 4 or epoch == max_epochs - 1:
        print('Epoch %d: 100%%| %d/%d [train_loss_step=%.4f, val_loss=%.4f, train_loss_epoch=%.4f, lr=%.2e]'
              % (epoch, steps_per_epoch, steps_per_epoch, tl[-1], vl, np.mean(tl), lr_at(step)))
    wr.writerow([epoch, step, float(np.mean(tl)), vl, lr_at(step)])
print('`Trainer.fit` stopped: `max_epochs=100` reached.')
tst = evaluate()
print('Test metric        DataLoader 0')
print('test/mse          %.6f' % tst)
