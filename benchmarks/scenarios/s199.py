# Small next-token "miner" model (embedding -> 1-layer ReLU RNN with near-identity recurrent init -> linear), SGD with momentum
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(229)
torch.set_num_threads(1)

V, E, H, T, B = 512, 32, 64, 40, 16
g = torch.Generator().manual_seed(3)
trans = torch.softmax(torch.randn(V, V, generator=g) * 2.0, 1)
seq = [0]
for _ in range(40000):
    seq.append(torch.multinomial(trans[seq[-1]], 1, generator=g).item())
data = torch.tensor(seq)


class Miner(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, E)
        self.rnn = nn.RNN(E, H, nonlinearity="relu", batch_first=True)
        self.dec = nn.Linear(H, V)
        with torch.no_grad():
            self.rnn.weight_hh_l0.copy_(1.02 * torch.eye(H))
        nn.init.zeros_(self.rnn.bias_hh_l0)

    def forward(self, x):
        o, _ = self.rnn(self.emb(x))
        return self.dec(o)


model = Miner()
opt = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "loss", "grad_norm"])
    step = 0
    for epoch in range(12):
        tot, n = 0.0, 0
        for it in range(60):
            ix = torch.randint(0, len(data) - T - 1, (B,))
            x = torch.stack([data[i:i + T] for i in ix])
            y = torch.stack([data[i + 1:i + T + 1] for i in ix])
            loss = F.cross_entropy(model(x).reshape(-1, V), y.reshape(-1))
            opt.zero_grad()
            loss.backward()
            gn = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()])).item()
            opt.step()
            step += 1
            tot += loss.item()
            n += 1
            w.writerow([step, epoch, f"{loss.item():.4f}", f"{gn:.4f}"])
        print(f"Epoch {epoch} | local_epoch_loss: {tot / n:.3f} | last batch loss: {loss.item():.3f}")
