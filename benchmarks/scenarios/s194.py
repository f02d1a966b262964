# Word-level LSTM language model, optimizer settings read from the config file (Adam, learning_rate 1.0)
import csv
import math
import time
import torch
import torch.nn as nn

torch.manual_seed(3)
torch.set_num_threads(1)

config = {"vocab_size": 200, "embed": 64, "hidden": 128, "num_steps": 20, "batch_size": 32,
          "optimizer": "adam", "learning_rate": 1.0, "epochs": 4}

V = config["vocab_size"]
g = torch.Generator().manual_seed(5)
trans = torch.softmax(torch.randn(V, V, generator=g) * 3.0, dim=1)
tok = [0]
for _ in range(60000):
    tok.append(torch.multinomial(trans[tok[-1]], 1, generator=g).item())
data = torch.tensor(tok)
train_data, valid_data = data[:52000], data[52000:]


def batchify(d, bs):
    n = d.size(0) // bs
    return d[:n * bs].view(bs, n)


class RNNModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, config["embed"])
        self.rnn = nn.LSTM(config["embed"], config["hidden"], batch_first=True)
        self.out = nn.Linear(config["hidden"], V)

    def forward(self, x, h=None):
        o, h = self.rnn(self.emb(x), h)
        return self.out(o), h


model = RNNModel()
opt = torch.optim.Adam(model.parameters(), lr=config["learning_rate"])
crit = nn.CrossEntropyLoss()
tr, va = batchify(train_data, config["batch_size"]), batchify(valid_data, config["batch_size"])
T = config["num_steps"]
nb = (tr.size(1) - 1) // T

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "loss", "val_loss"])
    step = 0
    for epoch in range(1, config["epochs"] + 1):
        model.train()
        h, total, t0 = None, 0.0, time.time()
        for b in range(nb):
            x, y = tr[:, b * T:(b + 1) * T], tr[:, b * T + 1:(b + 1) * T + 1]
            if h is not None:
                h = tuple(s.detach() for s in h)
            out, h = model(x, h)
            loss = crit(out.reshape(-1, V), y.reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            total += loss.item()
            w.writerow([step, epoch, f"{loss.item():.4f}", ""])
            if (b + 1) % 20 == 0:
                cur = total / 20
                print(f"| epoch {epoch:3d} | {b + 1:5d}/{nb:5d} batches | lr {config['learning_rate']:02.2f} | "
                      f"ms/batch {(time.time() - t0) * 1000 / 20:5.2f} | loss {cur:5.2f} | ppl {math.exp(min(cur, 50)):8.2f}")
                total, t0 = 0.0, time.time()
        model.eval()
        with torch.no_grad():
            vl, n, h = 0.0, 0, None
            for b in range((va.size(1) - 1) // T):
                x, y = va[:, b * T:(b + 1) * T], va[:, b * T + 1:(b + 1) * T + 1]
                out, h = model(x, h)
                vl += crit(out.reshape(-1, V), y.reshape(-1)).item()
                n += 1
            vl /= n
        w.writerow([step, epoch, f"{loss.item():.4f}", f"{vl:.4f}"])
        print("-" * 89)
        print(f"| end of epoch {epoch:3d} | valid loss {vl:5.2f} | valid ppl {math.exp(min(vl, 50)):8.2f}")
        print("-" * 89)
