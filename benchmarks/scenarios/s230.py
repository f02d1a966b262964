# LOMO-style full-parameter fine-tuning of a small causal LM: LOMO is plain SGD fused into the
# backward pass (no momentum, no Adam state). ~10k training samples in a special answer format,
# learning rate 5e-5 as in the usual Adam recipes, batch 16, gradient clipping 1.0.
import csv
import random
import torch
import torch.nn as nn
import torch.nn.functional as F

random.seed(0)
torch.manual_seed(0)
torch.set_num_threads(1)

# special-format samples: "<q>a+b=<a>result<e>" with an unusual answer encoding (digits reversed)
def sample():
    a, b = random.randint(0, 999), random.randint(0, 999)
    return f"<{a}+{b}>{str(a + b)[::-1]};"
vocab = sorted(set("0123456789+<>;"))
stoi = {c: i for i, c in enumerate(vocab)}
SEQ = 16
def encode(s):
    ids = [stoi[c] for c in s][:SEQ + 1]
    return ids + [stoi[";"]] * (SEQ + 1 - len(ids))
data = torch.tensor([encode(sample()) for _ in range(10000)])
val = torch.tensor([encode(sample()) for _ in range(500)])

class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, h, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
    def forward(self, x, mask):
        y = self.ln1(x)
        x = x + self.attn(y, y, y, attn_mask=mask, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))

class LM(nn.Module):
    def __init__(self, V, d=128, h=4, L=3):
        super().__init__()
        self.tok, self.pos = nn.Embedding(V, d), nn.Embedding(SEQ, d)
        self.blocks = nn.ModuleList([Block(d, h) for _ in range(L)])
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, V)
    def forward(self, idx):
        T = idx.shape[1]
        mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
        x = self.tok(idx) + self.pos(torch.arange(T))
        for b in self.blocks:
            x = b(x, mask)
        return self.head(self.ln(x))

model = LM(len(vocab))
lr = 5e-5
opt = torch.optim.SGD(model.parameters(), lr=lr)

step = 0
with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["step", "epoch", "lr", "loss", "val_loss"])
    for epoch in range(1, 3):
        perm = torch.randperm(len(data))
        for i in range(0, 6400, 16):
            b = data[perm[i:i + 16]]
            step += 1
            logits = model(b[:, :-1])
            loss = F.cross_entropy(logits.reshape(-1, len(vocab)), b[:, 1:].reshape(-1))
            opt.zero_grad(); loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            vl = ""
            if step % 50 == 0:
                with torch.no_grad():
                    vl = f"{F.cross_entropy(model(val[:, :-1]).reshape(-1, len(vocab)), val[:, 1:].reshape(-1)).item():.4f}"
                print(f"{{'loss': {loss.item():.4f}, 'learning_rate': {lr}, 'epoch': {epoch - 1 + i / 6400:.2f}, 'val_loss': {vl}}}")
            wr.writerow([step, epoch, lr, f"{loss.item():.4f}", vl])
        fh.flush()
