# ImageNet-style classification (toy: 20 classes of 16x16 images), folder-ordered dataset
import csv
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
torch.set_num_threads(1)
NUM_CLASSES = 20


class ImageFolderLike(Dataset):
    """samples are stored class by class, like torchvision ImageFolder (sorted by directory)."""
    def __init__(self, per_class, seed):
        g = torch.Generator().manual_seed(seed)
        protos = torch.randn(NUM_CLASSES, 3, 16, 16, generator=torch.Generator().manual_seed(99))
        self.samples = []
        for c in range(NUM_CLASSES):
            for _ in range(per_class):
                self.samples.append((protos[c] * 0.6 + torch.randn(3, 16, 16, generator=g), c))

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        return self.samples[i]


train_ds = ImageFolderLike(150, 1)
val_ds = ImageFolderLike(30, 2)
dataloader_params = {"batch_size": 50}
train_loader = DataLoader(train_ds, **dataloader_params)
val_loader = DataLoader(val_ds, batch_size=200)

model = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                      nn.Flatten(), nn.Linear(64, NUM_CLASSES))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-4)
criterion = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "train_loss", "train_acc", "val_loss", "val_acc"])
    step = 0
    for epoch in range(6):
        model.train()
        for x, y in train_loader:
            out = model(x)
            loss = criterion(out, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            if step % 6 == 0:
                model.eval()
                vl, va, n = 0.0, 0.0, 0
                with torch.no_grad():
                    for vx, vy in val_loader:
                        vo = model(vx)
                        vl += criterion(vo, vy).item() * len(vy)
                        va += (vo.argmax(1) == vy).sum().item()
                        n += len(vy)
                model.train()
                w.writerow([step, epoch, f"{loss.item():.5f}", f"{(out.argmax(1) == y).float().mean().item():.4f}",
                            f"{vl / n:.5f}", f"{va / n:.4f}"])
        print(f"Epoch {epoch}: Train Loss={loss.item():.4f} | Valid Loss={vl / n:.4f} | Valid Accuracy={100 * va / n:.2f}%")
