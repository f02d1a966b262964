"""Which of 3 sensor families dominates a variable-length event sequence? A tiny transformer encoder."""
import csv
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(77)

PAD, CLS = 0, 1
FAMILY_SIZE, N_FAMILIES = 10, 3
VOCAB = 2 + FAMILY_SIZE * N_FAMILIES
MAX_LEN = 16
D_MODEL = 32


def make_sequences(n, gen):
    m = 2 * n
    lengths = torch.randint(7, MAX_LEN, (m,), generator=gen)
    weights = torch.rand(m, N_FAMILIES, generator=gen) + 0.2
    fam = torch.multinomial(weights, MAX_LEN, replacement=True, generator=gen)
    valid = torch.arange(MAX_LEN)[None, :] < lengths[:, None]
    counts = F.one_hot(fam, N_FAMILIES).mul(valid[..., None]).sum(1)
    unique_max = (counts == counts.max(1, keepdim=True).values).sum(1) == 1    # drop ties
    keep = unique_max.nonzero().squeeze(1)[:n]
    events = 2 + fam * FAMILY_SIZE + torch.randint(0, FAMILY_SIZE, fam.shape, generator=gen)
    events = torch.where(valid, events, torch.full_like(events, PAD))
    tokens = torch.cat([torch.full((m, 1), CLS), events], dim=1)
    return tokens[keep], counts[keep].argmax(1)


class EventEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D_MODEL, padding_idx=PAD)
        self.pos = nn.Embedding(MAX_LEN + 1, D_MODEL)
        layer = nn.TransformerEncoderLayer(D_MODEL, nhead=4, dim_feedforward=64, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(D_MODEL)
        self.head = nn.Linear(D_MODEL, N_FAMILIES)

    def forward(self, tokens):
        pad_mask = tokens == PAD
        h = self.tok(tokens) + self.pos(torch.arange(tokens.shape[1]))
        h = self.encoder(h, src_key_padding_mask=pad_mask)
        return self.head(self.norm(h[:, 0]))


def warmup_cosine(total, warmup):
    def f(step):
        if step < warmup:
            return (step + 1) / warmup
        return 0.5 * (1.0 + math.cos(math.pi * (step - warmup) / max(1, total - warmup)))
    return f


gen = torch.Generator().manual_seed(7)
x_train, y_train = make_sequences(2000, gen)
x_val, y_val = make_sequences(400, gen)

model = EventEncoder()
EPOCHS, BATCH = 6, 64
steps_per_epoch = math.ceil(len(x_train) / BATCH)
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
sched = torch.optim.lr_scheduler.LambdaLR(opt, warmup_cosine(EPOCHS * steps_per_epoch, warmup=30))

with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["step", "epoch", "loss", "val_loss", "val_accuracy", "lr"])
    step = 0
    for epoch in range(EPOCHS):
        model.train()
        for idx in torch.randperm(len(x_train)).split(BATCH):
            loss = F.cross_entropy(model(x_train[idx]), y_train[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % 10 == 0:
                model.eval()
                with torch.no_grad():
                    out = model(x_val)
                    vloss = F.cross_entropy(out, y_val).item()
                    vacc = (out.argmax(1) == y_val).float().mean().item()
                model.train()
                w.writerow([step, epoch, f"{loss.item():.5f}", f"{vloss:.5f}", f"{vacc:.4f}",
                            f"{sched.get_last_lr()[0]:.6f}"])
            sched.step()
            step += 1
        print(f"epoch {epoch}  loss {loss.item():.4f}  val loss {vloss:.4f}  val acc {vacc:.3f}")
print(f"chance-level loss: {math.log(N_FAMILIES):.4f}")
