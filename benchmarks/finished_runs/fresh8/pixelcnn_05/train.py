"""PixelCNN (van den Oord et al. 2016) on binarised 8x8 synthetic images (bars, boxes and crosses):
a stack of masked convolutions (mask 'A' on the first layer, 'B' after) predicts each pixel from the pixels
above and to the left; trained with per-pixel binary cross-entropy. Reported in nats/dim and bits/dim."""
import math
import time
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
torch.set_num_threads(1)
CFG = dict(epochs=4, batch_size=32, lr=0.001, fm=32, n_layers=4, dropout=0.0, n_train=3000, warmup_epochs=0, cosine=False)
import time
_T0 = time.time()
_st = {"nb": 1, "upd": 0}


def _ts():
    return time.strftime("%Y-%m-%d %H:%M:%S")


def log_info(msg):
    print(f"{_ts()} | INFO | train | {msg}")


def progress(it, epoch, n_epochs, n_batches):
    _st["nb"] = n_batches
    return it


def on_batch(bar, loss):
    pass


def log_epoch(epoch, n_epochs, m, lr):
    _st["upd"] += _st["nb"]
    tr = " | ".join(f"{k} {v:.3f}" for k, v in m.items() if not k.startswith("val_"))
    va = " | ".join(f"{k[4:]} {v:.3f}" for k, v in m.items() if k.startswith("val_"))
    print(f"{_ts()} | INFO | train | epoch {epoch:03d} | {tr} | lr {lr:.4g} | num_updates {_st['upd']} | wall {time.time() - _T0:.0f}")
    if va:
        print(f"{_ts()} | INFO | valid | epoch {epoch:03d} | valid on 'valid' subset | {va} | num_updates {_st['upd']}")


def log_end(summary):
    print(f"{_ts()} | INFO | train | done training in {time.time() - _T0:.1f} seconds")



def draw(g):
    img = torch.zeros(8, 8)
    for _ in range(int(torch.randint(1, 4, (1,), generator=g))):
        kind = int(torch.randint(0, 3, (1,), generator=g))
        r, c = [int(v) for v in torch.randint(0, 6, (2,), generator=g)]
        if kind == 0:
            img[r, :] = 1
        elif kind == 1:
            img[:, c] = 1
        else:
            img[r:r + 3, c:c + 3] = 1
            img[r + 1, c + 1] = 0
    return img


class ShapesDataset(Dataset):
    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        self.images = torch.stack([draw(g) for _ in range(n)]).unsqueeze(1)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        # each sample is fetched from the shard store on access (no caching, no workers)
        time.sleep(0.004)
        return self.images[i].clone()


class MaskedConv2d(nn.Conv2d):
    def __init__(self, mask_type, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.register_buffer("mask", self.weight.data.clone())
        _, _, kh, kw = self.weight.size()
        self.mask.fill_(1)
        self.mask[:, :, kh // 2, kw // 2 + (mask_type == "B"):] = 0
        self.mask[:, :, kh // 2 + 1:] = 0

    def forward(self, x):
        self.weight.data *= self.mask
        return super().forward(x)


class PixelCNN(nn.Module):
    def __init__(self, fm, n_layers, dropout):
        super().__init__()
        layers = [MaskedConv2d("A", 1, fm, 7, 1, 3, bias=False), nn.BatchNorm2d(fm), nn.ReLU(True)]
        for _ in range(n_layers):
            layers += [MaskedConv2d("B", fm, fm, 3, 1, 1, bias=False), nn.BatchNorm2d(fm), nn.ReLU(True),
                       nn.Dropout2d(dropout)]
        layers += [nn.Conv2d(fm, 1, 1)]
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


train_set, val_set = ShapesDataset(CFG["n_train"], 1), ShapesDataset(600, 2)
train_loader = DataLoader(train_set, batch_size=CFG["batch_size"], shuffle=True)
val_loader = DataLoader(val_set, batch_size=200)
model = PixelCNN(CFG["fm"], CFG["n_layers"], CFG["dropout"])
opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
steps_per_epoch = len(train_loader)
total_steps = CFG["epochs"] * steps_per_epoch
warm = CFG["warmup_epochs"] * steps_per_epoch


def lr_lambda(step):
    if step < warm:
        return (step + 1) / warm
    return 0.5 * (1 + math.cos(math.pi * (step - warm) / max(1, total_steps - warm))) if CFG["cosine"] else 1.0


sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda)
log_info(f"PixelCNN fm={CFG['fm']} layers={CFG['n_layers']} params={sum(p.numel() for p in model.parameters())} "
         f"| train {len(train_set)} val {len(val_set)} | Adam lr={CFG['lr']}")


def evaluate():
    model.eval()
    tot, n = 0.0, 0
    with torch.no_grad():
        for x in val_loader:
            tot += F.binary_cross_entropy_with_logits(model(x), x, reduction="sum").item()
            n += x.numel()
    return tot / n


for epoch in range(1, CFG["epochs"] + 1):
    model.train()
    tot, n, data_s, comp_s = 0.0, 0, 0.0, 0.0
    bar = progress(train_loader, epoch, CFG["epochs"], steps_per_epoch)
    t = time.perf_counter()
    for x in bar:
        t1 = time.perf_counter()
        data_s += t1 - t
        target = x
        logits = model(x)
        loss = F.binary_cross_entropy_with_logits(logits, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        tot += loss.item() * x.numel()
        n += x.numel()
        on_batch(bar, loss.item())
        t = time.perf_counter()
        comp_s += t - t1
    val_nats = evaluate()
    log_epoch(epoch, CFG["epochs"], {"loss": tot / n, "val_loss": val_nats, "val_bpd": val_nats / math.log(2),
                                     "data_s": data_s, "compute_s": comp_s}, sched.get_last_lr()[0])

log_end({"epochs": CFG["epochs"], "val_bpd": round(val_nats / math.log(2), 4)})
