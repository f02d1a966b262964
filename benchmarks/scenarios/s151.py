"""Support-ticket routing (4 queues) with an EmbeddingBag text classifier.

Only ~700 labelled tickets exist and the team trains on a laptop with batch_size=2, logging
every optimiser step.
"""
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(151)
torch.set_num_threads(1)

QUEUES = ["billing", "outage", "account", "feature"]
VOCAB, DIM = 600, 32
CFG = {"epochs": 6, "batch_size": 2, "lr": 2e-3}


def tickets(n, rng):
    topic_words = [np.arange(q * 60, q * 60 + 60) for q in range(4)]
    docs, ys = [], []
    for _ in range(n):
        q = rng.integers(4)
        L = rng.integers(6, 20)
        k = rng.binomial(L, 0.35)
        words = np.concatenate([rng.choice(topic_words[q], k), rng.integers(240, VOCAB, L - k)])
        docs.append(torch.tensor(words)); ys.append(q)
    return docs, torch.tensor(ys)


class BagClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.EmbeddingBag(VOCAB, DIM, mode="mean")
        self.fc = nn.Linear(DIM, len(QUEUES))

    def forward(self, docs):
        offsets = torch.tensor([0] + [len(d) for d in docs[:-1]]).cumsum(0)
        return self.fc(self.emb(torch.cat(docs), offsets))


def main():
    rng = np.random.default_rng(151)
    tr_docs, tr_y = tickets(700, rng)
    va_docs, va_y = tickets(300, rng)
    model = BagClassifier()
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    bs, step = CFG["batch_size"], 0
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "epoch", "train_loss", "val_loss", "val_acc"])
        vl = va = float("nan")
        for epoch in range(CFG["epochs"]):
            perm = rng.permutation(len(tr_docs))
            for k in range(0, len(perm), bs):
                idx = perm[k:k + bs]
                out = model([tr_docs[i] for i in idx])
                loss = F.cross_entropy(out, tr_y[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
                step += 1
                if step % 50 == 0:
                    with torch.no_grad():
                        o = model(va_docs)
                        vl = F.cross_entropy(o, va_y).item()
                        va = (o.argmax(1) == va_y).float().mean().item()
                w.writerow([step, epoch, f"{loss.item():.5f}", f"{vl:.5f}" if step % 50 == 0 else "",
                            f"{va:.4f}" if step % 50 == 0 else ""])
            print(f"epoch {epoch} step {step}  last batch loss {loss.item():.4f}  val {vl:.4f}  acc {va:.3f}")


if __name__ == "__main__":
    main()
