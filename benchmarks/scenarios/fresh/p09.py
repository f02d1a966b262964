"""Character-level LSTM language model on a synthetic log-message corpus (word_language_model style)."""
import csv
import math

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(9)
rng = np.random.default_rng(9)

WORDS = ["error", "warn", "info", "disk", "full", "user", "login", "failed", "ok", "retry",
         "timeout", "cache", "miss", "hit", "node", "down", "up", "restart", "queue", "job"]
text = []
for _ in range(6000):
    n = rng.integers(3, 8)
    text.append(" ".join(WORDS[i] for i in rng.choice(len(WORDS), n, p=np.linspace(2, 1, len(WORDS)) / np.linspace(2, 1, len(WORDS)).sum())))
text = "\n".join(text)
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
n_val = len(data) // 10
train_data, val_data = data[:-n_val], data[-n_val:]

BPTT, BATCH = 35, 20
LR, EPOCHS = 20.0, 1


def batchify(d, bsz):
    nb = d.size(0) // bsz
    return d[: nb * bsz].view(bsz, -1).t().contiguous()


class CharLM(nn.Module):
    def __init__(self, ntok, emb=32, hid=128, nlayers=2):
        super().__init__()
        self.emb = nn.Embedding(ntok, emb)
        self.rnn = nn.LSTM(emb, hid, nlayers, dropout=0.1)
        self.dec = nn.Linear(hid, ntok)

    def forward(self, x, h=None):
        out, h = self.rnn(self.emb(x), h)
        return self.dec(out), h


def repackage(h):
    return tuple(t.detach() for t in h)


train = batchify(train_data, BATCH)
val = batchify(val_data, 10)
model = CharLM(len(chars))
crit = nn.CrossEntropyLoss()
opt = torch.optim.SGD(model.parameters(), lr=LR)
print(f"vocab {len(chars)}  train tokens {len(train_data)}  uniform loss {math.log(len(chars)):.3f}")


def evaluate():
    model.eval()
    tot, n, h = 0.0, 0, None
    with torch.no_grad():
        for i in range(0, min(val.size(0) - 1, 700), BPTT):
            sl = min(BPTT, val.size(0) - 1 - i)
            x, y = val[i:i + sl], val[i + 1:i + 1 + sl]
            out, h = model(x, h)
            tot += crit(out.view(-1, out.size(-1)), y.reshape(-1)).item() * sl
            n += sl
    model.train()
    return tot / n


with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "loss", "val_loss", "grad_norm", "lr"])
    step, h = 0, None
    model.train()
    for i in range(0, min(train.size(0) - 1, 300 * BPTT), BPTT):
        sl = min(BPTT, train.size(0) - 1 - i)
        x, y = train[i:i + sl], train[i + 1:i + 1 + sl]
        h = repackage(h) if h is not None else None
        model.zero_grad()
        out, h = model(x, h)
        loss = crit(out.view(-1, out.size(-1)), y.reshape(-1))
        loss.backward()
        gn = math.sqrt(sum(float((p.grad ** 2).sum()) for p in model.parameters()))
        opt.step()
        step += 1
        if step % 2 == 0:
            vl = evaluate() if step % 50 == 0 else ""
            w.writerow([step, f"{loss.item():.5g}", vl if vl == "" else f"{vl:.5g}", f"{gn:.5g}", LR])
            fh.flush()
            print(f"step {step:4d}  loss {loss.item():.4f}  grad_norm {gn:.4g}" + (f"  val_loss {vl:.4f}" if vl != "" else ""))
