# Adding-problem sequence regression with an Elman RNN.
import csv
import time

import torch
import torch.nn as nn

torch.manual_seed(3)

SEQ_LEN = 100
HIDDEN = 64
BATCH = 32
STEPS = 200


def make_batch(batch, seq_len):
    values = torch.rand(batch, seq_len, 1)
    picks = torch.rand(batch, seq_len).argsort(dim=1)[:, :2]
    markers = torch.zeros(batch, seq_len, 1).scatter_(1, picks.unsqueeze(-1), 1.0)
    target = (values * markers).sum(dim=(1, 2))
    return torch.cat([values, markers], dim=2), target


class AdderRNN(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.rnn = nn.RNN(2, hidden, batch_first=True)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x):
        h, _ = self.rnn(x)
        return self.out(h[:, -1]).squeeze(-1)


model = AdderRNN(HIDDEN)
opt = torch.optim.SGD(model.parameters(), lr=0.15, momentum=0.9)
mse = nn.MSELoss()

with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["step", "loss", "grad_norm", "step_time"])
    for step in range(STEPS):
        t0 = time.perf_counter()
        x, y = make_batch(BATCH, SEQ_LEN)
        pred = model(x)
        loss = mse(pred, y)
        opt.zero_grad()
        loss.backward()
        gn = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters())).item()
        opt.step()
        dt = time.perf_counter() - t0
        wr.writerow([step, f"{loss.item():.6g}", f"{gn:.6g}", f"{dt:.4f}"])
        if step % 10 == 0:
            print(f"step {step:4d}  mse {loss.item():.4f}  |g| {gn:.3f}")
print("finished", STEPS, "steps")
