"""Masked autoencoder on tiny patches (MAE-style, He et al. 2021, scaled down): 12x12 single-channel synthetic
sensor frames (two Gaussian blobs over an oriented stripe texture, with additive read noise) are cut into
non-overlapping 3x3 patches; half of the patches are masked at random, a small Transformer encoder sees only
the visible patches, a light decoder with mask tokens reconstructs the clean pixels of the masked patches.
MSE on the masked patches; validation reports the masked-patch MSE and PSNR."""
import math
import time
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
torch.set_num_threads(1)
CFG = dict(epochs=12, batch_size=64, lr=0.002, dim=48, depth=2, dec_depth=1, heads=4, mask_ratio=0.5,
           img_size=12, patch_size=3, n_train=2000, n_val=400)
_st = {"t0": time.time(), "losses": []}


def log_info(msg):
    print(msg)


def progress(it, epoch, n_epochs, n_batches):
    return it


def on_batch(bar, loss):
    _st["losses"].append(loss)


def log_epoch(epoch, n_epochs, m, lr):
    train = {k: v for k, v in m.items() if not k.startswith("val")}
    ev = {k.replace("val_", "eval_"): v for k, v in m.items() if k.startswith("val")}
    d = {k: round(v, 4) for k, v in train.items()}
    d.update({"learning_rate": lr, "epoch": float(epoch)})
    print(d)
    e = {k: round(v, 4) for k, v in ev.items()}
    e.update({"eval_runtime": round(time.time() - _st["t0"], 2), "epoch": float(epoch)})
    print(e)


def log_end(summary):
    d = {"train_runtime": round(time.time() - _st["t0"], 2),
         "train_loss": round(sum(_st["losses"]) / max(1, len(_st["losses"])), 4)}
    d.update(summary)
    print(d)

IMG = CFG["img_size"]
P = CFG["patch_size"]
N_PATCH = (IMG // P) ** 2
PATCH_DIM = P * P


def make_frames(n, g):
    yy, xx = torch.meshgrid(torch.arange(IMG).float(), torch.arange(IMG).float(), indexing="ij")
    img = torch.zeros(n, IMG, IMG)
    for _ in range(2):
        c = torch.rand(n, 2, generator=g) * (IMG - 1)
        s = 1.2 + 2.0 * torch.rand(n, generator=g)
        a = 0.4 + 0.6 * torch.rand(n, generator=g)
        d2 = (yy[None] - c[:, 0, None, None]) ** 2 + (xx[None] - c[:, 1, None, None]) ** 2
        img += a[:, None, None] * torch.exp(-d2 / (2 * s[:, None, None] ** 2))
    th = math.pi * torch.rand(n, generator=g)
    fr = 0.4 + 0.5 * torch.rand(n, generator=g)
    proj = xx[None] * torch.cos(th)[:, None, None] + yy[None] * torch.sin(th)[:, None, None]
    img += 0.15 * torch.sin(fr[:, None, None] * proj)
    clean = img.clamp(0, 1.2) / 1.2
    noisy = clean + 0.05 * torch.randn(n, IMG, IMG, generator=g)
    return noisy, clean


class Frames(Dataset):
    def __init__(self, noisy, clean, augment):
        self.noisy, self.clean, self.augment = noisy, clean, augment

    def __len__(self):
        return len(self.noisy)

    def __getitem__(self, i):
        x, t = self.noisy[i], self.clean[i]
        if self.augment and torch.rand(1).item() < 0.5:
            x, t = x.flip(-1), t.flip(-1)
        return x, t


def patchify(img):
    b = img.shape[0]
    return img.reshape(b, IMG // P, P, IMG // P, P).permute(0, 1, 3, 2, 4).reshape(b, -1, P * P)


class TinyMAE(nn.Module):
    def __init__(self, dim, depth, dec_depth, heads):
        super().__init__()
        self.patch_embed = nn.Linear(PATCH_DIM, dim)
        self.pos = nn.Parameter(torch.randn(1, N_PATCH, dim) * 0.02)
        self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(dim, heads, 2 * dim, 0.0, batch_first=True, norm_first=True), depth)
        self.enc_norm = nn.LayerNorm(dim)
        self.mask_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.dec_pos = nn.Parameter(torch.randn(1, N_PATCH, dim) * 0.02)
        self.dec = nn.TransformerEncoder(nn.TransformerEncoderLayer(dim, heads, 2 * dim, 0.0, batch_first=True, norm_first=True), dec_depth)
        self.head = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, PATCH_DIM))

    def forward(self, patches, mask_ratio):
        b, n, _ = patches.shape
        n_keep = int(n * (1 - mask_ratio))
        order = torch.rand(b, n).argsort(1)
        keep = order[:, :n_keep]
        h = self.patch_embed(patches) + self.pos
        h = torch.gather(h, 1, keep[..., None].expand(-1, -1, h.shape[-1]))
        h = self.enc_norm(self.enc(h))
        full = self.mask_token.expand(b, n, -1).clone()
        full.scatter_(1, keep[..., None].expand(-1, -1, h.shape[-1]), h)
        out = self.head(self.dec(full + self.dec_pos))
        mask = torch.ones(b, n, dtype=torch.bool)
        mask.scatter_(1, keep, False)
        return out, mask


g = torch.Generator().manual_seed(11)
n_train, c_train = make_frames(CFG["n_train"], g)
n_val, c_val = make_frames(CFG["n_val"], g)
# shuffle the training frames once on disk order
n_train = n_train[torch.randperm(len(n_train), generator=g)]
c_train = c_train[torch.randperm(len(c_train), generator=g)]
train_loader = DataLoader(Frames(n_train, c_train, True), batch_size=CFG["batch_size"], shuffle=True)
val_loader = DataLoader(Frames(n_val, c_val, False), batch_size=256)

model = TinyMAE(CFG["dim"], CFG["depth"], CFG["dec_depth"], CFG["heads"])
optimizer = torch.optim.AdamW(model.parameters(), lr=CFG["lr"], weight_decay=0.05)
log_info(f"TinyMAE: {IMG}x{IMG} frames, {N_PATCH} patches of {P}x{P}, mask ratio {CFG['mask_ratio']} | "
         f"params {sum(p.numel() for p in model.parameters())} | train {len(n_train)} val {len(n_val)}")


def evaluate():
    model.eval()
    tot, n = 0.0, 0
    with torch.no_grad():
        torch.manual_seed(123)
        for xb, tb in val_loader:
            pred, mask = model(patchify(xb), CFG["mask_ratio"])
            tot += F.mse_loss(pred[mask], patchify(tb)[mask], reduction="sum").item()
            n += mask.sum().item() * PATCH_DIM
    mse = tot / n
    return mse, 10 * math.log10(1.0 / mse)


t_start = time.time()
for epoch in range(1, CFG["epochs"] + 1):
    model.train()
    tot, n, data_s = 0.0, 0, 0.0
    t_ep = time.time()
    bar = progress(train_loader, epoch, CFG["epochs"], len(train_loader))
    t_fetch = time.time()
    for xb, tb in bar:
        data_s += time.time() - t_fetch
        optimizer.zero_grad()
        pred, mask = model(patchify(xb), CFG["mask_ratio"])
        loss = F.mse_loss(pred[mask], patchify(tb)[mask])
        loss.backward()
        optimizer.step()
        tot += loss.item() * len(xb)
        n += len(xb)
        on_batch(bar, loss.item())
        t_fetch = time.time()
    val_mse, val_psnr = evaluate()
    log_epoch(epoch, CFG["epochs"], {"loss": tot / n, "val_loss": val_mse, "val_psnr": val_psnr,
                                     "data_time": data_s, "epoch_time": time.time() - t_ep},
              optimizer.param_groups[0]["lr"])

log_end({"final_val_psnr": round(val_psnr, 2), "final_val_loss": round(val_mse, 5), "time_s": round(time.time() - t_start, 1)})
