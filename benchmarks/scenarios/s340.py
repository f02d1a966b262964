# Human-activity-recognition time-series classifier in miniature, after an mcfly (Keras deep learning for time
# series) workflow: windows of tri-axial accelerometer data (3 channels x 128 samples) from 6 activities (walking,
# upstairs, downstairs, sitting, standing, lying; each a class-specific mix of periodic gait components, gravity
# orientation and noise, with per-window amplitude and frequency jitter), 4800 training windows stored recording by
# recording, i.e. grouped by activity, and 1200 shuffled validation windows. A small 1-D CNN (3 Conv1d-BN-ReLU
# layers, global average pooling, Dense 6), categorical cross-entropy, Adam lr 1e-3, batch 64, 12 epochs; the
# training arrays are fed to the fit loop in their stored order (no shuffling). Prints a Keras-like line per epoch
# (running training loss/accuracy, validation loss/accuracy, and the share of validation windows predicted as the
# most frequent predicted class), writes metrics.csv.
import csv
import math
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(340)
NC, T = 6, 128
freq = torch.tensor([1.9, 1.6, 2.2, 0.0, 0.0, 0.0])
amp = torch.tensor([1.0, 0.8, 1.2, 0.05, 0.08, 0.05])
grav = torch.tensor([[0.0, 0.0, 1.0], [0.2, 0.0, 0.95], [-0.2, 0.0, 0.95], [0.6, 0.0, 0.75], [0.0, 0.1, 1.0], [0.0, 1.0, 0.1]])


def windows(y):
    n = len(y)
    t = torch.arange(T).float() / 50.0
    f = freq[y][:, None] * (1 + 0.1 * torch.randn(n, 1, generator=g))
    ph = 2 * math.pi * torch.rand(n, 1, generator=g)
    gait = amp[y][:, None] * (1 + 0.2 * torch.randn(n, 1, generator=g)) * torch.sin(2 * math.pi * f * t + ph)
    x = grav[y][:, :, None] + 0.15 * torch.randn(n, 3, 1, generator=g) + gait[:, None, :] * torch.tensor([0.5, 0.3, 1.0])[None, :, None]
    return x + 0.3 * torch.randn(n, 3, T, generator=g)


Ytr = torch.arange(NC).repeat_interleave(800)            # recordings stored activity by activity
Xtr = windows(Ytr)
Yva = torch.randint(0, NC, (1200,), generator=g)
Xva = windows(Yva)
model = nn.Sequential(nn.Conv1d(3, 32, 5, padding=2), nn.BatchNorm1d(32), nn.ReLU(),
                      nn.Conv1d(32, 32, 5, padding=2), nn.BatchNorm1d(32), nn.ReLU(),
                      nn.Conv1d(32, 32, 5, padding=2), nn.BatchNorm1d(32), nn.ReLU(),
                      nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(32, NC))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
lossf = nn.CrossEntropyLoss()
rows = []
for epoch in range(1, 13):
    model.train()
    tl, tc = 0.0, 0
    for k in range(0, len(Xtr), 64):
        x, y = Xtr[k:k + 64], Ytr[k:k + 64]
        out = model(x); loss = lossf(out, y)
        opt.zero_grad(); loss.backward(); opt.step()
        tl += loss.item() * len(y); tc += (out.argmax(1) == y).sum().item()
    model.eval()
    with torch.no_grad():
        vo = model(Xva)
        vl, pred = lossf(vo, Yva).item(), vo.argmax(1)
    va = (pred == Yva).float().mean().item()
    top = torch.bincount(pred, minlength=NC).max().item() / len(pred)
    r = dict(epoch=epoch, loss=tl / len(Xtr), acc=tc / len(Xtr), val_loss=vl, val_acc=va, top_pred_share=top)
    rows.append(r)
    print(f"Epoch {epoch}/12 - loss: {r['loss']:.4f} - acc: {r['acc']:.4f} - val_loss: {vl:.4f} - val_acc: {va:.4f} - top predicted class share: {top:.3f}")
with open('metrics.csv', 'w', newline='') as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
