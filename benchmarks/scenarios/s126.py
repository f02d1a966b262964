"""Call-centre transcript triage: LSTM over token ids, 3 queues (billing / tech / cancel).

Transcripts are bucketed by length so that padding per batch stays small (the padded
LSTM is the slowest part of the pipeline).
"""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_sequence

torch.manual_seed(126)
torch.set_num_threads(1)

CFG = {"vocab": 300, "emb": 24, "hidden": 32, "batch_size": 32, "epochs": 6, "lr": 3e-3}
QUEUES = ["billing", "tech", "cancel"]


def synth(n, rng):
    data = []
    for _ in range(n):
        q = int(rng.integers(0, 3))
        length = int(rng.integers(*[(6, 14), (14, 26), (24, 40)][q]))   # cancellations run longest
        toks = rng.integers(20, CFG["vocab"], length)
        k = rng.choice(length, 2, replace=False)
        toks[k] = 1 + 6 * q + rng.integers(0, 6, 2)
        data.append((torch.from_numpy(toks), q))
    return data


def length_buckets(data, bs):
    order = sorted(range(len(data)), key=lambda i: len(data[i][0]))
    return [order[i:i + bs] for i in range(0, len(order), bs)]


def collate(data, idx):
    seqs = [data[i][0] for i in idx]
    lens = torch.tensor([len(s) for s in seqs])
    return pad_sequence(seqs, batch_first=True), lens, torch.tensor([data[i][1] for i in idx])


class Triage(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(CFG["vocab"], CFG["emb"], padding_idx=0)
        self.lstm = nn.LSTM(CFG["emb"], CFG["hidden"], batch_first=True)
        self.out = nn.Linear(CFG["hidden"], len(QUEUES))

    def forward(self, x, lens):
        packed = pack_padded_sequence(self.emb(x), lens, batch_first=True, enforce_sorted=False)
        _, (h, _) = self.lstm(packed)
        return self.out(h[-1])


def main():
    rng = np.random.default_rng(126)
    train, val = synth(2400, rng), synth(600, rng)
    buckets = length_buckets(train, CFG["batch_size"])
    xv, lv, yv = collate(val, range(len(val)))
    model = Triage()
    opt = torch.optim.RMSprop(model.parameters(), lr=CFG["lr"])
    crit = nn.CrossEntropyLoss()
    step = 0
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "epoch", "train_loss", "val_loss", "val_acc"])
        for epoch in range(CFG["epochs"]):
            for idx in buckets:
                model.train()
                x, l, y = collate(train, idx)
                loss = crit(model(x, l), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                step += 1
                if step % 5 == 0:
                    model.eval()
                    with torch.no_grad():
                        vo = model(xv, lv)
                        vl, va = crit(vo, yv).item(), (vo.argmax(1) == yv).float().mean().item()
                    w.writerow([step, epoch, f"{loss.item():.5f}", f"{vl:.5f}", f"{va:.4f}"])
            print(f"epoch {epoch} step {step}  last batch loss {loss.item():.4f}  val {vl:.4f}  acc {va:.3f}")


if __name__ == "__main__":
    main()
