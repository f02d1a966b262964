"""DeepAR in miniature (after DeepAR-pytorch, electricity-style data).

40 synthetic household-consumption series (daily and weekly seasonality,
trend, noise, different levels), 24-step days; training windows of 48 steps
(36 conditioning + 12 prediction) scaled by the window's mean (the
repository's v), 2-layer LSTM (40 units) fed the previous value and
covariates (hour, weekday, series embedding), Gaussian head (mu, softplus
sigma), loss = mean Gaussian negative log-likelihood over the window, Adam
1e-3, batch 64, 12 epochs.  Metrics on the last days of every series: ND
and RMSE of the predicted means (scaled back), and test loss.
"""
import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
rng = np.random.RandomState(6)
torch.manual_seed(6)
NS, T, W, C = 40, 24 * 7 * 10, 48, 36
t = np.arange(T)
series = []
for s in range(NS):
    level = rng.uniform(50, 500)
    day = 0.35 * np.sin(2 * np.pi * (t % 24) / 24 + rng.uniform(0, 6.28))
    week = 0.15 * np.sin(2 * np.pi * (t % 168) / 168 + rng.uniform(0, 6.28))
    x = level * (1 + day + week + 0.0004 * t * rng.uniform(-1, 1)) * (1 + 0.05 * rng.randn(T))
    series.append(np.maximum(x, 0))
series = np.array(series, np.float32)


def windows(start, stop, stride):
    X, S = [], []
    for s in range(NS):
        for a in range(start, stop - W + 1, stride):
            X.append(series[s, a:a + W]); S.append((s, a))
    return np.array(X), S


def covariates(S):
    cov = np.zeros((len(S), W, 2), np.float32)
    for i, (s, a) in enumerate(S):
        h = np.arange(a, a + W)
        cov[i, :, 0] = (h % 24) / 23.0 - 0.5
        cov[i, :, 1] = ((h // 24) % 7) / 6.0 - 0.5
    return cov


split = T - 24 * 7
Xtr, Str = windows(0, split, 12)
Xte, Ste = windows(split - C, T, 12)


def tensors(X, S):
    v = X[:, :C].mean(1, keepdims=True) + 1.0
    z = X / v
    prev = np.concatenate([np.zeros((len(X), 1)), z[:, :-1]], 1)
    return (torch.tensor(prev, dtype=torch.float32), torch.tensor(z, dtype=torch.float32),
            torch.tensor(covariates(S)), torch.tensor([s for s, _ in S]), torch.tensor(v, dtype=torch.float32))


tr, te = tensors(Xtr, Str), tensors(Xte, Ste)


class DeepAR(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(NS, 20)
        self.lstm = nn.LSTM(1 + 2 + 20, 40, num_layers=2, batch_first=True, dropout=0.1)
        self.mu = nn.Linear(80, 1); self.sig = nn.Linear(80, 1)

    def forward(self, prev, cov, sid):
        e = self.emb(sid).unsqueeze(1).expand(-1, prev.shape[1], -1)
        h, _ = self.lstm(torch.cat([prev.unsqueeze(-1), cov, e], -1))
        h = torch.cat([h, h], -1)
        return self.mu(h).squeeze(-1), F.softplus(self.sig(h)).squeeze(-1)


def nll(mu, sigma, z):
    return (torch.log(sigma) + 0.5 * math.log(2 * math.pi) + 0.5 * ((z - mu) / sigma) ** 2).mean()


def evaluate(model):
    model.eval()
    prev, z, cov, sid, v = te
    with torch.no_grad():
        mu, sigma = model(prev, cov, sid)
        loss = nll(mu, sigma, z).item()
        pred = (mu[:, C:] * v); true = (z[:, C:] * v)
        nd = (pred - true).abs().sum() / true.abs().sum()
        rmse = torch.sqrt(((pred - true) ** 2).mean()) / true.abs().mean()
    model.train()
    return nd.item(), rmse.item(), loss


model = DeepAR()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
n = len(tr[0])
print('train windows: %d, test windows: %d' % (n, len(te[0])))
for epoch in range(1, 13):
    perm = torch.randperm(n); losses = []
    for i in range(0, n, 64):
        idx = perm[i:i + 64]
        prev, z, cov, sid, v = [a[idx] for a in tr]
        mu, sigma = model(prev, cov, sid)
        loss = nll(mu, sigma, z)
        opt.zero_grad(); loss.backward(); opt.step()
        losses.append(loss.item())
    nd, rmse, tl = evaluate(model)
    print('Epoch %d/12  train_loss: %.4f (first batch %.4f, last batch %.4f)' % (epoch, np.mean(losses), losses[0], losses[-1]))
    print('- Full test metrics: ND: %.3f ; RMSE: %.3f ; test_loss: %.5f' % (nd, rmse, tl))
