"""Encoder-decoder Transformer learning to reverse sequences: inputs are 8 tokens drawn from a 10-symbol alphabet
(ids 2-11), the target is the same sequence reversed, decoded with teacher forcing after a BOS token (id 1). nn.Transformer
with d_model 32, 4 heads, 2 encoder and 2 decoder layers, feed-forward 64, dropout, learned positional embeddings,
a causal mask on the decoder. Cross-entropy over the 12-token vocabulary, Adam. Metric: teacher-forced per-token accuracy
on 500 held-out sequences (chance 0.10)."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(4)
torch.set_num_threads(1)
NAME = "revtf"
LR, BATCH, EPOCHS, N_TRAIN, N_VAL = 0.002, 64, 10, 3000, 500
L, V, DM = 8, 12, 32
MET = "tok_acc"
HIGHER = True

def log_start(info):
    print(f"Ka tīmata te whakangungu: {info['name']}, tawhā {info['n_params']}, rōpū {info['batch']}")


def log_step(ep, i, n, loss, lr, gstep, el):
    pass


def log_epoch(ep, E, m):
    print(f"Wā {ep}/{E}: ngaronga whakangungu {m['tl']:.4f}, ngaronga manatoko {m['vl']:.4f}, {MET} manatoko {m['vm']:.4f}")


def log_end(m):
    print(f"Kua oti te whakangungu, {m['el']:.1f} hēkona")


gen = torch.Generator().manual_seed(10)


def make(n):
    src = torch.randint(2, V, (n, L), generator=gen)
    tgt = src.flip(1)
    dec_in = torch.cat([torch.ones(n, 1, dtype=torch.long), tgt[:, :-1]], 1)
    return src, dec_in, tgt


s_train, d_train, t_train = make(N_TRAIN)
s_val, d_val, t_val = make(N_VAL)


class RevTF(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, DM)
        self.pos_s = nn.Parameter(0.1 * torch.randn(L, DM))
        self.pos_t = nn.Parameter(0.1 * torch.randn(L, DM))
        self.tf = nn.Transformer(d_model=DM, nhead=4, num_encoder_layers=2, num_decoder_layers=2,
                                 dim_feedforward=64, dropout=0.5, batch_first=True)
        self.out = nn.Linear(DM, V)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(L))

    def forward(self, src, dec_in):
        memory = self.tf.encoder(self.emb(src) + self.pos_s)
        h = self.tf.decoder(self.emb(dec_in) + self.pos_t, memory, tgt_mask=self.mask)
        return self.out(h)


model = RevTF()
optimizer = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.5)
steps = math.ceil(N_TRAIN / BATCH)
n_params = sum(p.numel() for p in model.parameters())
log_start({"name": NAME, "n_params": n_params, "batch": BATCH, "lr": LR, "n_train": N_TRAIN, "n_val": N_VAL})
t0 = time.time()
gstep = 0
for ep in range(1, EPOCHS + 1):
    te = time.time()
    model.train()
    perm = torch.randperm(N_TRAIN)
    tot, correct = 0.0, 0
    for i in range(steps):
        idx = perm[i * BATCH:(i + 1) * BATCH]
        logits = model(s_train[idx], d_train[idx])
        loss = F.cross_entropy(logits.reshape(-1, V), t_train[idx].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        gstep += 1
        tot += loss.item() * len(idx)
        correct += (logits.argmax(-1) == t_train[idx]).sum().item()
        log_step(ep, i, steps, loss.item(), optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    model.eval()
    with torch.no_grad():
        lv = model(s_val, d_val)
        vl = F.cross_entropy(lv.reshape(-1, V), t_val.reshape(-1)).item()
        va = (lv.argmax(-1) == t_val).float().mean().item()
    log_epoch(ep, EPOCHS, {"tl": tot / N_TRAIN, "tm": correct / (N_TRAIN * L), "vl": vl, "vm": va,
                           "lr": optimizer.param_groups[0]["lr"], "el": time.time() - t0, "sec": time.time() - te,
                           "gstep": gstep})
log_end({"el": time.time() - t0, "gstep": gstep, "ep": EPOCHS, "vm": va, "vl": vl, "n_train": N_TRAIN})
