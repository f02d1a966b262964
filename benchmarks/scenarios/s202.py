# pytorch-fcn-style Trainer: small FCN (conv-BN-ReLU + dropout "fc" layers) on synthetic 2-class segmentation, validate every interval_validate iterations
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(57)
torch.set_num_threads(1)

S, N = 24, 1200
g = torch.Generator().manual_seed(5)
yy, xx = torch.meshgrid(torch.arange(S), torch.arange(S), indexing="ij")
cx, cy, r = torch.randint(6, 18, (N,), generator=g), torch.randint(6, 18, (N,), generator=g), torch.randint(3, 7, (N,), generator=g)
lbl = (((xx[None] - cx[:, None, None]) ** 2 + (yy[None] - cy[:, None, None]) ** 2) < r[:, None, None] ** 2).long()
img = lbl.float().unsqueeze(1) * 0.8 + 0.6 * torch.randn(N, 1, S, S, generator=g)
train_imgs, train_lbls, val_imgs, val_lbls = img[:1000], lbl[:1000], img[1000:], lbl[1000:]


class FCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
                                      nn.Conv2d(32, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2))
        self.fc6 = nn.Conv2d(32, 64, 3, padding=1)
        self.drop6 = nn.Dropout2d(0.5)
        self.fc7 = nn.Conv2d(64, 64, 1)
        self.drop7 = nn.Dropout2d(0.5)
        self.score = nn.Conv2d(64, 2, 1)

    def forward(self, x):
        h = self.features(x)
        h = self.drop6(F.relu(self.fc6(h)))
        h = self.drop7(F.relu(self.fc7(h)))
        return F.interpolate(self.score(h), size=x.shape[2:], mode="bilinear", align_corners=False)


class Trainer:
    def __init__(self, model, optim, interval_validate, w):
        self.model, self.optim, self.interval_validate, self.w = model, optim, interval_validate, w
        self.iteration, self.epoch = 0, 0

    def validate(self):
        self.model.eval()
        with torch.no_grad():
            out = self.model(val_imgs)
            vl = F.cross_entropy(out, val_lbls).item()
            pred = out.argmax(1)
            inter = ((pred == 1) & (val_lbls == 1)).sum().item()
            union = ((pred == 1) | (val_lbls == 1)).sum().item()
        self.w.writerow([self.iteration, self.epoch, "", f"{vl:.4f}", f"{inter / union:.4f}"])
        print(f"  [validate] epoch {self.epoch} iteration {self.iteration}: val loss {vl:.4f} mean IU {inter / union:.4f}")

    def train_epoch(self):
        self.model.train()
        perm = torch.randperm(1000)
        losses = []
        for batch_idx in range(0, 1000, 20):
            if self.iteration % self.interval_validate == 0 and self.iteration > 0:
                self.validate()
            b = perm[batch_idx:batch_idx + 20]
            score = self.model(train_imgs[b])
            loss = F.cross_entropy(score, train_lbls[b])
            self.optim.zero_grad()
            loss.backward()
            self.optim.step()
            self.w.writerow([self.iteration, self.epoch, f"{loss.item():.4f}", "", ""])
            losses.append(loss.item())
            if batch_idx // 20 % 10 == 0:
                print(f"epoch {self.epoch} iter {self.iteration} train loss {loss.item():.4f}")
            self.iteration += 1
        return sum(losses) / len(losses)

    def train(self, max_epoch):
        for self.epoch in range(max_epoch):
            self.train_epoch()


model = FCN()
optim = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["iteration", "epoch", "loss", "val_loss", "val_mean_iu"])
    Trainer(model, optim, interval_validate=20, w=w).train(8)
