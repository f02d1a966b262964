# Skip-gram word2vec with negative sampling (word2vec-pytorch style): SparseAdam lr 1e-2, batch 128,
# 6 epochs over a synthetic topical corpus (20 topics x 25 words; each sentence draws its words from
# one topic). As in the reference trainer, the SparseAdam optimizer and a
# CosineAnnealingLR(T_max=len(dataloader)) scheduler are created at the start of every epoch and the
# scheduler is stepped after every batch.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader

torch.manual_seed(0)
torch.set_num_threads(1)
NT, WPT, DIM, WIN, NEG = 20, 25, 32, 2, 5
V = NT * WPT
g = torch.Generator().manual_seed(31)
sents = []
for _ in range(1500):
    t = torch.randint(0, NT, (1,), generator=g).item()
    sents.append((t * WPT + torch.randint(0, WPT, (10,), generator=g)).tolist())
pairs = [(s[i], s[j]) for s in sents for i in range(len(s)) for j in range(max(0, i - WIN), min(len(s), i + WIN + 1)) if i != j]
pairs = torch.tensor(pairs)
loader = DataLoader(TensorDataset(pairs[:, 0], pairs[:, 1]), batch_size=128, shuffle=True, generator=torch.Generator().manual_seed(32))

class SkipGram(nn.Module):
    def __init__(self):
        super().__init__()
        self.u = nn.Embedding(V, DIM, sparse=True); self.v = nn.Embedding(V, DIM, sparse=True)
        nn.init.uniform_(self.u.weight, -0.5 / DIM, 0.5 / DIM); nn.init.zeros_(self.v.weight)
    def forward(self, c, o, neg):
        eu = self.u(c)
        pos = F.logsigmoid((eu * self.v(o)).sum(1))
        negs = F.logsigmoid(-(self.v(neg) @ eu.unsqueeze(2)).squeeze(2)).sum(1)
        return -(pos + negs).mean()

def topic_nn_acc(model):
    e = F.normalize(model.u.weight.detach(), dim=1)
    sim = e @ e.T
    sim.fill_diagonal_(-2)
    nn_idx = sim.argmax(1)
    return (nn_idx // WPT == torch.arange(V) // WPT).float().mean().item()

model = SkipGram()
step = 0
with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["step", "epoch", "loss", "lr", "topic_nn_acc"])
    for epoch in range(1, 7):
        opt = torch.optim.SparseAdam(list(model.parameters()), lr=1e-2)
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(opt, len(loader))
        run = 0.0
        for i, (c, o) in enumerate(loader):
            step += 1
            neg = torch.randint(0, V, (len(c), NEG))
            loss = model(c, o, neg)
            opt.zero_grad(); loss.backward(); opt.step(); scheduler.step()
            run = 0.9 * run + 0.1 * loss.item() if i else loss.item()
            acc = ""
            if i % 100 == 0:
                print(f"epoch {epoch} batch {i} loss(running) {run:.4f} lr {opt.param_groups[0]['lr']:.2e}")
            wr.writerow([step, epoch, f"{loss.item():.4f}", f"{opt.param_groups[0]['lr']:.3e}", acc])
        a = topic_nn_acc(model)
        wr.writerow([step, epoch, f"{loss.item():.4f}", f"{opt.param_groups[0]['lr']:.3e}", f"{a:.4f}"])
        print(f"epoch {epoch} done: running loss {run:.4f} topic nearest-neighbour acc {a:.3f}")
        fh.flush()
