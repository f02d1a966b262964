# villa (Vesuvius ink detection) style 3D segmentation training in miniature: a small 3D conv encoder-decoder
# predicts an ink mask for synthetic 8x16x16 CT sub-volumes (faint sheet-shaped ink signal in noisy papyrus
# texture), BCE + soft Dice, AdamW lr 3e-3. The scheduler is the diffusers cosine-with-warmup lambda, stepped
# once per optimizer step, but built with max_steps = max_epoch (30) instead of the total number of steps
# (30 epochs x 20 steps), so the cosine runs past its end and keeps cycling. Prints a line per epoch and writes
# one row per step to metrics.csv.
import csv
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(312)


def volumes(n):
    z = torch.arange(8).view(1, 8, 1, 1).float()
    depth = torch.randint(2, 6, (n, 1, 1, 1), generator=g).float()
    blob = torch.zeros(n, 1, 1, 16, 16)
    c = torch.randint(3, 13, (n, 2), generator=g)
    yy, xx = torch.meshgrid(torch.arange(16), torch.arange(16), indexing='ij')
    r = torch.randint(2, 6, (n,), generator=g)
    for i in range(n):
        blob[i, 0, 0] = (((yy - c[i, 0]) ** 2 + (xx - c[i, 1]) ** 2) < r[i] ** 2).float()
    sheet = torch.exp(-(z - depth) ** 2)
    x = 0.5 * sheet.unsqueeze(1) + 0.6 * blob * sheet.unsqueeze(1) + 0.35 * torch.randn(n, 1, 8, 16, 16, generator=g)
    return x, blob[:, :, 0]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.e1 = nn.Conv3d(1, 8, 3, padding=1)
        self.e2 = nn.Conv3d(8, 16, 3, padding=1, stride=(1, 2, 2))
        self.d1 = nn.ConvTranspose3d(16, 8, (1, 2, 2), stride=(1, 2, 2))
        self.out = nn.Conv2d(16, 1, 1)

    def forward(self, x):
        a = F.gelu(self.e1(x))
        b = F.gelu(self.e2(a))
        u = F.gelu(self.d1(b))
        h = torch.cat([a, u], 1).amax(2)        # max over depth -> 2D ink map
        return self.out(h)


def loss_fn(logit, y):
    p = torch.sigmoid(logit)
    dice = 1 - (2 * (p * y).sum() + 1) / (p.sum() + y.sum() + 1)
    return F.binary_cross_entropy_with_logits(logit, y) + dice, dice


max_epoch, steps_per_epoch, warmup = 30, 20, 2
model = Net()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-2)


def diffusers_cosine(step, max_steps=max_epoch, num_cycles=0.5):   # horizon given in epochs, stepped per iter
    if step < warmup:
        return step / max(1, warmup)
    progress = (step - warmup) / max(1, max_steps - warmup)
    return max(0.0, 0.5 * (1.0 + math.cos(math.pi * float(num_cycles) * 2.0 * progress)))


sched = torch.optim.lr_scheduler.LambdaLR(opt, diffusers_cosine)
xva, yva = volumes(64)
rows, step = [], 0
for epoch in range(1, max_epoch + 1):
    model.train(); el = []
    for it in range(steps_per_epoch):
        x, y = volumes(16)
        loss, _ = loss_fn(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step(); sched.step(); step += 1
        el.append(loss.item())
        rows.append(dict(step=step, epoch=epoch, lr=opt.param_groups[0]['lr'], train_loss=loss.item(),
                         val_loss='', val_dice=''))
    model.eval()
    with torch.no_grad():
        vl, vd = loss_fn(model(xva), yva)
    rows[-1]['val_loss'] = vl.item(); rows[-1]['val_dice'] = 1 - vd.item()
    lrs = [r['lr'] for r in rows[-steps_per_epoch:]]
    print(f'epoch {epoch:3d} (iter {step:4d}): lr min {min(lrs):.2e} max {max(lrs):.2e} | train loss '
          f'{sum(el) / len(el):.4f} | val loss {vl.item():.4f} | val dice {1 - vd.item():.4f}')
with open('metrics.csv', 'w', newline='') as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader(); w.writerows(rows)
