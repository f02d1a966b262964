# Paddle-v2-demo-style seq2seq (LSTM encoder -> LSTM decoder + fc softmax), per-sequence summed
# classification cost, plain SGD learning_rate=0.5, parameter/gradient stats printed like
# TrainerInternal's avg_abs_val / avg_abs_grad
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(2)
torch.set_num_threads(1)

V, L, E, H = 30, 25, 32, 128
g = torch.Generator().manual_seed(9)
def batch(n):
    src = torch.randint(2, V, (n, L), generator=g)
    trg = torch.flip(src, [1])
    return src, trg

class Seq2Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.src_emb = nn.Embedding(V, E)
        self.trg_emb = nn.Embedding(V, E)
        self.enc = nn.LSTM(E, H, batch_first=True)
        self.dec = nn.LSTM(E, H, batch_first=True)
        self.hidden = nn.Linear(H, H)
        self.out = nn.Linear(H, V)
    def forward(self, src, trg_in):
        _, state = self.enc(self.src_emb(src))
        o, _ = self.dec(self.trg_emb(trg_in), state)
        return self.out(torch.tanh(self.hidden(o)))

model = Seq2Seq()
opt = torch.optim.SGD(model.parameters(), lr=0.5)
with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "cost", "grad_norm", "avg_abs_grad", "max_grad"])
    for step in range(1, 601):
        src, trg = batch(32)
        trg_in = torch.cat([torch.ones(32, 1, dtype=torch.long), trg[:, :-1]], 1)
        logits = model(src, trg_in)
        cost = F.cross_entropy(logits.reshape(-1, V), trg.reshape(-1), reduction="sum") / 32
        opt.zero_grad()
        cost.backward()
        grads = torch.cat([p.grad.flatten() for p in model.parameters()])
        gn = grads.norm().item()
        opt.step()
        w.writerow([step, f"{cost.item():.4f}", f"{gn:.4e}", f"{grads.abs().mean().item():.4e}", f"{grads.abs().max().item():.4e}"])
        fh.flush()
        if step % 20 == 0 or cost.item() != cost.item():
            print(f"Pass 0, Batch {step}, Cost {cost.item():.6f}, grad_norm {gn:.4e}")
            for name, p in list(model.named_parameters())[:3]:
                print(f"  {name} avg_abs_val={p.abs().mean().item():.6g} avg_abs_grad={p.grad.abs().mean().item():.6g} max_grad={p.grad.abs().max().item():.6g}")
        if cost.item() != cost.item() and step > 40:
            break
