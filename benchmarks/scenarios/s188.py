# LeNet-style CNN on 16x16 digit-like glyphs trained with batch size 1 (online SGD); score printed every iteration
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(3443)
torch.set_num_threads(1)

C = 10
g = torch.Generator().manual_seed(12)
templates = (torch.rand(C, 1, 16, 16, generator=g) < 0.3).float()
templates = F.max_pool2d(templates, 3, 1, 1) - 0.5          # blobby strokes, zero-centred


def glyphs(n):
    y = torch.randint(0, C, (n,), generator=g)
    shift = torch.randint(-1, 2, (n, 2), generator=g)
    x = torch.stack([torch.roll(templates[c], (int(s[0]), int(s[1])), (1, 2)) for c, s in zip(y, shift)])
    return x + 0.35 * torch.randn(x.shape, generator=g), y


Xtr, ytr = glyphs(3000)
Xte, yte = glyphs(500)

model = nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Flatten(), nn.Linear(16 * 2 * 2, 84), nn.ReLU(), nn.Linear(84, C))
opt = torch.optim.SGD(model.parameters(), lr=0.005)

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["iteration", "epoch", "score", "test_accuracy", "test_loss"])
    it = 0
    for epoch in range(3):
        perm = torch.randperm(3000)
        for i in perm.tolist():                     # batch size 1
            loss = F.cross_entropy(model(Xtr[i:i + 1]), ytr[i:i + 1])
            opt.zero_grad()
            loss.backward()
            opt.step()
            it += 1
            if it % 250 == 0:
                with torch.no_grad():
                    out = model(Xte)
                    acc = (out.argmax(1) == yte).float().mean().item()
                    tl = F.cross_entropy(out, yte).item()
                w.writerow([it, epoch, f"{loss.item():.5f}", f"{acc:.4f}", f"{tl:.4f}"])
                print(f"Score at iteration {it} is {loss.item():.4f} | test accuracy {acc:.3f} test loss {tl:.4f}")
            else:
                w.writerow([it, epoch, f"{loss.item():.5f}", "", ""])
