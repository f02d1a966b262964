# hurricane-net style track/intensity forecaster in miniature: best-track-like records (lat, lon, max wind,
# min pressure, storm speed, heading) for 300 synthetic storms, 5 past 6-hourly fixes -> the 24 h-ahead
# position and wind. As in the raw HURDAT-like table, some fixes have missing pressure/wind (NaN), and the
# features go through a RobustScaler-style (median / IQR) transform computed with nan-aware statistics, but
# the NaNs themselves are neither dropped nor filled before training. MLP 30-64-64-3, Adam 1e-3, batch 32,
# 20 epochs, MSE. Writes metrics.csv and prints per epoch.
import csv
import math
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(302)

rows_x, rows_y = [], []
for s in range(300):
    n = int(torch.randint(16, 30, (1,), generator=g))
    lat, lon = 12 + 8 * float(torch.rand(1, generator=g)), -40 - 30 * float(torch.rand(1, generator=g))
    wind, head = 30 + 20 * float(torch.rand(1, generator=g)), 280 + 40 * float(torch.rand(1, generator=g))
    track = []
    for k in range(n):
        speed = 10 + 5 * math.sin(k / 4) + float(torch.randn(1, generator=g))
        head += 3 + float(torch.randn(1, generator=g)) * 2
        lat += speed * math.cos(math.radians(head)) / 60 * 6
        lon += speed * math.sin(math.radians(head)) / 60 * 6
        wind = max(20.0, wind + 6 * math.sin(k / 5) + float(torch.randn(1, generator=g)) * 3)
        pres = 1010 - 0.9 * wind + float(torch.randn(1, generator=g)) * 2
        track.append([lat, lon, wind, pres, speed, head % 360])
    tr = torch.tensor(track)
    miss = torch.rand(n, generator=g) < 0.04                      # ~4% of fixes lack wind/pressure
    tr[miss, 2:4] = float('nan')
    for k in range(5, n - 4):
        rows_x.append(tr[k - 5:k].flatten())
        tgt = tr[k + 3, :3].clone()
        rows_y.append(tgt)
X, Y = torch.stack(rows_x), torch.stack(rows_y)
keep = ~torch.isnan(Y).any(1)                                      # targets with missing values are dropped
X, Y = X[keep], Y[keep]
perm = torch.randperm(len(X), generator=g)
n_te = len(X) // 5
Xte, Yte, Xtr, Ytr = X[perm[:n_te]], Y[perm[:n_te]], X[perm[n_te:]], Y[perm[n_te:]]

med = Xtr.nanmedian(0).values
q75, q25 = torch.nanquantile(Xtr, 0.75, 0), torch.nanquantile(Xtr, 0.25, 0)
scale = q75 - q25
Xtr, Xte = (Xtr - med) / scale, (Xte - med) / scale
ym, ys = Ytr.mean(0), Ytr.std(0)
Ytr_n, Yte_n = (Ytr - ym) / ys, (Yte - ym) / ys
print(f'{len(Xtr)} training windows, {int(torch.isnan(Xtr).any(1).sum())} of them contain a NaN feature')

model = nn.Sequential(nn.Linear(30, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
mse = nn.MSELoss()
rows = []
for epoch in range(1, 21):
    model.train()
    p = torch.randperm(len(Xtr), generator=g); tot, nb, first_nan = 0.0, 0, None
    for i in range(0, len(Xtr), 32):
        idx = p[i:i + 32]
        loss = mse(model(Xtr[idx]), Ytr_n[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        if first_nan is None and math.isnan(loss.item()):
            first_nan = nb
        tot += loss.item(); nb += 1
    model.eval()
    with torch.no_grad():
        pe = model(Xte) * ys + ym
        te = mse((pe - ym) / ys, Yte_n).item()
        err_km = ((pe[:, :2] - Yte[:, :2]).pow(2).sum(1).sqrt() * 111).mean().item()
    print(f'Epoch {epoch}/20 - loss: {tot / nb:.4f} - val_loss: {te:.4f} - 24h track error: {err_km:.1f} km'
          + (f'  (first nan at batch {first_nan})' if first_nan is not None else ''))
    rows.append(dict(epoch=epoch, loss=tot / nb, val_loss=te, track_error_km=err_km))
with open('metrics.csv', 'w', newline='') as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
