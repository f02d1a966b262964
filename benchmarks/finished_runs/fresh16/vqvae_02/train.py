"""VQ-VAE on synthetic 8x8 sprite images: every image holds one or two random shapes (a 1x4 horizontal bar, a 4x1
vertical bar, a 2x2 block or a plus sign) at random positions plus Gaussian pixel noise (sd 0.05). The conv encoder
maps an image to a 4x4 grid of 16-d vectors, each snapped to the nearest of 32 codebook entries (straight-through
gradients); the decoder upsamples back to 8x8. Loss = reconstruction MSE + codebook loss + beta * commitment loss.
Adam; hyperparameters in config.yaml; reported: loss, reconstruction MSE and codebook perplexity."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.manual_seed(0)
torch.set_num_threads(1)
with open("config.yaml") as _f:
    CFG = yaml.safe_load(_f)
LR, BATCH, EPOCHS = CFG["lr"], CFG["batch_size"], CFG["epochs"]
N_CODES, BETA = CFG["n_codes"], CFG["beta"]

_last = [0, 0.0]


def log_start(n_params, n_tr, n_va, lr, batch, epochs):
    print(f"Step      0: Total number of trainable weights: {n_params}")
    print(f"Step      0: Ran 0 train steps in 0.00 secs")


def log_step(epoch, i, n, loss, rec, ppl, gstep, el):
    pass


def log_epoch(epoch, epochs, tl, trec, tppl, vl, vrec, vppl, gstep, el):
    print(f"Step {gstep:6d}: Ran {gstep - _last[0]} train steps in {el - _last[1]:.2f} secs")
    print(f"Step {gstep:6d}: train          VQVAELoss |  {tl:.8f}")
    print(f"Step {gstep:6d}: eval           VQVAELoss |  {vl:.8f}")
    print(f"Step {gstep:6d}: eval      ReconstructMSE |  {vrec:.8f}")
    print(f"Step {gstep:6d}: eval          Perplexity |  {vppl:.8f}")
    print()
    _last[0], _last[1] = gstep, el


def log_end(vrec, vppl, el):
    pass

gen = torch.Generator().manual_seed(5)
SHAPES = [[(0, 0), (0, 1), (0, 2), (0, 3)], [(0, 0), (1, 0), (2, 0), (3, 0)], [(0, 0), (0, 1), (1, 0), (1, 1)],
          [(0, 1), (1, 0), (1, 1), (1, 2), (2, 1)]]


def make_images(n, size=8):
    imgs = torch.zeros(n, 1, size, size)
    for k in range(n):
        for _ in range(int(torch.randint(1, 3, (1,), generator=gen))):
            cells = SHAPES[int(torch.randint(0, 4, (1,), generator=gen))]
            h = max(r for r, c in cells) + 1
            w = max(c for r, c in cells) + 1
            r0 = int(torch.randint(0, size - h + 1, (1,), generator=gen))
            c0 = int(torch.randint(0, size - w + 1, (1,), generator=gen))
            for r, c in cells:
                imgs[k, 0, r0 + r, c0 + c] = 1.0
    imgs = imgs + 0.05 * torch.randn(imgs.shape, generator=gen)
    return imgs.clamp(0, 1)


x_train = make_images(4000)
x_val = make_images(1000)


class VQ(nn.Module):
    def __init__(self, n_codes, dim):
        super().__init__()
        self.codebook = nn.Embedding(n_codes, dim)
        self.codebook.weight.data.uniform_(-1.0 / n_codes, 1.0 / n_codes)

    def forward(self, z):
        b, d, h, w = z.shape
        flat = z.permute(0, 2, 3, 1).reshape(-1, d)
        dist = (flat.pow(2).sum(1, keepdim=True) - 2 * flat @ self.codebook.weight.t()
                + self.codebook.weight.pow(2).sum(1)[None, :])
        idx = dist.argmin(1)
        zq = self.codebook(idx).view(b, h, w, d).permute(0, 3, 1, 2)
        codebook_loss = F.mse_loss(zq, z.detach())
        commit_loss = F.mse_loss(z, zq.detach())
        zq = z + (zq - z).detach()
        probs = torch.bincount(idx, minlength=self.codebook.num_embeddings).float() / idx.numel()
        perplexity = torch.exp(-(probs * torch.log(probs + 1e-10)).sum())
        return zq, codebook_loss, commit_loss, perplexity


class VQVAE(nn.Module):
    def __init__(self, n_codes=32, dim=16):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(1, 32, 4, 2, 1), nn.ReLU(), nn.Conv2d(32, dim, 3, 1, 1))
        self.vq = VQ(n_codes, dim)
        self.decoder = nn.Sequential(nn.Conv2d(dim, 32, 3, 1, 1), nn.ReLU(), nn.ConvTranspose2d(32, 1, 4, 2, 1))

    def forward(self, x):
        zq, cb, cm, ppl = self.vq(self.encoder(x))
        return self.decoder(zq), cb, cm, ppl


model = VQVAE(N_CODES)
if CFG.get("freeze_encoder"):
    # encoder weights are meant to come from the pretraining run (CFG["encoder_ckpt"])
    if CFG.get("encoder_ckpt"):
        model.encoder.load_state_dict(torch.load(CFG["encoder_ckpt"]))
    for p in model.encoder.parameters():
        p.requires_grad = False
optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=LR)
n_params = sum(p.numel() for p in model.parameters())
steps = (len(x_train) + BATCH - 1) // BATCH
log_start(n_params, len(x_train), len(x_val), LR, BATCH, EPOCHS)

gstep = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    model.train()
    order = torch.randperm(len(x_train))
    tot_loss = tot_rec = tot_ppl = 0.0
    for i in range(steps):
        xb = x_train[order[i * BATCH:(i + 1) * BATCH]]
        optimizer.zero_grad()
        xr, cb, cm, ppl = model(xb)
        rec = F.mse_loss(xr, xb)
        loss = rec + cb + BETA * cm
        loss.backward()
        optimizer.step()
        gstep += 1
        tot_loss += loss.item() * len(xb)
        tot_rec += rec.item() * len(xb)
        tot_ppl += ppl.item() * len(xb)
        log_step(epoch, i + 1, steps, loss.item(), rec.item(), ppl.item(), gstep, time.time() - t0)
    model.eval()
    with torch.no_grad():
        xr, cb, cm, ppl = model(x_val)
        val_rec = F.mse_loss(xr, x_val).item()
        val_loss = val_rec + cb.item() + BETA * cm.item()
    n = len(x_train)
    log_epoch(epoch, EPOCHS, tot_loss / n, tot_rec / n, tot_ppl / n, val_loss, val_rec, ppl.item(), gstep,
              time.time() - t0)
log_end(val_rec, ppl.item(), time.time() - t0)
