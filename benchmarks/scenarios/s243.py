# Few-shot-detection style single-object detector in miniature: a small CNN backbone predicts
# objectness + normalised box (cx, cy, w, h) + class (3 classes) for one object per 48x48 image.
# The config was tuned for batch 64 (SGD lr 0.1, momentum 0.9, weight decay 5e-4); the batch was
# reduced to 8 to fit memory, everything else unchanged.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
torch.set_num_threads(1)

class Boxes(Dataset):
    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        self.imgs = 0.3 * torch.randn(n, 1, 48, 48, generator=g)
        self.boxes = torch.zeros(n, 4)
        self.cls = torch.randint(0, 3, (n,), generator=g)
        for k in range(n):
            w, h = torch.randint(8, 20, (2,), generator=g).tolist()
            x0 = torch.randint(0, 48 - w, (1,), generator=g).item()
            y0 = torch.randint(0, 48 - h, (1,), generator=g).item()
            c = self.cls[k].item()
            patch = torch.ones(h, w) if c == 0 else (torch.arange(w).float().remainder(4).lt(2).float().expand(h, w) if c == 1 else torch.arange(h).float().remainder(4).lt(2).float().unsqueeze(1).expand(h, w))
            self.imgs[k, 0, y0:y0 + h, x0:x0 + w] += 1.5 * patch
            self.boxes[k] = torch.tensor([(x0 + w / 2) / 48, (y0 + h / 2) / 48, w / 48, h / 48])
    def __len__(self):
        return len(self.cls)
    def __getitem__(self, i):
        return self.imgs[i], self.boxes[i], self.cls[i]

class Det(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.LeakyReLU(0.1), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.LeakyReLU(0.1), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.LeakyReLU(0.1), nn.MaxPool2d(2))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(64 * 36, 128), nn.LeakyReLU(0.1), nn.Linear(128, 1 + 4 + 3))
    def forward(self, x):
        return self.head(self.backbone(x))

train = DataLoader(Boxes(1600, 1), batch_size=8, shuffle=True, generator=torch.Generator().manual_seed(2))
model = Det()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)

def losses(out, box, cls):
    obj = F.binary_cross_entropy_with_logits(out[:, 0], torch.ones_like(out[:, 0]))
    reg = F.mse_loss(torch.sigmoid(out[:, 1:5]), box, reduction="sum") / len(box) * 5.0
    cl = F.cross_entropy(out[:, 5:], cls)
    return obj, reg, cl

step = 0
with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["step", "epoch", "loss", "obj_loss", "box_loss", "cls_loss", "lr"])
    for epoch in range(1, 3):
        for img, box, cls in train:
            step += 1
            obj, reg, cl = losses(model(img), box, cls)
            loss = obj + reg + cl
            opt.zero_grad()
            loss.backward()
            opt.step()
            wr.writerow([step, epoch, f"{loss.item():.4f}", f"{obj.item():.4f}", f"{reg.item():.4f}", f"{cl.item():.4f}", 0.1])
            if step % 10 == 0 or step < 10:
                print(f"epoch {epoch} iter {step} loss {loss.item():.4f} (obj {obj.item():.3f} box {reg.item():.3f} cls {cl.item():.3f})")
        fh.flush()
