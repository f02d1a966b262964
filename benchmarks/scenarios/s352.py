# Speech emotion recognition from raw waveforms in miniature, after a wav2vec2-style fine-tuning setup: synthetic
# 0.25 s "utterances" at 8 kHz (2000 samples), 4 emotion classes that differ in pitch range, pitch movement and
# energy modulation, recorded as in a dataset of TV-show clips: quiet recordings (per-clip gain 0.003-0.03) on top
# of a per-clip DC offset of up to +-0.4 and a little hum. A strided 1-D conv feature encoder (5 conv layers,
# GELU, no normalisation) with mean pooling and a linear head, AdamW lr 3e-4, batch 16, 10 epochs over 1600 clips,
# waveforms fed exactly as loaded (no per-utterance normalisation). Prints train loss / accuracy and
# validation loss / accuracy / unweighted average recall per epoch, writes metrics.csv.
import csv
import math
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(352)
SR, N, C = 8000, 2000, 4
t = torch.arange(N) / SR


def clips(n):
    y = torch.randint(0, C, (n,), generator=g)
    f0 = torch.tensor([140., 260., 180., 320.])[y] * (1 + 0.15 * torch.randn(n, generator=g))
    glide = torch.tensor([0.0, 0.6, -0.3, 0.2])[y] + 0.1 * torch.randn(n, generator=g)
    am = torch.tensor([2.0, 9.0, 4.0, 14.0])[y] * (1 + 0.2 * torch.rand(n, generator=g))
    ph = 2 * math.pi * torch.cumsum(f0[:, None] * (1 + glide[:, None] * t / t[-1]), 1) / SR
    env = 0.6 + 0.4 * torch.sin(2 * math.pi * am[:, None] * t + 6 * torch.rand(n, 1, generator=g))
    voice = env * (torch.sin(ph) + 0.5 * torch.sin(2 * ph) + 0.25 * torch.sin(3 * ph)) + 0.3 * torch.randn(n, N, generator=g)
    gain = 10 ** (-2.5 + torch.rand(n, 1, generator=g))                       # 0.003 .. 0.03
    dc = 0.8 * (torch.rand(n, 1, generator=g) - 0.5)
    hum = 0.01 * torch.sin(2 * math.pi * 50 * t + 6 * torch.rand(n, 1, generator=g))
    return (gain * voice + dc + hum).unsqueeze(1), y


Xtr, Ytr = clips(1600)
Xva, Yva = clips(400)
layers, cin = [], 1
for cout, k, s in [(32, 10, 5), (32, 3, 2), (32, 3, 2), (32, 3, 2), (32, 2, 2)]:
    layers += [nn.Conv1d(cin, cout, k, s), nn.GELU()]; cin = cout
model = nn.Sequential(*layers)
head = nn.Linear(32, C)
opt = torch.optim.AdamW(list(model.parameters()) + list(head.parameters()), lr=3e-4)
lossf = nn.CrossEntropyLoss()


def forward(x):
    return head(model(x).mean(2))


rows = []
for epoch in range(1, 11):
    perm = torch.randperm(len(Xtr), generator=g); tl = tc = 0.0
    for k in range(0, len(Xtr), 16):
        i = perm[k:k + 16]
        out = forward(Xtr[i]); loss = lossf(out, Ytr[i])
        opt.zero_grad(); loss.backward(); opt.step()
        tl += loss.item() * len(i); tc += (out.argmax(1) == Ytr[i]).sum().item()
    with torch.no_grad():
        out = forward(Xva); vl = lossf(out, Yva).item(); pred = out.argmax(1)
        uar = sum(((pred == c) & (Yva == c)).sum().item() / max(1, (Yva == c).sum().item()) for c in range(C)) / C
    r = dict(epoch=epoch, train_loss=tl / len(Xtr), train_acc=tc / len(Xtr), val_loss=vl, val_acc=(pred == Yva).float().mean().item(), val_uar=uar)
    rows.append(r)
    print(f"Epoch {epoch:2d} | train loss {r['train_loss']:.4f} acc {r['train_acc']:.3f} | valid loss {vl:.4f} acc {r['val_acc']:.3f} UAR {uar:.3f}")
with open('metrics.csv', 'w', newline='') as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
