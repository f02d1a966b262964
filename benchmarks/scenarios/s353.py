# SegNet-Basic in miniature, after the Caffe SegNet tutorial (CamVid, 4 encoder / 4 decoder conv-BN-ReLU blocks
# with max-pooling indices used for unpooling, SGD lr 0.1 momentum 0.9, class-weighted softmax loss, batch
# normalisation statistics recomputed for inference): synthetic 32x32 street scenes with 4 classes (sky, building,
# road, car) drawn with per-image exposure and colour cast, 2 encoder / 2 decoder blocks of width 32, 640 training
# and 160 test images, 8 epochs. Because of a small GPU the batch size is 1 instead of the tutorial's 4 (nothing
# else changed). Prints the training loss (mean over the last 160 iterations, with its min/max), and test loss,
# pixel accuracy and mIoU with the network in inference mode (running BN statistics) per epoch, writes metrics.csv.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(353)
S, NC, BATCH = 32, 4, 1
base = torch.tensor([[0.55, 0.7, 0.95], [0.5, 0.4, 0.35], [0.3, 0.3, 0.32], [0.8, 0.1, 0.1]])


def scenes(n):
    X, Y = torch.zeros(n, 3, S, S), torch.zeros(n, S, S, dtype=torch.long)
    yy, xx = torch.meshgrid(torch.arange(S), torch.arange(S), indexing='ij')
    for k in range(n):
        hz = int(torch.randint(10, 18, (1,), generator=g))
        lab = torch.where(yy < hz, 0, 2)
        for _ in range(int(torch.randint(1, 4, (1,), generator=g))):
            x0 = int(torch.randint(0, 26, (1,), generator=g)); w = int(torch.randint(5, 12, (1,), generator=g))
            top = int(torch.randint(2, hz, (1,), generator=g))
            lab = torch.where((xx >= x0) & (xx < x0 + w) & (yy >= top) & (yy < hz + 2), 1, lab)
        cx = int(torch.randint(3, 29, (1,), generator=g)); cy = int(torch.randint(hz + 3, 30, (1,), generator=g))
        lab = torch.where(((xx - cx).abs() < 4) & ((yy - cy).abs() < 2), 3, lab)
        img = base[lab].permute(2, 0, 1) + 0.08 * torch.randn(3, S, S, generator=g)
        expo = 0.3 + 1.7 * torch.rand(1, generator=g); cast = 1 + 0.3 * (torch.rand(3, 1, 1, generator=g) - 0.5)
        X[k] = img * expo * cast + 0.4 * (torch.rand(1, generator=g) - 0.5); Y[k] = lab
    return X, Y


Xtr, Ytr = scenes(640)
Xte, Yte = scenes(160)


def block(ci, co):
    return nn.Sequential(nn.Conv2d(ci, co, 3, padding=1), nn.BatchNorm2d(co), nn.ReLU())


class SegNetBasic(nn.Module):
    def __init__(self):
        super().__init__()
        self.e1, self.e2 = block(3, 32), block(32, 32)
        self.d2, self.d1 = block(32, 32), block(32, 32)
        self.cls = nn.Conv2d(32, NC, 1)

    def forward(self, x):
        x, i1 = F.max_pool2d(self.e1(x), 2, return_indices=True)
        x, i2 = F.max_pool2d(self.e2(x), 2, return_indices=True)
        x = self.d2(F.max_unpool2d(x, i2, 2))
        x = self.d1(F.max_unpool2d(x, i1, 2))
        return self.cls(x)


freq = torch.bincount(Ytr.flatten(), minlength=NC).float() / Ytr.numel()
weight = freq.median() / freq                                               # median frequency balancing
model = SegNetBasic()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
lossf = nn.CrossEntropyLoss(weight=weight)
rows = []
for epoch in range(1, 9):
    model.train(); perm = torch.randperm(len(Xtr), generator=g); recent = []
    for k in range(0, len(Xtr), BATCH):
        i = perm[k:k + BATCH]
        loss = lossf(model(Xtr[i]), Ytr[i])
        opt.zero_grad(); loss.backward(); opt.step()
        recent.append(loss.item())
    recent = recent[-160:]
    model.eval()
    with torch.no_grad():
        out = model(Xte); tl = lossf(out, Yte).item(); pred = out.argmax(1)
        acc = (pred == Yte).float().mean().item()
        ious = [((pred == c) & (Yte == c)).sum().item() / max(1, ((pred == c) | (Yte == c)).sum().item()) for c in range(NC)]
    r = dict(epoch=epoch, train_loss=sum(recent) / len(recent), train_loss_min=min(recent), train_loss_max=max(recent),
             test_loss=tl, test_pixel_acc=acc, test_miou=sum(ious) / NC)
    rows.append(r)
    print(f"epoch {epoch} | train loss {r['train_loss']:.4f} (min {r['train_loss_min']:.4f}, max {r['train_loss_max']:.4f}) | "
          f"test loss {tl:.4f} | pixel acc {acc:.3f} | mIoU {r['test_miou']:.3f}")
with open('metrics.csv', 'w', newline='') as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
