"""Capsule network with dynamic routing (Sabour et al. 2017), scaled down, in the style of a PyTorch
CapsNet repository (conv layer -> primary capsules built from parallel conv units and squashed -> class
capsules by routing-by-agreement -> margin loss + masked reconstruction decoder). Data: synthetic 12x12
grey images of four stroke shapes (bar, cross, box, diagonal) at random positions with a random distractor stroke and pixel noise."""
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
import os
import yaml

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "config.yaml")) as f:
    CFG = yaml.safe_load(f)
print("config:", CFG)
import time
_state = {"t0": time.time()}


def log_info(msg):
    print(msg)


def progress(it, epoch, n_epochs, n_batches):
    _state["t0"] = time.time()
    return it


def on_batch(bar, loss):
    pass


def _unit(k):
    return " %" if "acc" in k else ""


def log_epoch(epoch, n_epochs, m, lr):
    parts = [f"{k} = {v * 100:.2f}{_unit(k)}" if "acc" in k else f"{k} = {v:.4f}" for k, v in m.items()]
    print(f"Epoch {epoch:2d} of {n_epochs}: " + ", ".join(parts) + f", lr = {lr:.1e}, took {time.time() - _state['t0']:.2f} s")


def log_end(summary):
    print("Training complete. " + ", ".join(f"{k} = {v}" for k, v in summary.items()))

N_CLASSES = 4


def make_images(n, g):
    x = 0.45 * torch.rand(n, 1, 12, 12, generator=g)
    y = torch.randint(0, N_CLASSES, (n,), generator=g)
    for i in range(n):
        r, c = (int(v) for v in torch.randint(1, 5, (2,), generator=g))
        s = 6
        if y[i] == 0:
            x[i, 0, r + s // 2, c:c + s] += 0.5
        elif y[i] == 1:
            x[i, 0, r + s // 2, c:c + s] += 0.5
            x[i, 0, r:r + s, c + s // 2] += 0.5
        elif y[i] == 2:
            x[i, 0, r, c:c + s] += 0.5
            x[i, 0, r + s - 1, c:c + s] += 0.5
            x[i, 0, r:r + s, c] += 0.5
            x[i, 0, r:r + s, c + s - 1] += 0.5
        else:
            for k in range(s):
                x[i, 0, r + k, c + k] += 0.5
        dr, dc = (int(v) for v in torch.randint(0, 9, (2,), generator=g))
        if torch.rand(1, generator=g) < 0.5:
            x[i, 0, dr, dc:dc + 4] += 0.6
        else:
            x[i, 0, dr:dr + 4, dc] += 0.6
    x = x + 0.25 * torch.randn(x.shape, generator=g)
    return x.clamp(0, 1), y


def squash(s, dim=-1):
    n2 = (s ** 2).sum(dim=dim, keepdim=True)
    return n2 / (1 + n2) * s / torch.sqrt(n2 + 1e-8)


class PrimaryCaps(nn.Module):
    def __init__(self, in_ch, out_ch, units):
        super().__init__()
        self.units = nn.ModuleList([nn.Conv2d(in_ch, out_ch, 3, stride=2) for _ in range(units)])

    def forward(self, x):
        u = torch.stack([conv(x).flatten(1) for conv in self.units], dim=-1)
        return squash(u)


class ClassCaps(nn.Module):
    def __init__(self, in_caps, in_dim, n_caps, out_dim, iters):
        super().__init__()
        self.iters = iters
        self.W = nn.Parameter(0.1 * torch.randn(1, in_caps, n_caps, out_dim, in_dim))

    def forward(self, u):
        B = u.size(0)
        W = self.W.expand(B, -1, -1, -1, -1)
        u_hat = torch.matmul(W, u[:, :, None, :, None]).squeeze(-1)
        b = torch.zeros(B, u_hat.size(1), u_hat.size(2), device=u.device)
        for it in range(self.iters):
            c = F.softmax(b, dim=2)
            v = squash((c.unsqueeze(-1) * u_hat).sum(dim=1))
            if it < self.iters - 1:
                b = b + (u_hat * v.unsqueeze(1)).sum(-1)
        return v


class CapsNet(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 5)
        self.primary = PrimaryCaps(32, cfg["prim_channels"], cfg["prim_units"])
        self.caps = ClassCaps(cfg["prim_channels"] * 3 * 3, cfg["prim_units"], N_CLASSES, cfg["class_dim"],
                              cfg["routing_iters"])
        self.decoder = nn.Sequential(nn.Linear(N_CLASSES * cfg["class_dim"], 128), nn.ReLU(),
                                     nn.Linear(128, 144), nn.Sigmoid())

    def forward(self, x, y=None):
        v = self.caps(self.primary(F.relu(self.conv1(x))))
        lengths = v.norm(dim=-1)
        idx = lengths.argmax(1) if y is None else y
        mask = F.one_hot(idx, N_CLASSES).float().unsqueeze(-1)
        recon = self.decoder((v * mask).flatten(1))
        return lengths, recon


def margin_loss(lengths, y):
    t = F.one_hot(y, N_CLASSES).float()
    loss = t * F.relu(0.9 - lengths) ** 2 + 0.5 * (1 - t) * F.relu(lengths - 0.1) ** 2
    return loss.sum(1).mean()


g = torch.Generator().manual_seed(3)
x_train, y_train = make_images(CFG["n_train"], g)
x_val, y_val = make_images(CFG["n_val"], g)
if CFG["label_noise"] > 0:
    flip = torch.rand(len(y_train), generator=g) < CFG["label_noise"]
    y_train[flip] = torch.randint(0, N_CLASSES, (int(flip.sum()),), generator=g)
model = CapsNet(CFG)
optimizer = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
log_info(f"CapsNet: {sum(p.numel() for p in model.parameters())} params, primary capsules "
         f"{CFG['prim_channels'] * 9}x{CFG['prim_units']}d -> {N_CLASSES}x{CFG['class_dim']}d, routing {CFG['routing_iters']} "
         f"| train {len(y_train)} val {len(y_val)} | batch {CFG['batch_size']}")


def evaluate():
    model.eval()
    with torch.no_grad():
        lengths, recon = model(x_val)
        m = margin_loss(lengths, y_val)
        r = F.mse_loss(recon, x_val.flatten(1), reduction="sum") / len(y_val)
        acc = (lengths.argmax(1) == y_val).float().mean().item()
    return (m + CFG["recon_weight"] * r).item(), acc


t_start = time.time()
for epoch in range(1, CFG["epochs"] + 1):
    model.train()
    perm = torch.randperm(len(y_train))
    s_loss = s_m = s_r = 0.0
    correct = nb = 0
    batches = [perm[i:i + CFG["batch_size"]] for i in range(0, len(perm), CFG["batch_size"])]
    bar = progress(batches, epoch, CFG["epochs"], len(batches))
    for idx in bar:
        xb, yb = x_train[idx], y_train[idx]
        lengths, recon = model(xb, yb)
        m = margin_loss(lengths, yb)
        r = F.mse_loss(recon, xb.flatten(1), reduction="sum") / len(yb)
        loss = m + CFG["recon_weight"] * r
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        s_loss += loss.item()
        s_m += m.item()
        s_r += r.item()
        correct += (lengths.argmax(1) == yb).sum().item()
        nb += 1
        on_batch(bar, loss.item())
    lr = optimizer.param_groups[0]["lr"]
    scheduler.step()
    val_loss, val_acc = evaluate()
    log_epoch(epoch, CFG["epochs"], {"loss": s_loss / nb, "margin": s_m / nb, "recon": s_r / nb,
                                     "acc": correct / len(y_train), "val_loss": val_loss, "val_acc": val_acc}, lr)

log_end({"epochs": CFG["epochs"], "val_acc": round(val_acc, 4), "time_s": round(time.time() - t_start, 1)})
