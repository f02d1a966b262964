# Record-linkage match classifier in miniature, after the soweego multi-layer perceptron (Keras Dense layers on
# pairwise similarity features of a Wikidata item and a candidate catalog entry, sigmoid output, binary
# cross-entropy): 6000 training and 1500 validation candidate pairs with 24 similarity features (name, date, URL,
# occupation similarities; noisy and partly redundant, about 30% true matches), MLP 24-128-32-1 with ReLU, Adam
# lr 1e-4, batch 256, 200 epochs (the early-stopping patience of 100 in the pull request keeps it from stopping
# early). Prints train and validation loss and validation accuracy / F1 every 10 epochs plus the best epoch,
# writes metrics.csv.
import csv
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(342)
D = 24
w_true = torch.randn(D, generator=g) * (torch.rand(D, generator=g) < 0.5)
w_int = torch.randn(D, D, generator=g) * 0.25 * (torch.rand(D, D, generator=g) < 0.08)


def pairs(n):
    x = torch.rand(n, D, generator=g)
    x[:, 12:] = 0.6 * x[:, :12] + 0.4 * torch.rand(n, 12, generator=g)  # redundant similarity measures
    s = 3 * (x - 0.5) @ w_true + ((x - 0.5) @ w_int * (x - 0.5)).sum(1) * 4 - 1.5
    y = (s + 0.8 * torch.randn(n, generator=g) > 0).float()
    return x, y


Xtr, Ytr = pairs(6000)
Xva, Yva = pairs(1500)
print(f"train pairs {len(Ytr)} (matches {Ytr.mean():.3f}), validation pairs {len(Yva)}")
model = nn.Sequential(nn.Linear(D, 128), nn.ReLU(), nn.Linear(128, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-4)
bce = nn.BCEWithLogitsLoss()
rows, best = [], (1e9, 0)
for epoch in range(1, 201):
    model.train()
    perm = torch.randperm(len(Xtr), generator=g)
    tl = 0.0
    for k in range(0, len(Xtr), 256):
        i = perm[k:k + 256]
        loss = bce(model(Xtr[i]).squeeze(1), Ytr[i])
        opt.zero_grad(); loss.backward(); opt.step()
        tl += loss.item() * len(i)
    model.eval()
    with torch.no_grad():
        lo = model(Xva).squeeze(1)
        vl = bce(lo, Yva).item()
        p = (lo > 0).float()
        tp = (p * Yva).sum().item()
        f1 = 2 * tp / max(1.0, p.sum().item() + Yva.sum().item())
        acc = (p == Yva).float().mean().item()
    if vl < best[0]:
        best = (vl, epoch)
    r = dict(epoch=epoch, loss=tl / len(Xtr), val_loss=vl, val_acc=acc, val_f1=f1)
    rows.append(r)
    if epoch % 10 == 0 or epoch == 1:
        print(f"epoch {epoch:3d} loss {r['loss']:.4f} val_loss {vl:.4f} val_acc {acc:.4f} val_f1 {f1:.4f} | best val_loss {best[0]:.4f} at epoch {best[1]}")
with open('metrics.csv', 'w', newline='') as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
