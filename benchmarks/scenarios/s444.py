# zhykoties/TimeSeries (PyTorch DeepAR) trained on an electricity-like data set, in miniature: 40
# synthetic hourly consumption series (daily and weekly seasonality, series-specific level and shape,
# multiplicative noise), training windows of 48 conditioning + 24 prediction steps, covariates (hour of
# day, day of week, age, all standardised) plus a 20-d series-id embedding, 3-layer LSTM with hidden size
# 40, Gaussian likelihood head (mu, softplus sigma), each window scaled by its mean (v) as in the
# repository's preprocessing, loss = -Normal(mu, sigma).log_prob(z) averaged over steps (loss_fn in
# net.py), Adam lr 1e-3, batch 64, 8 epochs, a train-loss line every 20 batches and the test metrics
# (ND and RMSE of the mean forecast over the 24 prediction steps, ancestral sampling from the
# conditioning range not used) after each epoch.
import csv, math
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(16); torch.manual_seed(16); torch.set_num_threads(1)
n_series, T = 40, 24 * 7 * 8
t = np.arange(T)
level = np.random.uniform(50, 500, n_series); phase = np.random.uniform(0, 2 * np.pi, n_series)
amp = np.random.uniform(0.2, 0.6, n_series)
data = level[:, None] * (1 + amp[:, None] * np.sin(2 * np.pi * t / 24 + phase[:, None])
                         + 0.15 * np.sin(2 * np.pi * t / 168)[None]) * (1 + 0.05 * np.random.randn(n_series, T))
data = np.maximum(data, 1.0)
cov = np.stack([np.sin(2 * np.pi * (t % 24) / 24), np.cos(2 * np.pi * (t % 24) / 24), (t // 24 % 7 - 3) / 2, (t - T / 2) / T], 1)
COND, PRED, W = 48, 24, 72
def windows(start, stop, stride):
    X, ids, V = [], [], []
    for s in range(n_series):
        for st in range(start, stop - W + 1, stride):
            z = data[s, st:st + W]; v = z[:COND].mean() + 1
            X.append(np.concatenate([z[:, None] / v, cov[st:st + W]], 1)); ids.append(s); V.append(v)
    return torch.tensor(np.array(X), dtype=torch.float32), torch.tensor(ids), torch.tensor(V, dtype=torch.float32)
train_X, train_id, train_v = windows(0, T - 24 * 7, 24)
test_X, test_id, test_v = windows(T - 24 * 7 - COND, T, 24)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(n_series, 20)
        self.lstm = nn.LSTM(1 + 4 + 20, 40, num_layers=3, dropout=0.1)
        self.distribution_mu = nn.Linear(40 * 3, 1)
        self.distribution_presigma = nn.Linear(40 * 3, 1)
    def forward(self, x, idx, hidden, cell):
        onehot_embed = self.embedding(idx)
        lstm_input = torch.cat((x, onehot_embed), dim=2)
        output, (hidden, cell) = self.lstm(lstm_input, (hidden, cell))
        hidden_permute = hidden.permute(1, 2, 0).contiguous().view(hidden.shape[1], -1)
        mu = self.distribution_mu(hidden_permute)
        sigma = F.softplus(self.distribution_presigma(hidden_permute))
        return torch.squeeze(mu), torch.squeeze(sigma), hidden, cell

def loss_fn(mu, sigma, labels):
    distribution = torch.distributions.normal.Normal(mu, sigma)
    likelihood = distribution.log_prob(labels)
    return -torch.mean(likelihood)

def run_window(model, X, idx):
    B = X.shape[0]
    hidden = torch.zeros(3, B, 40); cell = torch.zeros(3, B, 40)
    loss = torch.zeros(1); mus = []
    for t_ in range(1, W):
        x_t = torch.cat([X[:, t_ - 1, :1], X[:, t_, 1:]], 1).unsqueeze(0)   # previous target + covariates
        mu, sigma, hidden, cell = model(x_t, idx.unsqueeze(0), hidden, cell)
        loss = loss + loss_fn(mu, sigma, X[:, t_, 0]); mus.append(mu)
    return loss / (W - 1), torch.stack(mus, 1)

model = Net(); optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['epoch', 'batch', 'train_loss', 'test_loss', 'ND', 'RMSE'])
for epoch in range(8):
    model.train(); perm = torch.randperm(len(train_X))
    for i, b in enumerate(range(0, len(train_X) - 63, 64)):
        idx = perm[b:b + 64]
        loss, _ = run_window(model, train_X[idx], train_id[idx])
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        if i % 20 == 0:
            print(f'Epoch {epoch + 1} batch {i}: train_loss: {loss.item():.5f}')
            wr.writerow([epoch + 1, i, loss.item(), '', '', ''])
    model.eval()
    with torch.no_grad():
        tl, mus = run_window(model, test_X, test_id)
        pred = mus[:, COND - 1:] * test_v[:, None]; true = test_X[:, COND:, 0] * test_v[:, None]
        ND = ((pred - true).abs().sum() / true.abs().sum()).item()
        RMSE = (((pred - true) ** 2).mean().sqrt() / true.abs().mean()).item()
    print(f'- Full test metrics: ND: {ND:.3f}; RMSE: {RMSE:.3f}; test_loss: {tl.item():.5f}')
    wr.writerow([epoch + 1, '', '', tl.item(), ND, RMSE])
