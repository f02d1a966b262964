# RIAWELC-style weld-defect classifier (4 classes: lack of penetration, porosity, crack, no defect).
# 29 source radiographs are sliced into 32x32 patches with an overlapping sliding window,
# the patches are pooled and randomly split into train/val/test (80/10/10). Small CNN, Adam 1e-3,
# batch 64. A few radiographs scanned later (never sliced into the dataset) are scored each epoch too.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
CLASSES = ["LP", "PO", "CR", "ND"]

def radiograph(n_segments=12):
    # one weld bead strip: smooth film background unique to this radiograph + one defect per 64-px segment
    strip = F.avg_pool2d(torch.randn(1, 1, 32, 64 * n_segments) * 3, 9, 1, 4)[0, 0]
    strip += torch.linspace(-1, 1, 64 * n_segments) * torch.randn(1) + torch.randn(1)
    labels = torch.randint(0, 4, (n_segments,))
    for s, c in enumerate(labels.tolist()):
        x0 = 64 * s
        a = 0.25 + 0.20 * torch.rand(1).item()
        if c == 0:   # lack of penetration: dark horizontal band along the root
            strip[14:18, x0:x0 + 64] -= a
        elif c == 1:  # porosity: scattered round dark pores
            for _ in range(6):
                px, py = x0 + torch.randint(4, 60, (1,)).item(), torch.randint(4, 28, (1,)).item()
                strip[py - 1:py + 2, px - 1:px + 2] -= a * 1.5
        elif c == 2:  # crack: thin diagonal line
            for k in range(40):
                strip[min(31, 4 + k * 24 // 40), x0 + 12 + k] -= a * 1.5
    strip += 0.25 * torch.randn_like(strip)
    return strip, labels

def slice_patches(strip, labels, strides=(8, 16)):
    # the slicing tool was run once with stride 8 and once with stride 16; both outputs were kept
    xs, ys = [], []
    for stride in strides:
        for s, c in enumerate(labels.tolist()):
            for off in range(0, 33, stride):  # overlapping 32-px windows inside each 64-px segment
                xs.append(strip[:, 64 * s + off:64 * s + off + 32].clone()); ys.append(c)
    return xs, ys

X, Y = [], []
for r in range(29):
    xs, ys = slice_patches(*radiograph())
    X += xs; Y += ys
X = torch.stack(X).unsqueeze(1); Y = torch.tensor(Y)
perm = torch.randperm(len(Y))
n_tr, n_va = int(0.8 * len(Y)), int(0.1 * len(Y))
tr, va, te = perm[:n_tr], perm[n_tr:n_tr + n_va], perm[n_tr + n_va:]
FX, FY = [], []
for r in range(6):
    xs, ys = slice_patches(*radiograph(), strides=(8,)); FX += xs; FY += ys
FX = torch.stack(FX).unsqueeze(1); FY = torch.tensor(FY)
print(f"patches: train {len(tr)} val {len(va)} test {len(te)}; later radiographs {len(FY)}")

model = nn.Sequential(
    nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(), nn.Linear(64 * 8 * 8, 128), nn.ReLU(), nn.Linear(128, 4))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

def evaluate(x, y):
    model.eval()
    with torch.no_grad():
        o = model(x)
    model.train()
    return F.cross_entropy(o, y).item(), (o.argmax(1) == y).float().mean().item()

with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["epoch", "loss", "acc", "val_loss", "val_acc", "test_acc", "new_radiograph_acc"])
    for epoch in range(1, 21):
        p = tr[torch.randperm(len(tr))]
        tl, tc, n = 0.0, 0.0, 0
        for i in range(0, len(p), 64):
            idx = p[i:i + 64]
            out = model(X[idx]); loss = F.cross_entropy(out, Y[idx])
            opt.zero_grad(); loss.backward(); opt.step()
            tl += loss.item() * len(idx); tc += (out.argmax(1) == Y[idx]).sum().item(); n += len(idx)
        vl, vacc = evaluate(X[va], Y[va]); _, tacc = evaluate(X[te], Y[te]); _, facc = evaluate(FX, FY)
        print(f"Epoch {epoch:2d} loss {tl / n:.4f} acc {tc / n:.4f} val_loss {vl:.4f} val_acc {vacc:.4f} test_acc {tacc:.4f} | new radiographs acc {facc:.4f}")
        wr.writerow([epoch, f"{tl / n:.4f}", f"{tc / n:.4f}", f"{vl:.4f}", f"{vacc:.4f}", f"{tacc:.4f}", f"{facc:.4f}"])
        fh.flush()
