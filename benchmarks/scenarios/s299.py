# Crop-price forecaster in miniature (LSTM, Keras-style validation_split done at random): daily modal price of
# one commodity over 6 years (trend + yearly season + regime shifts + noise), min-max scaled, 60-day input
# windows -> next-day price. The first 80% of the timeline is the training period; its windows are shuffled
# and a random 10% become the validation set (so every validation window overlaps training windows shifted by
# a day), early-stopping-style monitoring on that val loss. The last 20% of the timeline (the future) is the
# test period. LSTM(32) -> Linear, Adam 1e-3, batch 64, 25 epochs. Writes metrics.csv and prints each epoch.
import csv
import math
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(299)

days = 6 * 365
t = torch.arange(days).float()
walk = torch.cumsum(torch.randn(days, generator=g) * 0.6, 0)
season = 8 * torch.sin(2 * math.pi * t / 365) + 3 * torch.sin(2 * math.pi * t / 91)
price = 100 + 0.01 * t + season + walk + torch.randn(days, generator=g) * 1.5
price[int(days * 0.83):] += 12                                   # a market shock in the later period
lo, hi = price.min(), price.max()
s = (price - lo) / (hi - lo)

L = 60
X = torch.stack([s[i:i + L] for i in range(days - L)]).unsqueeze(-1)
Y = s[L:].unsqueeze(-1)
cut = int(0.8 * len(X))
X_hist, Y_hist, X_test, Y_test = X[:cut], Y[:cut], X[cut:], Y[cut:]
perm = torch.randperm(len(X_hist), generator=g)                   # random validation split of time windows
n_val = len(X_hist) // 10
vi, ti = perm[:n_val], perm[n_val:]
X_tr, Y_tr, X_val, Y_val = X_hist[ti], Y_hist[ti], X_hist[vi], Y_hist[vi]


class Forecaster(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(1, 32, batch_first=True)
        self.head = nn.Linear(32, 1)

    def forward(self, x):
        h, _ = self.lstm(x)
        return self.head(h[:, -1])


model = Forecaster()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
mse = nn.MSELoss()
rows, best = [], float('inf')
for epoch in range(1, 26):
    model.train()
    p = torch.randperm(len(X_tr), generator=g)
    tot = 0.0
    for i in range(0, len(X_tr), 64):
        idx = p[i:i + 64]
        loss = mse(model(X_tr[idx]), Y_tr[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        tot += loss.item() * len(idx)
    model.eval()
    with torch.no_grad():
        v = mse(model(X_val), Y_val).item()
        te = mse(model(X_test), Y_test).item()
        te_mae = ((model(X_test) - Y_test).abs().mean() * (hi - lo)).item()
        v_mae = ((model(X_val) - Y_val).abs().mean() * (hi - lo)).item()
    best = min(best, v)
    print(f'Epoch {epoch}/25 - loss: {tot / len(X_tr):.5f} - val_loss: {v:.5f} (val MAE {v_mae:.2f} Rs) - test(future) loss: {te:.5f} (MAE {te_mae:.2f} Rs)')
    rows.append(dict(epoch=epoch, loss=round(tot / len(X_tr), 6), val_loss=round(v, 6), val_mae=round(v_mae, 3),
                     test_loss=round(te, 6), test_mae=round(te_mae, 3)))
with open('metrics.csv', 'w', newline='') as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
print(f'best val_loss {best:.5f}')
