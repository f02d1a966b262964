"""Support-ticket router: a GRU reads the ticket's token ids and picks one of 4 queues."""
import csv
import math
import random

import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_sequence

random.seed(83)
torch.manual_seed(83)

VOCAB = 300
QUEUES = ["billing", "outage", "account", "shipping"]
# each queue has its own handful of keywords; everything else is shared filler
KEYWORDS = [list(range(10 + 15 * q, 25 + 15 * q)) for q in range(len(QUEUES))]
FILLER = list(range(80, VOCAB))


def make_ticket():
    q = random.randrange(len(QUEUES))
    length = random.randint(8, 30)
    toks = [random.choice(KEYWORDS[q]) if random.random() < 0.3 else random.choice(FILLER) for _ in range(length)]
    return torch.tensor(toks), q


def collate(batch):
    seqs, labels = zip(*batch)
    lengths = torch.tensor([len(s) for s in seqs])
    return pad_sequence(seqs, batch_first=True, padding_value=0), lengths, torch.tensor(labels)


class TicketRouter(nn.Module):
    def __init__(self, emb=32, hidden=64):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, emb, padding_idx=0)
        self.gru = nn.GRU(emb, hidden, batch_first=True)
        self.out = nn.Linear(hidden, len(QUEUES))

    def forward(self, tokens, lengths):
        packed = pack_padded_sequence(self.embed(tokens), lengths, batch_first=True, enforce_sorted=False)
        _, h = self.gru(packed)
        return self.out(h[-1])


train = [make_ticket() for _ in range(2400)]
val = collate([make_ticket() for _ in range(500)])

model = TicketRouter()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-7, weight_decay=0.01)
criterion = nn.CrossEntropyLoss()
BATCH = 32

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "loss", "val_loss", "val_acc"])
    step = 0
    for epoch in range(3):
        random.shuffle(train)
        for i in range(0, len(train), BATCH):
            tokens, lengths, labels = collate(train[i:i + BATCH])
            optimizer.zero_grad()
            loss = criterion(model(tokens, lengths), labels)
            loss.backward()
            optimizer.step()
            if step % 10 == 0:
                model.eval()
                with torch.no_grad():
                    vout = model(val[0], val[1])
                    vloss = criterion(vout, val[2]).item()
                    vacc = (vout.argmax(1) == val[2]).float().mean().item()
                model.train()
                w.writerow([step, epoch, f"{loss.item():.5f}", f"{vloss:.5f}", f"{vacc:.4f}"])
            step += 1
        print(f"epoch {epoch}  loss {loss.item():.4f}  val loss {vloss:.4f}  val acc {vacc:.3f}")
print(f"ln({len(QUEUES)}) = {math.log(len(QUEUES)):.4f}")
