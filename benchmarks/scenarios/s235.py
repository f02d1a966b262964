# ImageNet-style folder data set, 12 classes (one sub-folder per class, named by WordNet-like
# ids). Training images are labelled with the sorted class-folder list; the validation loader
# builds its own label index from os.scandir() order of the val sub-folders, which is the
# directory's on-disk order, not alphabetical. Small CNN, SGD lr 0.05 momentum 0.9, batch 64.
import csv
import os
import random
import shutil
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)
torch.set_num_threads(1)

C = 12
wnids = sorted(f"n0{1440000 + 37 * k * k + 11 * k}" for k in range(C))
protos = F.interpolate(torch.rand(C, 3, 6, 6), size=24, mode="bilinear", align_corners=False)

# write a small folder data set: root/{train,val}/<wnid>/<i>.pt ; folders created in a random order
root = os.path.abspath("imgfolder")
shutil.rmtree(root, ignore_errors=True)
for split, n in (("train", 120), ("val", 30)):
    order = wnids[:]; random.shuffle(order)
    for wnid in order:
        os.makedirs(os.path.join(root, split, wnid))
        c = wnids.index(wnid)
        x = protos[c] + 0.6 * torch.randn(n, 3, 24, 24)
        torch.save(x, os.path.join(root, split, wnid, "images.pt"))

def load_train(path):
    classes = sorted(e.name for e in os.scandir(path) if e.is_dir())
    xs, ys = [], []
    for i, wnid in enumerate(classes):
        x = torch.load(os.path.join(path, wnid, "images.pt")); xs.append(x); ys += [i] * len(x)
    return torch.cat(xs), torch.tensor(ys)

def load_val(path):
    xs, ys = [], []
    for i, e in enumerate(os.scandir(path)):
        if e.is_dir():
            x = torch.load(os.path.join(e.path, "images.pt")); xs.append(x); ys += [i] * len(x)
    return torch.cat(xs), torch.tensor(ys)

x_tr, y_tr = load_train(os.path.join(root, "train"))
x_va, y_va = load_val(os.path.join(root, "val"))
print(f"train {len(y_tr)} images, val {len(y_va)} images, {C} classes")

model = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Flatten(), nn.Linear(64 * 6 * 6, 128), nn.ReLU(), nn.Linear(128, C))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["epoch", "loss", "acc", "val_loss", "val_acc"])
    for epoch in range(1, 16):
        model.train(); perm = torch.randperm(len(y_tr)); tl = tc = 0
        for i in range(0, len(perm), 64):
            idx = perm[i:i + 64]
            out = model(x_tr[idx]); loss = F.cross_entropy(out, y_tr[idx])
            opt.zero_grad(); loss.backward(); opt.step()
            tl += loss.item() * len(idx); tc += (out.argmax(1) == y_tr[idx]).sum().item()
        model.eval()
        with torch.no_grad():
            o = model(x_va); vl = F.cross_entropy(o, y_va).item(); va = (o.argmax(1) == y_va).float().mean().item()
        print(f"epoch {epoch:2d} train_loss {tl / len(y_tr):.4f} train_acc {tc / len(y_tr):.4f} val_loss {vl:.4f} val_acc {va:.4f}")
        wr.writerow([epoch, f"{tl / len(y_tr):.4f}", f"{tc / len(y_tr):.4f}", f"{vl:.4f}", f"{va:.4f}"])
        fh.flush()
