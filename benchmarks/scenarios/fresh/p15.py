"""Tiny transformer encoder that classifies token sequences by which motif they contain."""
import json
import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.set_num_threads(1)
torch.manual_seed(15)

VOCAB, SEQ_LEN, N_CLASSES = 40, 24, 4
MOTIFS = [torch.tensor([5, 9, 13]), torch.tensor([7, 7, 21]), torch.tensor([30, 2, 11]), torch.tensor([17, 33, 4])]

hparams = {
    "d_model": 48, "nhead": 4, "layers": 2, "batch_size": 32, "epochs": 5,
    "optimizer": "adamw", "lr": 3e-3, "weight_decay": 0.01, "warmup_frac": 0.05,
}


class MotifSeqs(Dataset):
    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        self.x = torch.randint(1, VOCAB, (n, SEQ_LEN), generator=g)
        self.y = torch.randint(0, N_CLASSES, (n,), generator=g)
        pos = torch.randint(0, SEQ_LEN - 3, (n,), generator=g)
        for i in range(n):
            self.x[i, pos[i]:pos[i] + 3] = MOTIFS[self.y[i]]

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


class MotifTransformer(nn.Module):
    def __init__(self, d, nhead, layers):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, d)
        self.pos = nn.Parameter(torch.randn(1, SEQ_LEN, d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, nhead, 4 * d, dropout=0.1, batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(d, N_CLASSES)

    def forward(self, x):
        h = self.enc(self.tok(x) + self.pos)
        return self.head(h.mean(1))


train_dl = DataLoader(MotifSeqs(2000, 1), batch_size=hparams["batch_size"], shuffle=True)
val_dl = DataLoader(MotifSeqs(400, 2), batch_size=200)
model = MotifTransformer(hparams["d_model"], hparams["nhead"], hparams["layers"])
total_steps = hparams["epochs"] * len(train_dl)
warmup = int(hparams["warmup_frac"] * total_steps)
opt = torch.optim.AdamW(model.parameters(), lr=hparams["lr"], weight_decay=hparams["weight_decay"])


def lr_lambda(s):
    if s < warmup:
        return (s + 1) / warmup
    return 0.5 * (1 + math.cos(math.pi * (s - warmup) / max(1, total_steps - warmup))) * 1e-3


sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda)
crit = nn.CrossEntropyLoss()

step = 0
with open("metrics.jsonl", "w") as f:
    for epoch in range(hparams["epochs"]):
        model.train()
        for x, y in train_dl:
            out = model(x)
            loss = crit(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            if step % 10 == 0:
                f.write(json.dumps({"step": step, "epoch": epoch, "loss": round(loss.item(), 5),
                                    "lr": sched.get_last_lr()[0]}) + "\n")
        model.eval()
        vl, vc, vn = 0.0, 0, 0
        with torch.no_grad():
            for x, y in val_dl:
                o = model(x)
                vl += crit(o, y).item() * len(y)
                vc += (o.argmax(1) == y).sum().item()
                vn += len(y)
        f.write(json.dumps({"step": step, "epoch": epoch, "loss": round(loss.item(), 5), "val_loss": round(vl / vn, 5),
                            "val_accuracy": round(vc / vn, 4), "lr": sched.get_last_lr()[0]}) + "\n")
        print(f"epoch {epoch}  loss {loss.item():.4f}  val_loss {vl/vn:.4f}  val_acc {vc/vn:.3f}  lr {sched.get_last_lr()[0]:.2e}")
