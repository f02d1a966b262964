"""Route short support messages to one of 4 queues with a small token CNN."""
import json
import math

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(63)
rng = np.random.default_rng(63)

VOCAB, SEQ_LEN, N_QUEUES = 200, 20, 4
# every queue has its own 15 characteristic tokens; the rest of each message is shared filler
KEYWORDS = rng.choice(np.arange(4, VOCAB), size=(N_QUEUES, 15), replace=False)
FILLER = np.setdiff1d(np.arange(4, VOCAB), KEYWORDS)


def make_messages(n):
    labels = rng.integers(0, N_QUEUES, n)
    tokens = rng.choice(FILLER, size=(n, SEQ_LEN))
    for i, q in enumerate(labels):
        pos = rng.choice(SEQ_LEN, size=3, replace=False)
        tokens[i, pos] = rng.choice(KEYWORDS[q], size=3)
    return [{"tokens": t, "queue": int(q)} for t, q in zip(tokens, labels)]


class Messages(Dataset):
    def __init__(self, records):
        self.records = records

    def __len__(self):
        return len(self.records)

    def __getitem__(self, i):
        r = self.records[i]
        return {"tokens": torch.as_tensor(r["tokens"], dtype=torch.long), "label": r["queue"]}


class TokenCNN(nn.Module):
    def __init__(self, dim=16, channels=32):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, dim)
        self.conv = nn.Conv1d(dim, channels, kernel_size=3, padding=1)
        self.out = nn.Linear(channels, N_QUEUES)

    def forward(self, tokens):
        h = self.embed(tokens).transpose(1, 2)
        h = torch.relu(self.conv(h)).max(dim=2).values
        return self.out(h)


train_loader = DataLoader(Messages(make_messages(3000)), batch_size=32, shuffle=True)
val_batch = next(iter(DataLoader(Messages(make_messages(500)), batch_size=500)))

HP = dict(lr=0.02, momentum=0.9, max_grad=1e-4, epochs=5)
model = TokenCNN()
optimizer = torch.optim.SGD(model.parameters(), lr=HP["lr"], momentum=HP["momentum"])
loss_fn = nn.CrossEntropyLoss()

with open("metrics.jsonl", "w") as log:
    step = 0
    for epoch in range(HP["epochs"]):
        model.train()
        for batch in train_loader:
            logits = model(batch["tokens"])
            loss = loss_fn(logits, batch["label"])
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_value_(model.parameters(), HP["max_grad"])
            optimizer.step()
            if step % 10 == 0:
                model.eval()
                with torch.no_grad():
                    vlogits = model(val_batch["tokens"])
                    vloss = loss_fn(vlogits, val_batch["label"]).item()
                    vacc = (vlogits.argmax(1) == val_batch["label"]).float().mean().item()
                model.train()
                log.write(json.dumps({"step": step, "epoch": epoch, "loss": round(loss.item(), 5),
                                      "val_loss": round(vloss, 5), "val_accuracy": round(vacc, 4)}) + "\n")
            step += 1
        print(f"epoch {epoch}  loss {loss.item():.4f}  val loss {vloss:.4f}  val acc {vacc:.3f}")
print(f"chance-level loss: {math.log(N_QUEUES):.4f}")
