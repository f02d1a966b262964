"""Perceiver-style classifier: a small set of learned latent vectors cross-attends to a long input sequence,
then the latents run through a latent self-attention block and are mean-pooled for classification. The data is
synthetic: each sequence holds 64 random 16-d tokens among which 2 to 4 tokens are noisy copies of motifs from a
class-specific pair of prototypes (6 classes); the class can only be read by finding those motif tokens."""
import math
import time
import json
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
with open("config.json") as f:
    CFG = json.load(f)

import json


def log_info(msg):
    print(json.dumps({"event": "info", "msg": msg}))


def progress(it, epoch, n_epochs, n):
    return it


def on_step(epoch, n_epochs, i, n, loss, lr, gstep, total):
    if gstep % 40 == 0:
        print(json.dumps({"event": "step", "step": gstep, "loss": round(loss, 5), "lr": lr}))


def log_epoch(epoch, n_epochs, m, lr):
    print(json.dumps({"event": "epoch", "epoch": epoch, **{k: round(v, 5) for k, v in m.items()}, "lr": lr}))


def log_end(summary):
    print(json.dumps({"event": "done", **summary}))


def make_data(n, g):
    protos = torch.randn(CFG["n_classes"], 2, CFG["d_in"], generator=torch.Generator().manual_seed(123)) * 1.0
    x = torch.randn(n, CFG["seq_len"], CFG["d_in"], generator=g)
    y = torch.randint(0, CFG["n_classes"], (n,), generator=g)
    for i in range(n):
        k = int(torch.randint(2, 5, (1,), generator=g))
        pos = torch.randperm(CFG["seq_len"], generator=g)[:k]
        which = torch.randint(0, 2, (k,), generator=g)
        x[i, pos] = protos[y[i], which] + 0.9 * torch.randn(k, CFG["d_in"], generator=g)
    return x, y


class CrossAttention(nn.Module):
    def __init__(self, d_lat, d_in, heads):
        super().__init__()
        self.h = heads
        self.q = nn.Linear(d_lat, d_lat)
        self.kv = nn.Linear(d_in, 2 * d_lat)
        self.o = nn.Linear(d_lat, d_lat)
        self.ln_q = nn.LayerNorm(d_lat)
        self.ln_kv = nn.LayerNorm(d_in)

    def forward(self, lat, x):
        b, n, _ = x.shape
        q = self.q(self.ln_q(lat)).view(b, -1, self.h, lat.shape[-1] // self.h).transpose(1, 2)
        k, v = self.kv(self.ln_kv(x)).chunk(2, dim=-1)
        k = k.view(b, n, self.h, -1).transpose(1, 2)
        v = v.view(b, n, self.h, -1).transpose(1, 2)
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1]), dim=-1)
        out = (att @ v).transpose(1, 2).reshape(b, -1, lat.shape[-1])
        return lat + self.o(out)


class LatentBlock(nn.Module):
    def __init__(self, d, heads, dropout):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.att = nn.MultiheadAttention(d, heads, dropout=dropout, batch_first=True)
        self.ln2 = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Dropout(dropout), nn.Linear(2 * d, d))

    def forward(self, z):
        h = self.ln1(z)
        z = z + self.att(h, h, h, need_weights=False)[0]
        return z + self.ff(self.ln2(z))


class Perceiver(nn.Module):
    def __init__(self):
        super().__init__()
        d = CFG["d_latent"]
        self.latents = nn.Parameter(torch.randn(CFG["n_latents"], d) * 0.2)
        self.cross = CrossAttention(d, CFG["d_in"], CFG["heads"])
        self.blocks = nn.ModuleList([LatentBlock(d, CFG["heads"], CFG["dropout"]) for _ in range(CFG["n_blocks"])])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, CFG["n_classes"])

    def forward(self, x):
        z = self.latents.unsqueeze(0).expand(x.shape[0], -1, -1)
        z = self.cross(z, x)
        for blk in self.blocks:
            z = blk(z)
        return self.head(self.ln(z).mean(1))


g = torch.Generator().manual_seed(7)
x_tr, y_tr = make_data(CFG["n_train"], g)
x_va, y_va = make_data(CFG["n_val"], g)
model = Perceiver()
optimizer = torch.optim.AdamW(model.parameters(), lr=CFG["lr"], weight_decay=CFG["weight_decay"])
steps_per_epoch = CFG["n_train"] // CFG["batch_size"]
total_steps = CFG["epochs"] * steps_per_epoch


def lr_at(step):
    if step < CFG["warmup_steps"]:
        return (step + 1) / CFG["warmup_steps"]
    t = (step - CFG["warmup_steps"]) / max(1, total_steps - CFG["warmup_steps"])
    return 0.5 * (1 + math.cos(math.pi * t))


scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_at)
log_info(f"Perceiver: {CFG['n_latents']} latents x {CFG['d_latent']} | inputs {CFG['seq_len']}x{CFG['d_in']} | "
         f"{sum(p.numel() for p in model.parameters())} params | train {CFG['n_train']} val {CFG['n_val']}")


def evaluate():
    model.eval()
    with torch.no_grad():
        logits = model(x_va)
        loss = F.cross_entropy(logits, y_va).item()
        acc = (logits.argmax(1) == y_va).float().mean().item()
    return loss, acc


t_start = time.time()
gstep = 0
for epoch in range(1, CFG["epochs"] + 1):
    model.train()
    perm = torch.randperm(CFG["n_train"])
    tot, correct, seen = 0.0, 0, 0
    for i in progress(range(steps_per_epoch), epoch, CFG["epochs"], steps_per_epoch):
        idx = perm[i * CFG["batch_size"]:(i + 1) * CFG["batch_size"]]
        xb, yb = x_tr[idx], y_tr[idx]
        optimizer.zero_grad()
        logits = model(xb)
        loss = F.cross_entropy(logits, yb)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        gstep += 1
        tot += loss.item() * len(idx)
        correct += (logits.argmax(1) == yb).sum().item()
        seen += len(idx)
        on_step(epoch, CFG["epochs"], i, steps_per_epoch, loss.item(), optimizer.param_groups[0]["lr"], gstep, total_steps)
    val_loss, val_acc = evaluate()
    log_epoch(epoch, CFG["epochs"], {"loss": tot / seen, "acc": correct / seen, "val_loss": val_loss, "val_acc": val_acc},
              optimizer.param_groups[0]["lr"])

log_end({"epochs": CFG["epochs"], "best_val_acc": round(val_acc, 4), "time_s": round(time.time() - t_start, 1)})
