"""A tiny BERT-style masked language model on sequences from a sparse Markov chain.
30 tokens; each token has three possible successors (probabilities 0.6, 0.3, 0.1); sequences of 20 tokens.
15% of the positions are replaced by [MASK] (id 30) and the model predicts the original token there (loss only on
masked positions, ignore_index -100). Model: token + learned position embeddings (d 64, N(0, 1) init), a 2-layer Transformer
encoder (4 heads, ff 128, dropout 0.1), LayerNorm and a linear output over the 30 tokens. Adam; metric: accuracy on
the masked positions of a fixed masked validation set (unigram guess about 0.05).
"""
import math
import random
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
random.seed(0)
NAME = "mlm"
MET = "val_acc"
HIGHER = True
LR, BATCH, EPOCHS = 2e-3, 64, 10
V, SEQ_LEN, D, LAYERS, HEADS, FF, DROPOUT = 30, 20, 64, 2, 4, 128, 0.1
MASK_ID, MASK_P = 30, 0.15
N_TRAIN, N_VAL = 3000, 800
N_BATCHES = N_TRAIN // BATCH
LOG_EVERY = 20

def log_start(info):
    print(f"Trejnado de {info['name']}: {info['n_params']} parametroj, {info['n_train']} ekzemploj")


def log_step(ep, i, n, loss, lr):
    pass


def log_epoch(ep, E, m):
    print(f"Epoko {ep}/{E}: trejna perdo {m['tl']:.4f}, valida perdo {m['vl']:.4f}, "
          f"valida precizeco {m['vm']:.4f}, lernrapido {m['lr']:.2g}")


def log_end(m):
    print(f"Fino. Plej bona valida precizeco: {m['best']:.4f}")


def run_epochs(model, opt, train_batches, evaluate, step_fn, n_train, n_val, after_epoch=None):
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    log_start({"name": NAME, "n_params": n_params, "n_train": n_train, "n_val": n_val, "lr": LR, "batch": BATCH,
               "epochs": EPOCHS})
    t_start = time.time()
    best, prev_vl = None, None
    for ep in range(1, EPOCHS + 1):
        t0 = time.time()
        model.train()
        tot, nb = 0.0, 0
        for i, batch in enumerate(train_batches(), 1):
            loss = step_fn(batch)
            tot += loss
            nb += 1
            if i % LOG_EVERY == 0:
                log_step(ep, i, N_BATCHES, loss, opt.param_groups[0]["lr"])
        model.eval()
        with torch.no_grad():
            res = evaluate()
        vl, vm = res[0], res[1]
        if best is None or (vm > best if HIGHER else vm < best):
            best = vm
        m = {"tl": tot / nb, "vl": vl, "vm": vm, "lr": opt.param_groups[0]["lr"], "secs": time.time() - t0,
             "el": time.time() - t_start, "best": best, "prev_vl": prev_vl, "nb": nb}
        if len(res) > 2:
            m.update(res[2])
        log_epoch(ep, EPOCHS, m)
        prev_vl = vl
        if after_epoch is not None:
            after_epoch()
    m["el"] = time.time() - t_start
    log_end(m)


gen = torch.Generator().manual_seed(3)
succ = torch.stack([torch.randperm(V, generator=gen)[:3] for _ in range(V)])
probs = torch.tensor([0.6, 0.3, 0.1])


def sample(n):
    x = torch.zeros(n, SEQ_LEN, dtype=torch.long)
    x[:, 0] = torch.randint(0, V, (n,), generator=gen)
    for t in range(1, SEQ_LEN):
        k = torch.multinomial(probs.expand(n, 3), 1, generator=gen).squeeze(1)
        x[:, t] = succ[x[:, t - 1], k]
    return x


def mask_tokens(x, g=None):
    m = torch.rand(x.shape, generator=g) < MASK_P
    labels = torch.full_like(x, -100)
    labels[m] = x[m]
    inp = x.clone()
    inp[m] = MASK_ID
    return inp, labels


x_train = sample(N_TRAIN)
x_val = sample(N_VAL)
val_inp, val_labels = mask_tokens(x_val, torch.Generator().manual_seed(99))


class TinyBert(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(V + 1, D)
        self.pos = nn.Parameter(torch.randn(SEQ_LEN, D))
        layer = nn.TransformerEncoderLayer(D, HEADS, FF, dropout=DROPOUT, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, LAYERS)
        self.norm = nn.LayerNorm(D)
        self.head = nn.Linear(D, V)

    def forward(self, x):
        h = self.encoder(self.tok(x) + self.pos)
        return self.head(self.norm(h))


model = TinyBert()
opt = torch.optim.Adam(model.parameters(), lr=LR)


def train_batches():
    perm = torch.randperm(N_TRAIN)
    for k in range(0, N_TRAIN - BATCH + 1, BATCH):
        yield mask_tokens(x_train[perm[k:k + BATCH]])


def step_fn(batch):
    inp, labels = batch
    opt.zero_grad()
    logits = model(inp)
    loss = F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1), ignore_index=-100)
    loss.backward()
    opt.step()
    return loss.item()


def evaluate():
    logits = model(val_inp)
    loss = F.cross_entropy(logits.reshape(-1, V), val_labels.reshape(-1), ignore_index=-100)
    m = val_labels != -100
    acc = (logits.argmax(-1)[m] == val_labels[m]).float().mean().item()
    return loss.item(), acc


run_epochs(model, opt, train_batches, evaluate, step_fn, N_TRAIN, N_VAL)
