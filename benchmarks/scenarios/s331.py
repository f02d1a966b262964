# Supervised instruction fine-tuning (SFT) in miniature, after Firefly-style chat SFT: a tiny decoder-only transformer
# (2 layers, d_model 96, 4 heads, learned positions) on a synthetic instruction set of 480 examples (vocab 48):
# each example is an instruction (a task token + 10 argument tokens) and a response that applies the task
# (copy / reverse / sort the arguments) followed by a 6-token free-text tail that is specific to the example.
# Loss only on response tokens, AdamW lr 2e-3 with 30 warmup steps then constant, batch 8, 5 epochs (60 steps each), examples
# shuffled every epoch; 60 held-out examples. Logs the mean training loss every 10 steps and the validation loss
# and response-part accuracy at the end of each epoch, writes metrics.csv (one row per log line).
import csv
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(331)
V, NARG, TAIL = 48, 10, 6
SEP = 3
L = 1 + NARG + 1 + NARG + TAIL  # task, args, sep, answer, tail


def examples(n):
    task = torch.randint(0, 3, (n,), generator=g)
    args = torch.randint(8, V, (n, NARG), generator=g)
    ans = torch.where(task[:, None] == 0, args, torch.where(task[:, None] == 1, args.flip(1), args.sort(1).values))
    tail = torch.randint(8, V, (n, TAIL), generator=g)
    seq = torch.cat([task[:, None], args, torch.full((n, 1), SEP), ans, tail], 1)
    return seq


data = examples(540)
train, val = data[:480], data[480:]
resp_start = 1 + NARG + 1


class TinyLM(nn.Module):
    def __init__(self, d=96):
        super().__init__()
        self.tok = nn.Embedding(V, d); self.pos = nn.Parameter(torch.randn(L, d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, 4, 4 * d, dropout=0.0, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.ln = nn.LayerNorm(d); self.head = nn.Linear(d, V)
        self.register_buffer('mask', torch.triu(torch.full((L - 1, L - 1), float('-inf')), 1))

    def forward(self, x):
        h = self.tok(x) + self.pos[:x.shape[1]]
        return self.head(self.ln(self.blocks(h, mask=self.mask)))


def lm_loss(model, seq):
    logits = model(seq[:, :-1])
    tgt = seq[:, 1:].clone()
    tgt[:, :resp_start - 1] = -100  # no loss on the instruction
    return F.cross_entropy(logits.reshape(-1, V), tgt.reshape(-1), ignore_index=-100), logits


model = TinyLM()
opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.0)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 30))
rows, step, window = [], 0, []
for epoch in range(1, 6):
    perm = torch.randperm(len(train), generator=g)
    model.train()
    for k in range(0, len(train), 8):
        loss, _ = lm_loss(model, train[perm[k:k + 8]])
        opt.zero_grad(); loss.backward(); opt.step(); sched.step()
        step += 1; window.append(loss.item())
        if step % 10 == 0:
            row = dict(step=step, epoch=epoch, train_loss=sum(window) / len(window), lr=sched.get_last_lr()[0], val_loss='', val_answer_acc='')
            window = []
            if k + 8 >= len(train):
                model.eval()
                with torch.no_grad():
                    vl, lg = lm_loss(model, val)
                    pred = lg.argmax(-1)[:, resp_start - 1:resp_start - 1 + NARG]
                    acc = (pred == val[:, resp_start:resp_start + NARG]).float().mean().item()
                row['val_loss'], row['val_answer_acc'] = vl.item(), acc
                model.train()
            rows.append(row)
            extra = f" | val loss {row['val_loss']:.4f} answer acc {row['val_answer_acc']:.3f}" if row['val_loss'] != '' else ''
            print(f"epoch {epoch} step {step:3d} train loss {row['train_loss']:.4f}{extra}")
with open('metrics.csv', 'w', newline='') as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
