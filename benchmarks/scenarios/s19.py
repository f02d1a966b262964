"""Tiny attention classifier: which of four keyword tokens occurs in the sequence."""
import csv
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

VOCAB, SEQ, D_MODEL, N_HEADS, N_CLASSES = 32, 16, 32, 4, 4
KEYWORDS = torch.tensor([1, 2, 3, 4])


class KeywordSequences(Dataset):
    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        self.tokens = torch.randint(5, VOCAB, (n, SEQ), generator=g)
        self.labels = torch.randint(0, N_CLASSES, (n,), generator=g)
        pos = torch.randint(0, SEQ, (n,), generator=g)
        self.tokens[torch.arange(n), pos] = KEYWORDS[self.labels]

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.tokens[i], self.labels[i]


class TinyTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D_MODEL)
        self.pos = nn.Parameter(torch.randn(SEQ, D_MODEL) * 0.02)
        self.attn = nn.MultiheadAttention(D_MODEL, N_HEADS, batch_first=True)
        self.norm1 = nn.LayerNorm(D_MODEL)
        self.ff = nn.Sequential(nn.Linear(D_MODEL, 4 * D_MODEL), nn.GELU(), nn.Linear(4 * D_MODEL, D_MODEL))
        self.norm2 = nn.LayerNorm(D_MODEL)
        self.cls = nn.Linear(D_MODEL, N_CLASSES)

    def forward(self, tokens):
        h = self.embed(tokens) + self.pos
        a, _ = self.attn(h, h, h, need_weights=False)
        h = self.norm1(h + a)
        h = self.norm2(h + self.ff(h))
        return self.cls(h.mean(dim=1))


def cosine_with_warmup(step, warmup, total):
    if step < warmup:
        return (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return 0.5 * (1 + math.cos(math.pi * progress))


def main():
    torch.manual_seed(19)
    train_dl = DataLoader(KeywordSequences(3000, 0), batch_size=64, shuffle=True)
    val_dl = DataLoader(KeywordSequences(500, 1), batch_size=250)

    model = TinyTransformer()
    epochs = 5
    total_steps = epochs * len(train_dl)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: cosine_with_warmup(s, 20, total_steps))

    with open("metrics.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["step", "epoch", "loss", "val_loss", "val_accuracy", "lr"])
        step = 0
        for epoch in range(epochs):
            model.train()
            for tok, lab in train_dl:
                loss = F.cross_entropy(model(tok), lab)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                sched.step()
                step += 1
                if step % 10 == 0:
                    model.eval()
                    with torch.no_grad():
                        vt, vl = next(iter(val_dl))
                        vo = model(vt)
                        vloss = F.cross_entropy(vo, vl).item()
                        vacc = (vo.argmax(-1) == vl).float().mean().item()
                    model.train()
                    w.writerow([step, epoch, f"{loss.item():.5f}", f"{vloss:.5f}", f"{vacc:.4f}", f"{sched.get_last_lr()[0]:.3e}"])
            print(f"epoch {epoch}  loss {loss.item():.4f}  val_loss {vloss:.4f}  val_acc {vacc:.3f}")


if __name__ == "__main__":
    main()
