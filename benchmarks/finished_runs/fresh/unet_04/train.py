"""Tiny U-Net-style segmentation of synthetic 16x16 images (noisy discs and boxes on a gradient)."""
import math
import time
from tqdm import tqdm
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, TensorDataset

SEED = 0
LR = 0.001
BATCH_SIZE = 32
EPOCHS = 10
WEIGHT_DECAY = 0.0
LOG_EVERY = 10
N_TRAIN = 800
N_VAL = 200
IMG = 16
WIDTH = 8
NOISE = 0.5

torch.set_num_threads(1)
torch.manual_seed(SEED)

def make_split(n):
    yy, xx = torch.meshgrid(torch.arange(IMG), torch.arange(IMG), indexing="ij")
    cy = torch.randint(3, IMG - 3, (n, 1, 1))
    cx = torch.randint(3, IMG - 3, (n, 1, 1))
    r = torch.randint(2, 5, (n, 1, 1))
    disc = ((yy - cy) ** 2 + (xx - cx) ** 2) <= r ** 2
    by = torch.randint(0, IMG - 4, (n, 1, 1))
    bx = torch.randint(0, IMG - 4, (n, 1, 1))
    box = (yy >= by) & (yy < by + 4) & (xx >= bx) & (xx < bx + 4) & (torch.rand(n, 1, 1) < 0.5)
    mask = (disc | box).float()
    ramp = torch.rand(n, 1, 1) * xx.float() / IMG
    img = mask * (0.6 + 0.6 * torch.rand(n, 1, 1)) + ramp + NOISE * torch.randn(n, IMG, IMG)
    return img.unsqueeze(1), mask.unsqueeze(1)


class CropDataset(Dataset):
    def __init__(self, x, m):
        self.x, self.m = x, m

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        s = int(torch.randint(12, IMG + 1, (1,)))  # random-size crop augmentation
        return self.x[i, :, :s, :s], self.m[i, :, :s, :s]


X_train, M_train = make_split(N_TRAIN)
X_val, M_val = make_split(N_VAL)
train_loader = DataLoader(CropDataset(X_train, M_train), batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(TensorDataset(X_val, M_val), batch_size=100)
steps_per_epoch = len(train_loader)


class TinyUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc1 = nn.Sequential(nn.Conv2d(1, WIDTH, 3, padding=1), nn.ReLU(), nn.Conv2d(WIDTH, WIDTH, 3, padding=1), nn.ReLU())
        self.enc2 = nn.Sequential(nn.Conv2d(WIDTH, 2 * WIDTH, 3, padding=1), nn.ReLU())
        self.up = nn.ConvTranspose2d(2 * WIDTH, WIDTH, 2, stride=2)
        self.dec = nn.Sequential(nn.Conv2d(2 * WIDTH, WIDTH, 3, padding=1), nn.ReLU())
        self.out = nn.Conv2d(WIDTH, 1, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        d = self.dec(torch.cat([self.up(e2), e1], dim=1))
        return self.out(d)


model = TinyUNet()
criterion = nn.BCEWithLogitsLoss()


def iou(logits, mask):
    pred = (logits > 0).float()
    inter = (pred * mask).sum()
    union = ((pred + mask) > 0).float().sum()
    return (inter / union.clamp(min=1.0)).item()


def forward_loss(batch):
    xb, mb = batch
    logits = model(xb)
    loss = criterion(logits, mb)
    return loss, iou(logits, mb), len(xb)


optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)


@torch.no_grad()
def evaluate():
    model.eval()
    tot_loss, tot_metric, tot_n = 0.0, 0.0, 0
    for batch in val_loader:
        loss, metric, n = forward_loss(batch)
        tot_loss += loss.item() * n
        tot_metric += metric * n
        tot_n += n
    return tot_loss / tot_n, tot_metric / tot_n


global_step = 0
total_steps = EPOCHS * steps_per_epoch
for epoch in range(1, EPOCHS + 1):
    model.train()
    t0 = time.time()
    run_loss, run_metric, run_n = 0.0, 0.0, 0
    batches = tqdm(train_loader, desc=f"Epoch {epoch}/{EPOCHS}")
    t_step = time.time()
    for step, batch in enumerate(batches, 1):
        optimizer.zero_grad()
        loss, metric, n = forward_loss(batch)
        loss.backward()
        optimizer.step()
        global_step += 1
        loss_val = loss.item()
        lr_now = optimizer.param_groups[0]["lr"]
        run_loss += loss_val * n
        run_metric += metric * n
        run_n += n
        step_ms = (time.time() - t_step) * 1000
        t_step = time.time()
        batches.set_postfix(loss=f"{loss_val:.4f}", iou=f"{metric:.3f}")
    train_loss, train_metric = run_loss / run_n, run_metric / run_n
    val_loss, val_metric = evaluate()
    t_epoch = time.time() - t0
    tqdm.write(f"Epoch {epoch}/{EPOCHS}: train_loss={train_loss:.4f} train_iou={train_metric:.4f} val_loss={val_loss:.4f} val_iou={val_metric:.4f}")
