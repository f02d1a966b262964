"""GRU encoder-decoder (no attention) trained with teacher forcing to reverse digit sequences:
src = 7 random digits, target = the same digits reversed followed by <eos>."""
import math
import random
import time
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

SEED = 0
LR = 3e-3
BATCH_SIZE = 64
EPOCHS = 10
LOG_EVERY = 10
SEQ_LEN = 7
EMB = 32
HIDDEN = 128
TEACHER_FORCING = 0.5
N_TRAIN = 3000
N_VAL = 500
PAD, BOS, EOS = 0, 1, 2
VOCAB = 13  # pad, bos, eos + digits 0-9 (ids 3..12)

torch.set_num_threads(1)
torch.manual_seed(SEED)
random.seed(SEED)


def make_pairs(n, seed):
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(3, VOCAB, (n, SEQ_LEN), generator=g)
    tgt = torch.cat([src.flip(1), torch.full((n, 1), EOS)], dim=1)
    return src, tgt


src_tr, tgt_tr = make_pairs(N_TRAIN, SEED + 1)
src_va, tgt_va = make_pairs(N_VAL, SEED + 2)
train_loader = DataLoader(TensorDataset(src_tr, tgt_tr), batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(TensorDataset(src_va, tgt_va), batch_size=250)
steps_per_epoch = len(train_loader)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, EMB, padding_idx=PAD)
        self.rnn = nn.GRU(EMB, HIDDEN, batch_first=True, dropout=0.1)

    def forward(self, src):
        _, h = self.rnn(self.emb(src))
        return h


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, EMB, padding_idx=PAD)
        self.rnn = nn.GRU(EMB, HIDDEN, batch_first=True)
        self.out = nn.Linear(HIDDEN, VOCAB)

    def forward(self, tok, h):
        o, h = self.rnn(self.emb(tok).unsqueeze(1), h)
        return self.out(o.squeeze(1)), h


class Seq2Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.decoder = Decoder()

    def forward(self, src, tgt, teacher_forcing=0.0):
        h = self.encoder(src)
        tok = torch.full((src.size(0),), BOS, dtype=torch.long)
        outs = []
        for t in range(tgt.size(1)):
            logits, h = self.decoder(tok, h)
            outs.append(logits)
            use_teacher = random.random() < teacher_forcing
            tok = tgt[:, t] if use_teacher else logits.argmax(-1)
        return torch.stack(outs, dim=1)


model = Seq2Seq()
print(model)
print(f"params: {sum(p.numel() for p in model.parameters()):,}")
criterion = nn.CrossEntropyLoss(ignore_index=PAD)
optimizer = torch.optim.Adam(model.parameters(), lr=LR)


def forward_loss(batch, teacher_forcing=TEACHER_FORCING):
    src, tgt = batch
    logits = model(src, tgt, teacher_forcing)
    loss = criterion(logits.reshape(-1, VOCAB), tgt.reshape(-1))
    tok_acc = (logits.argmax(-1) == tgt).float().mean().item()
    return loss, {"tok_acc": tok_acc}, len(src)


@torch.no_grad()
def evaluate():
    model.eval()
    tot_loss, tot_acc, tot_seq, tot_n = 0.0, 0.0, 0.0, 0
    for src, tgt in val_loader:
        logits = model(src, tgt, teacher_forcing=0.0)
        n = len(src)
        tot_loss += criterion(logits.reshape(-1, VOCAB), tgt.reshape(-1)).item() * n
        pred = logits.argmax(-1)
        tot_acc += (pred == tgt).float().mean().item() * n
        tot_seq += (pred == tgt).all(dim=1).float().sum().item()
        tot_n += n
    return tot_loss / tot_n, {"tok_acc": tot_acc / tot_n, "seq_acc": tot_seq / tot_n}

global_step = 0
t_start = time.time()
tr_loss_sum, tr_loss_n = 0.0, 0
all_loss, all_n = 0.0, 0
for epoch in range(1, EPOCHS + 1):
    model.train()
    for step, batch in enumerate(train_loader, 1):
        loss, metrics, n = forward_loss(batch)
        loss.backward()
        optimizer.step()
        global_step += 1
        tr_loss_sum += loss.item()
        tr_loss_n += 1
        all_loss += loss.item()
        all_n += 1
        if global_step % LOG_EVERY == 0:
            print({"loss": round(tr_loss_sum / tr_loss_n, 4), "learning_rate": optimizer.param_groups[0]["lr"], "epoch": round(global_step / steps_per_epoch, 2)})
            tr_loss_sum, tr_loss_n = 0.0, 0
    val_loss, val_metrics = evaluate()
    out = {"eval_loss": round(val_loss, 4)}
    out.update({f"eval_{k}": round(v, 4) for k, v in val_metrics.items()})
    out["epoch"] = float(epoch)
    print(out)
runtime = time.time() - t_start
print({"train_runtime": round(runtime, 4), "train_samples_per_second": round(EPOCHS * len(train_loader.dataset) / runtime, 3), "train_steps_per_second": round(global_step / runtime, 3), "train_loss": all_loss / all_n, "epoch": float(EPOCHS)})
