"""GRU intent classifier over token sequences."""
import csv

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(34)
VOCAB, LEN, N_CLASSES = 50, 20, 5


def make_sequences(n, g):
    """Class = which of 5 trigger-token bigrams appears; the rest is random filler."""
    x = torch.randint(10, VOCAB, (n, LEN), generator=g)
    y = torch.randint(0, N_CLASSES, (n,), generator=g)
    pos = torch.randint(0, LEN - 1, (n,), generator=g)
    x[torch.arange(n), pos] = 2 * y
    x[torch.arange(n), pos + 1] = 2 * y + 1
    return x, y


class IntentGRU(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 32)
        self.gru = nn.GRU(32, 64, batch_first=True)
        self.fc = nn.Linear(64, N_CLASSES)
        self.last_hidden = None

    def forward(self, x):
        _, h = self.gru(self.emb(x))
        self.last_hidden = h[-1].detach()
        return self.fc(self.last_hidden)


g = torch.Generator().manual_seed(34)
xtr, ytr = make_sequences(3000, g)
xva, yva = make_sequences(600, g)
dl = DataLoader(TensorDataset(xtr, ytr), batch_size=64, shuffle=True)

model = IntentGRU()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
crit = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["step", "epoch", "loss", "val_loss", "val_accuracy"])
    step = 0
    for epoch in range(6):
        model.train()
        for xb, yb in dl:
            opt.zero_grad()
            loss = crit(model(xb), yb)
            loss.backward()
            opt.step()
            step += 1
            if step % 10 == 0:
                model.eval()
                with torch.no_grad():
                    vo = model(xva)
                    w.writerow([step, epoch, f"{loss.item():.5f}", f"{crit(vo, yva).item():.5f}",
                                f"{(vo.argmax(1) == yva).float().mean().item():.4f}"])
                model.train()
        print(f"epoch {epoch}  loss {loss.item():.4f}")
torch.save(model.last_hidden, "hidden_states.pt")
