# AlexNet-style classifier adapted from torchvision.models.alexnet (features / avgpool / classifier with dropout)
# trained as in the common AlexNet-on-CIFAR ports (Adam, small weight decay, step decay), shrunk to 32x32 inputs. Synthetic data: five texture classes (horizontal / vertical / diagonal stripes, checkerboard, dots)
# with random frequency, phase, colours and pixel noise.
import math, time
import torch
import torch.nn as nn
import torch.nn.functional as F
from tqdm import tqdm

torch.set_num_threads(1)
SEED = 42
torch.manual_seed(SEED)

NUM_CLASSES = 5
N_TRAIN, N_VAL = 1500, 500
BATCH_SIZE = 50
EPOCHS = 10
LR = 0.05
WEIGHT_DECAY = 1e-4
DROPOUT = 0.5
CLASSES = ["hstripes", "vstripes", "diagonal", "checker", "dots"]


def make_data(n, g):
    yy, xx = torch.meshgrid(torch.arange(32.0), torch.arange(32.0), indexing="ij")
    X = torch.empty(n, 3, 32, 32)
    Y = torch.randint(0, NUM_CLASSES, (n,), generator=g)
    for i in range(n):
        f = 0.25 + 0.35 * torch.rand(1, generator=g).item()
        ph = 6.28 * torch.rand(1, generator=g).item()
        c = Y[i].item()
        if c == 0:
            p = torch.sin(f * yy + ph)
        elif c == 1:
            p = torch.sin(f * xx + ph)
        elif c == 2:
            p = torch.sin(f * 0.7 * (xx + yy) + ph)
        elif c == 3:
            p = torch.sin(f * xx + ph) * torch.sin(f * yy + ph)
        else:
            p = (torch.sin(f * xx + ph) * torch.sin(f * yy + ph)).clamp(min=0.5) * 2 - 1
        fg = torch.rand(3, generator=g)
        bg = (fg + 0.35 + 0.3 * torch.rand(3, generator=g)) % 1.0
        img = bg[:, None, None] + (fg - bg)[:, None, None] * (p[None] > 0).float()
        X[i] = (img + 0.15 * torch.randn(3, 32, 32, generator=g)).clamp(0, 1)
    return (X * 255).round(), Y


g = torch.Generator().manual_seed(2024)
X_train, y_train = make_data(N_TRAIN, g)
X_val, y_val = make_data(N_VAL, g)
mean = (X_train / 255).mean(dim=(0, 2, 3), keepdim=True)
std = (X_train / 255).std(dim=(0, 2, 3), keepdim=True)
X_train = (X_train / 255 - mean) / std
X_val = (X_val / 255 - mean) / std


class AlexNet(nn.Module):
    def __init__(self, num_classes: int = 1000, dropout: float = 0.5) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 24, kernel_size=5, stride=1, padding=2),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(24, 48, kernel_size=5, padding=2),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(48, 64, kernel_size=3, padding=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(64, 48, kernel_size=3, padding=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(48, 48, kernel_size=3, padding=1),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
        )
        self.avgpool = nn.AdaptiveAvgPool2d((3, 3))
        self.classifier = nn.Sequential(
            nn.Dropout(p=dropout),
            nn.Linear(48 * 3 * 3, 256),
            nn.ReLU(inplace=True),
            nn.Dropout(p=dropout),
            nn.Linear(256, 256),
            nn.ReLU(inplace=True),
            nn.Linear(256, num_classes),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.features(x)
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        x = self.classifier(x)
        return x


model = AlexNet(num_classes=NUM_CLASSES, dropout=DROPOUT)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.5)
n_params = sum(p.numel() for p in model.parameters())
print(f"=> creating model 'alexnet' ({n_params / 1e3:.1f}K params), {N_TRAIN} train / {N_VAL} val images, {NUM_CLASSES} classes", flush=True)

best_acc1 = 0.0
for epoch in range(EPOCHS):
    model.train()
    perm = torch.randperm(N_TRAIN)
    steps = math.ceil(N_TRAIN / BATCH_SIZE)
    run_loss, run_correct, seen = 0.0, 0, 0
    pbar = tqdm(range(steps), desc=f"Epoch [{epoch}]", mininterval=0.5, ncols=100)
    for step in pbar:
        idx = perm[step * BATCH_SIZE:(step + 1) * BATCH_SIZE]
        images, target = X_train[idx], y_train[idx]
        output = model(images)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        run_loss += loss.item() * len(idx)
        run_correct += (output.argmax(1) == target).sum().item()
        seen += len(idx)
        pbar.set_postfix(loss=f"{run_loss / seen:.4f}", acc1=f"{100 * run_correct / seen:.2f}", refresh=False)
    pbar.close()
    scheduler.step()
    model.eval()
    with torch.no_grad():
        out = model(X_val)
        val_loss = criterion(out, y_val).item()
        acc1 = 100.0 * (out.argmax(1) == y_val).float().mean().item()
    best_acc1 = max(acc1, best_acc1)
    tqdm.write(f"Epoch [{epoch}] train loss {run_loss / seen:.4f} Acc@1 {100 * run_correct / seen:.3f} | val loss {val_loss:.4f} Acc@1 {acc1:.3f} | lr {optimizer.param_groups[0]['lr']:.5f}")
print(f" * Acc@1 {acc1:.3f} (best {best_acc1:.3f})")
