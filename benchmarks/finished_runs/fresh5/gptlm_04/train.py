"""Small causal transformer language model (GPT-style, 2 layers) on synthetic token streams drawn from a sparse
random first-order Markov chain over a 32-token vocabulary; next-token cross-entropy, perplexity and accuracy."""
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, TensorDataset

SEED = 0
LR = 0.001
BATCH_SIZE = 32
EPOCHS = 4
LOG_EVERY = 10
N_TRAIN = 1600
N_VAL = 320
VOCAB = 32
SEQ_LEN = 32
D_MODEL = 64
N_LAYERS = 2
N_HEADS = 4
DROPOUT = 0.1

torch.set_num_threads(1)
torch.manual_seed(SEED)

_hist = []


def info(msg):
    print(msg)


def wrap_epoch(it, epoch):
    return it


def on_step(epoch, step, n_steps, m, lr, gstep):
    _hist.append(m["loss"])
    if gstep % LOG_EVERY == 0:
        d = {k: round(v, 4) for k, v in m.items()}
        d["learning_rate"] = lr
        d["epoch"] = round(epoch - 1 + step / n_steps, 2)
        print(d)


def on_epoch(epoch, n_steps, tr, va, elapsed, lr):
    d = {f"eval_{k}": v for k, v in va.items()}
    d["eval_runtime"] = round(elapsed, 4)
    d["epoch"] = float(epoch)
    print(d)


def on_end(total, tr):
    print({"train_runtime": round(total, 4), "train_samples_per_second": round(len(train_loader.dataset) * EPOCHS / total, 3),
           "train_loss": sum(_hist) / max(len(_hist), 1), "epoch": float(EPOCHS)})


def make_chain(seed):
    g = torch.Generator().manual_seed(seed)
    nxt = torch.randint(0, VOCAB, (VOCAB, 3), generator=g)
    probs = torch.tensor([0.7, 0.2, 0.1])
    return nxt, probs


CHAIN, CHAIN_P = make_chain(SEED + 100)


def sample_seqs(n, seed):
    g = torch.Generator().manual_seed(seed)
    seqs = torch.zeros(n, SEQ_LEN + 1, dtype=torch.long)
    seqs[:, 0] = torch.randint(0, VOCAB, (n,), generator=g)
    for i in range(1, SEQ_LEN + 1):
        choice = torch.multinomial(CHAIN_P.expand(n, 3), 1, generator=g).squeeze(1)
        seqs[:, i] = CHAIN[seqs[:, i - 1], choice]
    return seqs


tr = sample_seqs(N_TRAIN, SEED + 1)
va = sample_seqs(N_VAL, SEED + 2)
train_loader = DataLoader(TensorDataset(tr[:, :-1], tr[:, 1:]), batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(TensorDataset(va[:, :-1], va[:, 1:]), batch_size=160)
info(f"vocab {VOCAB}  seq_len {SEQ_LEN}  train seqs {N_TRAIN}  val seqs {N_VAL}  tokens/epoch {N_TRAIN * SEQ_LEN}")


class TinyGPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D_MODEL)
        self.pos = nn.Embedding(SEQ_LEN, D_MODEL)
        layer = nn.TransformerEncoderLayer(D_MODEL, N_HEADS, 2 * D_MODEL, DROPOUT, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, N_LAYERS)
        self.ln = nn.LayerNorm(D_MODEL)
        self.head = nn.Linear(D_MODEL, VOCAB)
        self.register_buffer("causal", torch.triu(torch.full((SEQ_LEN, SEQ_LEN), float("-inf")), 1))

    def forward(self, idx):
        T = idx.shape[1]
        h = self.tok(idx) + self.pos(torch.arange(T))[None]
        h = self.blocks(h, mask=self.causal[:T, :T], is_causal=True)
        return self.head(self.ln(h))


model = TinyGPT()
optimizer = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.01)
info(f"TinyGPT: {N_LAYERS} layers, d_model {D_MODEL}, {sum(p.numel() for p in model.parameters()):,} params")
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)


def forward_loss(batch):
    x, y = batch
    logits = model(x)
    loss = F.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1))
    acc = (logits.argmax(-1) == y).float().mean().item()
    return loss, {"loss": loss.item(), "acc": acc}


@torch.no_grad()
def evaluate():
    model.eval()
    tot, tacc, n = 0.0, 0.0, 0
    for batch in val_loader:
        loss, m = forward_loss(batch)
        tot += loss.item() * len(batch[0])
        tacc += m["acc"] * len(batch[0])
        n += len(batch[0])
    return {"loss": tot / n, "acc": tacc / n}


t0 = time.time()
gstep = 0
for epoch in range(1, EPOCHS + 1):
    model.train()
    t_ep = time.time()
    sums, seen = {}, 0
    n_steps = len(train_loader)
    for step, batch in enumerate(wrap_epoch(train_loader, epoch), 1):
        optimizer.zero_grad()
        loss, m = forward_loss(batch)
        loss.backward()
        optimizer.step()
        scheduler.step()
        gstep += 1
        bs = len(batch[0])
        for k, v in m.items():
            sums[k] = sums.get(k, 0.0) + v * bs
        seen += bs
        on_step(epoch, step, n_steps, m, optimizer.param_groups[0]["lr"], gstep)
    val = evaluate()
    on_epoch(epoch, n_steps, {k: v / seen for k, v in sums.items()}, val, time.time() - t_ep, optimizer.param_groups[0]["lr"])
on_end(time.time() - t0, {})
