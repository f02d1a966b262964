# Inception-style small CNN on a CIFAR-10-like standard train/test split (10 classes, 3x32x32):
# random crop + horizontal flip augmentation on the training set, dropout 0.5 before the
# classifier, SGD lr 0.01 momentum 0.9 weight decay 5e-4, batch 64. Train accuracy is the running accuracy of the
# epoch (model.train()), test accuracy is measured after the epoch (model.eval()).
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)
torch.set_num_threads(1)

protos = F.interpolate(torch.rand(10, 3, 8, 8), size=32, mode="bilinear", align_corners=False)
def make(n):
    y = torch.randint(0, 10, (n,))
    shift = torch.randint(-3, 4, (n, 2))
    x = torch.stack([torch.roll(protos[c], tuple(s.tolist()), (1, 2)) for c, s in zip(y.tolist(), shift)])
    return x + 0.8 * torch.randn(n, 3, 32, 32), y
x_tr, y_tr = make(3000)
x_te, y_te = make(1000)

def augment(x):
    x = F.pad(x, (4, 4, 4, 4), mode="reflect")
    i, j = torch.randint(0, 9, (2,)).tolist()
    x = x[:, :, i:i + 32, j:j + 32]
    flip = torch.rand(x.size(0)) < 0.5
    x[flip] = x[flip].flip(3)
    return x

class Mixed(nn.Module):
    def __init__(self, cin, c):
        super().__init__()
        self.b1 = nn.Conv2d(cin, c, 1); self.b3 = nn.Conv2d(cin, c, 3, padding=1); self.b5 = nn.Conv2d(cin, c, 5, padding=2)
        self.bn = nn.BatchNorm2d(3 * c)
    def forward(self, x):
        return F.relu(self.bn(torch.cat([self.b1(x), self.b3(x), self.b5(x)], 1)))

model = nn.Sequential(Mixed(3, 8), nn.MaxPool2d(2), Mixed(24, 16), nn.MaxPool2d(2), Mixed(48, 16),
                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.5), nn.Linear(48, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=5e-4)

with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["epoch", "loss", "acc", "val_loss", "val_acc"])
    for epoch in range(1, 11):
        model.train()
        perm = torch.randperm(len(y_tr)); tl = tc = n = 0
        for i in range(0, len(perm), 64):
            idx = perm[i:i + 64]
            out = model(augment(x_tr[idx])); loss = F.cross_entropy(out, y_tr[idx])
            opt.zero_grad(); loss.backward(); opt.step()
            tl += loss.item() * len(idx); tc += (out.argmax(1) == y_tr[idx]).sum().item(); n += len(idx)
        model.eval()
        with torch.no_grad():
            o = model(x_te); vl = F.cross_entropy(o, y_te).item(); va = (o.argmax(1) == y_te).float().mean().item()
        print(f"Epoch {epoch}: train loss {tl / n:.4f} train ACC {100 * tc / n:.2f}% | test loss {vl:.4f} test ACC {100 * va:.2f}%")
        wr.writerow([epoch, f"{tl / n:.4f}", f"{tc / n:.4f}", f"{vl:.4f}", f"{va:.4f}"])
        fh.flush()
