# Image classifier in miniature after a "why does training get slow after adding transforms.Resize()?" report:
# 1920 samples drawn from 960 synthetic 3x256x256 uint8 "photos" of 10 classes (class = position and colour of a blob on a textured
# background) kept as stored full-size images; the Dataset's __getitem__ applies the transform pipeline
# Resize((32, 32)) (antialiased bilinear, PIL-like) -> ToTensor -> Normalize on every access, DataLoader with
# batch 64 and num_workers=0, a small CNN (two conv layers + linear) trained with SGD lr 0.01 momentum 0.9 for 4
# epochs. Prints the loss every 5 steps with ImageNet-example-style batch time / data time meters, then the epoch
# time and accuracy on 320 held-out images.
import time
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(361)
N, S = 1920, 256
NSTORE = 960  # distinct stored photos; the dataset indexes them modulo NSTORE
labels = torch.randint(0, 10, (N,), generator=g)
imgs = torch.empty(NSTORE, 3, S, S, dtype=torch.uint8)
yy, xx = torch.meshgrid(torch.arange(S).float(), torch.arange(S).float(), indexing='ij')
labels[NSTORE:] = labels[:N - NSTORE]
for i in range(NSTORE):
    c = int(labels[i])
    base = 90 + 40 * torch.rand(3, 1, 1, generator=g)
    tex = 25 * torch.rand(3, S // 8, S // 8, generator=g).repeat_interleave(8, 1).repeat_interleave(8, 2)
    cy, cx = 60 + 130 * (c // 5) + 10 * torch.rand(1, generator=g), 30 + 45 * (c % 5) + 10 * torch.rand(1, generator=g)
    m = ((yy - cy) ** 2 + (xx - cx) ** 2) < 24 ** 2
    im = base + tex
    col = torch.tensor([[220., 40, 40], [40, 200, 60], [40, 60, 220], [220, 200, 40], [200, 40, 200]])[c % 5]
    im[:, m] = col.view(3, 1)
    imgs[i] = im.clamp(0, 255).to(torch.uint8)
MEAN = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)


class LeafDataset(Dataset):
    def __init__(self, idx):
        self.idx = idx

    def __len__(self):
        return len(self.idx)

    def __getitem__(self, k):
        i = self.idx[k]
        x = imgs[i % NSTORE].float().unsqueeze(0)
        x = F.interpolate(x, size=(32, 32), mode='bilinear', antialias=True, align_corners=False)[0]  # transforms.Resize
        x = x / 255.0  # ToTensor
        x = (x - MEAN) / STD  # Normalize
        return x, labels[i]


train_loader = DataLoader(LeafDataset(torch.arange(0, 1600)), batch_size=64, shuffle=True, num_workers=0)
test_loader = DataLoader(LeafDataset(torch.arange(1600, N)), batch_size=64, shuffle=False, num_workers=0)
model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Flatten(), nn.Linear(16 * 8 * 8, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
for epoch in range(4):
    model.train()
    t_ep = end = time.time()
    bt_sum = dt_sum = 0.0
    for step, (x, y) in enumerate(train_loader):
        dt = time.time() - end
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        bt = time.time() - end
        bt_sum += bt
        dt_sum += dt
        end = time.time()
        if step % 5 == 0:
            n = step + 1
            print(f"Epoch: [{epoch}][{step:3d}/{len(train_loader)}]\tTime {bt:.3f} ({bt_sum / n:.3f})\t"
                  f"Data {dt:.3f} ({dt_sum / n:.3f})\tLoss {loss.item():.4f}")
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in test_loader:
            correct += (model(x).argmax(1) == y).sum().item()
    print(f"Epoch {epoch} finished in {time.time() - t_ep:.1f}s, test accuracy {correct / (N - 1600):.3f}")
