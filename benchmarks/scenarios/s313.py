# rstudio::conf 2020 keras workshop mini-project (Ames housing) in miniature: synthetic house records with 20
# standardised numeric / one-hot features (the recipe normalises the predictors) and the raw sale price in
# dollars as the target (about 60k-755k), a dense 64-32-1 network, optimizer_sgd(lr = 0.1), loss
# "mean_squared_error", metric mae, batch 16, validation_split 0.2, 10 epochs. Prints a Keras-like epoch line;
# writes metrics.csv (one row per batch for the first 10 batches, then per 10 batches, of the first epoch and one per epoch).
import csv
import math
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(313)
n = 2051
X = torch.randn(n, 20, generator=g)
w = torch.tensor([0.35, 0.2, 0.15, 0.1, 0.08] + [0.03] * 15)
log_price = 12.0 + X @ w + 0.1 * torch.randn(n, generator=g)
y = torch.exp(log_price).clamp(max=755000.0).unsqueeze(1)      # dollars, not rescaled
ntr = int(0.8 * n)
xtr, ytr, xva, yva = X[:ntr], y[:ntr], X[ntr:], y[ntr:]
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
mse = nn.MSELoss()
rows = []
print(f'Train on {ntr} samples, validate on {n - ntr} samples (price mean {y.mean().item():.0f}, '
      f'max {y.max().item():.0f})')
for epoch in range(1, 11):
    perm = torch.randperm(ntr, generator=g)
    tl, tm, nb = 0.0, 0.0, 0
    for b in range(0, ntr, 16):
        idx = perm[b:b + 16]
        pred = model(xtr[idx])
        loss = mse(pred, ytr[idx])
        opt.zero_grad(); loss.backward()
        gn = math.sqrt(sum(float(p.grad.norm()) ** 2 for p in model.parameters()))
        opt.step()
        tl += loss.item(); tm += (pred - ytr[idx]).abs().mean().item(); nb += 1
        if epoch == 1 and (nb <= 10 or nb % 10 == 0):
            rows.append(dict(epoch=epoch, batch=nb, loss=loss.item(), mae=(pred - ytr[idx]).abs().mean().item(),
                             grad_norm=gn, val_loss='', val_mae=''))
    with torch.no_grad():
        pv = model(xva)
        vl, vm = mse(pv, yva).item(), (pv - yva).abs().mean().item()
    rows.append(dict(epoch=epoch, batch=nb, loss=tl / nb, mae=tm / nb, grad_norm=gn, val_loss=vl, val_mae=vm))
    print(f'Epoch {epoch}/10\n{ntr}/{ntr} - loss: {tl / nb:.4g} - mae: {tm / nb:.4g} - val_loss: {vl:.4g} '
          f'- val_mae: {vm:.4g}')
with open('metrics.csv', 'w', newline='') as f:
    wr = csv.DictWriter(f, fieldnames=list(rows[0]))
    wr.writeheader(); wr.writerows(rows)
