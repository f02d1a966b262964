# femtoGPT-style tiny character GPT (2 layers, 4 heads, 48-d embeddings) trained with a constant Adam learning rate
import csv
import random
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(7)
random.seed(7)
torch.set_num_threads(1)

words = ["the", "cat", "dog", "sat", "on", "mat", "ran", "to", "a", "big", "red", "house", "and", "then", "slept",
         "quickly", "under", "tree", "bird", "sang", "small", "green", "hill", "over", "river"]
seq = [3, 17]
for i in range(14000):
    seq.append((seq[-1] * 7 + seq[-2] * 3 + (seq[-1] // 5)) % len(words))
text = [words[k] for k in seq]
text = " ".join(text)
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text])
V, CTX, E, NL, NH, B = len(chars), 32, 48, 2, 4, 32
split = int(0.9 * len(data))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(E), nn.LayerNorm(E)
        self.attn = nn.MultiheadAttention(E, NH, batch_first=True)
        self.ff = nn.Sequential(nn.Linear(E, 4 * E), nn.GELU(), nn.Linear(4 * E, E))
        self.register_buffer("mask", torch.triu(torch.ones(CTX, CTX, dtype=torch.bool), 1))

    def forward(self, x):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=self.mask[:x.size(1), :x.size(1)], need_weights=False)[0]
        return x + self.ff(self.ln2(x))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok, self.pos = nn.Embedding(V, E), nn.Embedding(CTX, E)
        self.blocks = nn.Sequential(*[Block() for _ in range(NL)])
        self.ln, self.head = nn.LayerNorm(E), nn.Linear(E, V)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.size(1)))
        return self.head(self.ln(self.blocks(x)))


def batch(lo, hi):
    ix = torch.randint(lo, hi - CTX - 1, (B,))
    return torch.stack([data[i:i + CTX] for i in ix]), torch.stack([data[i + 1:i + CTX + 1] for i in ix])


model = GPT()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "loss", "val_loss", "lr"])
    for step in range(1000):
        x, y = batch(0, split)
        loss = F.cross_entropy(model(x).reshape(-1, V), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        vl = ""
        if step % 100 == 0 or step == 999:
            model.eval()
            with torch.no_grad():
                vx, vy = batch(split, len(data))
                vl = f"{F.cross_entropy(model(vx).reshape(-1, V), vy.reshape(-1)).item():.4f}"
            model.train()
            print(f"Step: {step} Loss: {loss.item():.4f} Val loss: {vl} lr: {opt.param_groups[0]['lr']}")
        w.writerow([step, f"{loss.item():.4f}", vl, opt.param_groups[0]["lr"]])
