"""Query-intent classifier: EmbeddingBag over token ids, trained in half precision to save memory."""
import csv

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(14)
rng = np.random.default_rng(14)

VOCAB, N_INTENT, MAXLEN = 2000, 5, 12
DTYPE = torch.float16

intent_vocab = [rng.choice(VOCAB // 2, 40, replace=False) for _ in range(N_INTENT)]


def queries(n):
    ids, offsets, labels = [], [], []
    for _ in range(n):
        c = rng.integers(0, N_INTENT)
        L = rng.integers(3, MAXLEN)
        toks = np.where(rng.random(L) < 0.5, rng.choice(intent_vocab[c], L), rng.integers(0, VOCAB, L))
        offsets.append(len(ids))
        ids.extend(toks.tolist())
        labels.append(c)
    return torch.tensor(ids), torch.tensor(offsets), torch.tensor(labels)


class IntentNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.EmbeddingBag(VOCAB, 64, mode="mean")
        self.mlp = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, N_INTENT))

    def forward(self, ids, offsets):
        return self.mlp(self.emb(ids, offsets))


model = IntentNet().to(DTYPE)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()
val = queries(500)

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "loss", "accuracy", "val_loss", "val_accuracy"])
    for step in range(1, 301):
        model.train()
        ids, offs, y = queries(64)
        logits = model(ids, offs)
        loss = crit(logits.float(), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step <= 5 or step % 10 == 0:
            model.eval()
            with torch.no_grad():
                vo = model(val[0], val[1]).float()
                vl = crit(vo, val[2]).item()
                va = (vo.argmax(1) == val[2]).float().mean().item()
            acc = (logits.argmax(1) == y).float().mean().item()
            w.writerow([step, f"{loss.item():.5g}", f"{acc:.4f}", f"{vl:.5g}", f"{va:.4f}"])
            print(f"step {step:3d}  loss {loss.item():.4f}  acc {acc:.3f}  val_loss {vl:.4f}  val_acc {va:.3f}")
