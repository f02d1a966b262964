# Mini U-Net for binary segmentation (n_classes=2, CrossEntropyLoss)
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(291)
torch.set_num_threads(1)

g = torch.Generator().manual_seed(291)
H = 64


def blob_image():
    cy, cx, r = torch.randint(16, 48, (2,), generator=g).tolist() + [int(torch.randint(6, 14, (1,), generator=g))]
    yy, xx = torch.meshgrid(torch.arange(H), torch.arange(H), indexing="ij")
    d = ((yy - cy) ** 2 + (xx - cx) ** 2).float().sqrt()
    soft = (r + 0.5 - d).clamp(0, 1)                         # anti-aliased edge
    img = soft.unsqueeze(0).repeat(3, 1, 1) * 0.6 + 0.4 * torch.rand(3, H, H, generator=g)
    return img, soft


class CarvanaLike(Dataset):
    def __init__(self, n=96):
        self.items = []
        for i in range(n):
            img, soft = blob_image()
            if i < 60:
                mask = (soft > 0.5).long()                     # converted masks: class indices 0/1
            else:
                mask = (soft * 255).round().long()             # raw greyscale masks: 0..255 incl. edge values
            self.items.append((img, mask))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


class UNet(nn.Module):
    def __init__(self, n_classes=2):
        super().__init__()
        self.d1 = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 16, 3, padding=1), nn.ReLU())
        self.d2 = nn.Sequential(nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 32, 3, padding=1), nn.ReLU())
        self.up = nn.ConvTranspose2d(32, 16, 2, stride=2)
        self.u1 = nn.Sequential(nn.Conv2d(32, 16, 3, padding=1), nn.ReLU())
        self.outc = nn.Conv2d(16, n_classes, 1)

    def forward(self, x):
        a = self.d1(x)
        b = self.d2(F.max_pool2d(a, 2))
        return self.outc(self.u1(torch.cat([a, self.up(b)], 1)))


loader = DataLoader(CarvanaLike(), batch_size=4, shuffle=False)
net = UNet()
opt = torch.optim.RMSprop(net.parameters(), lr=1e-4, weight_decay=1e-8, momentum=0.9)
criterion = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "train_loss"])
    step = 0
    for epoch in range(3):
        for imgs, masks in loader:
            loss = criterion(net(imgs), masks)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            w.writerow([step, epoch, f"{loss.item():.4f}"])
            fh.flush()
            print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
