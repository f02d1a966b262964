# cpmpercussion/keras-mdn-layer in miniature, ported to PyTorch: a Keras-style Sequential regression model
# (Dense(64, relu) -> Dense(64, relu) -> MDN(OUTPUT_DIMS=2, N_MIXES=5): mixture means, sigmas through
# elu + 1 + 1e-8, and mixture weights through softmax) trained with the negative log-likelihood of the
# Gaussian mixture (mdn.get_mixture_loss_func), Adam lr 1e-3, batch 64, 30 epochs, on 6000 synthetic
# samples (8 input features, 2 targets that depend non-linearly on the inputs with a bimodal branch and a
# small noise), Y standard scaled as in the report, validation_split 0.2; Keras-style per-epoch lines.
import csv, math, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(4); torch.manual_seed(4); torch.set_num_threads(1)
OUTPUT_DIMS, N_MIXES, N = 2, 5, 6000
X = np.random.uniform(-1, 1, (N, 8)).astype(np.float32)
branch = np.random.rand(N) < 0.5
y1 = np.sin(2.5 * X[:, 0]) + 0.5 * X[:, 1] * X[:, 2] + np.where(branch, 0.8, -0.8)
y2 = np.cos(2.0 * X[:, 3]) * X[:, 4] + 0.3 * X[:, 5]
Y = np.stack([y1, y2], 1) + np.random.randn(N, 2) * 0.05
Y = ((Y - Y.mean(0)) / Y.std(0)).astype(np.float32)               # StandardScaler on Y
X, Y = torch.tensor(X), torch.tensor(Y)
split = int(N * 0.8); x_tr, y_tr, x_va, y_va = X[:split], Y[:split], X[split:], Y[split:]

class MDN(nn.Module):
    def __init__(self, cin, output_dims, n_mixes):
        super().__init__(); self.d, self.m = output_dims, n_mixes
        self.mus = nn.Linear(cin, n_mixes * output_dims); self.sigmas = nn.Linear(cin, n_mixes * output_dims)
        self.pis = nn.Linear(cin, n_mixes)
    def forward(self, h):
        return self.mus(h), F.elu(self.sigmas(h)) + 1 + 1e-8, self.pis(h)

def mixture_loss(params, y):
    mu, sigma, pi_logits = params
    mu = mu.view(-1, N_MIXES, OUTPUT_DIMS); sigma = sigma.view(-1, N_MIXES, OUTPUT_DIMS)
    comp = (-0.5 * ((y[:, None, :] - mu) / sigma) ** 2 - torch.log(sigma) - 0.5 * math.log(2 * math.pi)).sum(-1)
    return -torch.logsumexp(F.log_softmax(pi_logits, 1) + comp, 1).mean()

model = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), MDN(64, OUTPUT_DIMS, N_MIXES))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f); wr.writerow(['epoch', 'loss', 'val_loss'])
print(f'Train on {len(x_tr)} samples, validate on {len(x_va)} samples')
for epoch in range(30):
    t0 = time.time(); model.train(); perm = torch.randperm(len(x_tr)); tl = 0.0
    for b in range(0, len(perm), 64):
        idx = perm[b:b + 64]; loss = mixture_loss(model(x_tr[idx]), y_tr[idx])
        opt.zero_grad(); loss.backward(); opt.step(); tl += loss.item() * len(idx)
    model.eval()
    with torch.no_grad():
        vl = mixture_loss(model(x_va), y_va).item()
    n = len(x_tr)
    print(f'Epoch {epoch + 1}/30')
    print(f'{n}/{n} [==============================] - {time.time() - t0:.0f}s - loss: {tl / n:.4f} - val_loss: {vl:.4f}', flush=True)
    wr.writerow([epoch + 1, tl / n, vl]); f.flush()
