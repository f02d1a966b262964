# Siamese network with a contrastive loss (MNIST-style, 10 digit classes, 2-d embedding).
# Pairs are built like SiameseMNIST: for each anchor, with probability 0.5 a random sample of the
# same class (target 1), else a random sample of another class (target 0).
# loss = 0.5 * (t * d^2 + (1 - t) * relu(margin - d)^2), d = Euclidean distance of the embeddings.
# EmbeddingNet: 2 conv + 3 FC layers with PReLU, Adam lr 1e-3, batch 128.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)

N_PER = 1200
protos = F.avg_pool2d(torch.rand(10, 1, 28, 28), 5, 1, 2)
def make(n_per):
    y = torch.arange(10).repeat_interleave(n_per)
    x = protos[y] * 2 + 0.5 * torch.randn(len(y), 1, 28, 28)
    return x, y
x_tr, y_tr = make(N_PER)
x_va, y_va = make(100)
idx_by_class = [torch.nonzero(y_tr == c).flatten() for c in range(10)]

class EmbeddingNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.convnet = nn.Sequential(nn.Conv2d(1, 32, 5), nn.PReLU(), nn.MaxPool2d(2, 2),
                                     nn.Conv2d(32, 64, 5), nn.PReLU(), nn.MaxPool2d(2, 2))
        self.fc = nn.Sequential(nn.Linear(64 * 4 * 4, 256), nn.PReLU(), nn.Linear(256, 256), nn.PReLU(), nn.Linear(256, 2))
    def forward(self, x):
        return self.fc(self.convnet(x).view(x.size(0), -1))

class ContrastiveLoss(nn.Module):
    def __init__(self, margin):
        super().__init__()
        self.margin = margin
    def forward(self, o1, o2, target):
        d = (o2 - o1).pow(2).sum(1).sqrt()
        losses = 0.5 * (target * d.pow(2) + (1 - target) * F.relu(self.margin - d).pow(2))
        return losses.mean()

def make_pairs(anchor_idx):
    labels = y_tr[anchor_idx]
    target = (torch.rand(len(anchor_idx)) < 0.5).float()
    other = torch.empty_like(anchor_idx)
    for k, (c, t) in enumerate(zip(labels.tolist(), target.tolist())):
        if t == 1:
            pool = idx_by_class[c]
        else:
            c2 = (c + torch.randint(1, 10, (1,)).item()) % 10
            pool = idx_by_class[c2]
        other[k] = pool[torch.randint(0, len(pool), (1,))]
    return other, target

model = EmbeddingNet()
crit = ContrastiveLoss(margin=1.0)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
step = 0
with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["step", "epoch", "loss", "val_loss"])
    for epoch in range(1, 4):
        perm = torch.randperm(len(y_tr))
        for i in range(0, len(perm), 128):
            a = perm[i:i + 128]
            b, t = make_pairs(a)
            step += 1
            loss = crit(model(x_tr[a]), model(x_tr[b]), t)
            opt.zero_grad(); loss.backward(); opt.step()
            vl = ""
            if step % 10 == 0:
                with torch.no_grad():
                    e = model(x_va)
                    j = torch.randperm(len(y_va))
                    vl = f"{crit(e, e[j], (y_va == y_va[j]).float()).item():.4f}"
                print(f"Train: [{i}/{len(perm)} ({100 * i / len(perm):.0f}%)]\tepoch {epoch} step {step}\tLoss: {loss.item():.6f}\tval_loss {vl}")
            wr.writerow([step, epoch, f"{loss.item():.6f}", vl])
        fh.flush()
