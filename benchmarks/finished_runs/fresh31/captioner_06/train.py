"""Image captioning with a CNN encoder and a GRU decoder on synthetic 16x16 scenes.
Each scene holds two objects, one in the left half and one in the right half; each object is one of 4 shapes
(square, cross, ring, bar) drawn in one of 2 intensities (dim 0.4, bright 1.0), plus Gaussian noise (sd 0.2).
The caption is `<bos> colour shape and colour shape <eos>` (vocabulary of 12 tokens). The CNN encoder's (conv-BatchNorm-ReLU-pool x2)
features initialise the GRU's hidden state and are also fed, projected, with every input token; the decoder is trained with teacher forcing and token cross-entropy.
Metrics: validation token accuracy under teacher forcing and exact-match rate of greedy-decoded captions.
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
N_TRAIN, N_VAL = 2500, 500
LR, BATCH, EPOCHS = 2.0, 32, 10
HIDDEN = 64
NAME = "captioner"
MET = "val_exact"
HIGHER = True

VOCAB = ["<pad>", "<bos>", "<eos>", "and", "dim", "bright", "square", "cross", "ring", "bar", "<unk>", "a"]
TOK = {w: i for i, w in enumerate(VOCAB)}
SHAPES = {
    "square": [[1, 1, 1, 1, 1], [1, 1, 1, 1, 1], [1, 1, 1, 1, 1], [1, 1, 1, 1, 1], [1, 1, 1, 1, 1]],
    "cross": [[0, 0, 1, 0, 0], [0, 0, 1, 0, 0], [1, 1, 1, 1, 1], [0, 0, 1, 0, 0], [0, 0, 1, 0, 0]],
    "ring": [[0, 1, 1, 1, 0], [1, 0, 0, 0, 1], [1, 0, 0, 0, 1], [1, 0, 0, 0, 1], [0, 1, 1, 1, 0]],
    "bar": [[0, 0, 0, 0, 0], [1, 1, 1, 1, 1], [1, 1, 1, 1, 1], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]],
}
SHAPE_T = {k: torch.tensor(v, dtype=torch.float32) for k, v in SHAPES.items()}
SHAPE_NAMES = list(SHAPES)


def make_data(n, g):
    imgs = 0.2 * torch.randn(n, 1, 16, 16, generator=g)
    caps = torch.zeros(n, 7, dtype=torch.long)
    for i in range(n):
        words = ["<bos>"]
        for half in range(2):
            s = SHAPE_NAMES[torch.randint(0, 4, (1,), generator=g).item()]
            bright = torch.rand(1, generator=g).item() < 0.5
            r = torch.randint(0, 11, (1,), generator=g).item()
            cc = half * 8 + torch.randint(0, 3, (1,), generator=g).item()
            imgs[i, 0, r:r + 5, cc:cc + 5] += SHAPE_T[s] * (1.0 if bright else 0.4)
            words += ["bright" if bright else "dim", s]
            if half == 0:
                words.append("and")
        words.append("<eos>")
        caps[i] = torch.tensor([TOK[w] for w in words])
    return imgs, caps


g = torch.Generator().manual_seed(5)
Xtr, Ctr = make_data(N_TRAIN, g)
Xva, Cva = make_data(N_VAL, g)
N_BATCHES = math.ceil(N_TRAIN / BATCH)
LOG_EVERY = 20


class Captioner(nn.Module):
    def __init__(self, hid=HIDDEN, emb=16):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                                 nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2))
        self.proj = nn.Linear(32 * 4 * 4, hid)
        self.feat = nn.Linear(32 * 4 * 4, 32)
        self.emb = nn.Embedding(len(VOCAB), emb)
        self.gru = nn.GRU(emb + 32, hid, batch_first=True)
        self.out = nn.Linear(hid, len(VOCAB))

    def encode(self, x):
        f = self.enc(x).flatten(1)
        return torch.tanh(self.proj(f))[None], F.relu(self.feat(f))

    def step_in(self, tok, feat):
        e = self.emb(tok)
        return torch.cat([e, feat[:, None].expand(-1, e.shape[1], -1)], dim=-1)

    def forward(self, x, cap_in):
        h0, feat = self.encode(x)
        o, _ = self.gru(self.step_in(cap_in, feat), h0)
        return self.out(o)

    def greedy(self, x, T=6):
        h, feat = self.encode(x)
        tok = torch.full((x.shape[0], 1), TOK["<bos>"], dtype=torch.long)
        outs = []
        for _ in range(T):
            o, h = self.gru(self.step_in(tok, feat), h)
            tok = self.out(o).argmax(-1)
            outs.append(tok)
        return torch.cat(outs, 1)


model = Captioner()
opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
crit = nn.CrossEntropyLoss()


import datetime

_T = {}


def _ts():
    return datetime.datetime.now().strftime("%m/%d %H:%M:%S")


def log_start(info):
    print(f"{_ts()} - mmengine - INFO - Checkpoints will be saved to work_dirs/captioner.")
    _T["t"] = time.time()
    _T["t0"] = time.time()
    _T["total"] = info["n_batches"] * info["epochs"]


def log_step(ep, i, n, loss, lr, extra):
    dt = (time.time() - _T["t"]) / LOG_EVERY
    _T["t"] = time.time()
    eta = datetime.timedelta(seconds=int(dt * (_T["total"] - extra["step"])))
    w = len(str(n))
    print(f"{_ts()} - mmengine - INFO - Epoch(train)  [{ep}][{i:>{w}}/{n}]  lr: {lr:.4e}  eta: {eta}  time: {dt:.4f}  "
          f"data_time: 0.0011  memory: 0  grad_norm: {extra['gnorm']:.4f}  loss: {loss:.4f}  loss_ce: {loss:.4f}")


def log_epoch(ep, E, m):
    print(f"{_ts()} - mmengine - INFO - Exp name: captioner_cnn-gru_{BATCH}xb_{EPOCHS}e")
    print(f"{_ts()} - mmengine - INFO - Saving checkpoint at {ep} epochs")
    nvb = math.ceil(N_VAL / 32)
    print(f"{_ts()} - mmengine - INFO - Epoch(val) [{ep}][{nvb}/{nvb}]    caption/exact_match: {m['vm']:.4f}  caption/token_acc: {m['tok_acc']:.4f}  "
          f"caption/loss: {m['vl']:.4f}  data_time: 0.0009  time: 0.0210")
    _T["t"] = time.time()


def log_end(m):
    pass


def run_epochs(model, opt, train_batches, evaluate, step_fn, n_train, n_val, sched=None):
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    log_start({"name": NAME, "n_params": n_params, "n_train": n_train, "n_val": n_val, "lr": LR, "batch": BATCH,
               "epochs": EPOCHS, "n_batches": N_BATCHES, "metric": MET})
    t_start = time.time()
    best = None
    step = 0
    for ep in range(1, EPOCHS + 1):
        t0 = time.time()
        model.train()
        tot, nb = 0.0, 0
        for i, batch in enumerate(train_batches(), 1):
            loss, extra = step_fn(batch)
            step += 1
            tot += loss
            nb += 1
            if i % LOG_EVERY == 0:
                extra = dict(extra or {})
                extra["step"] = step
                extra["elapsed"] = time.time() - t_start
                log_step(ep, i, N_BATCHES, loss, opt.param_groups[0]["lr"], extra)
        if sched is not None:
            sched.step()
        model.eval()
        with torch.no_grad():
            res = evaluate()
        vl, vm = res[0], res[1]
        if best is None or (vm > best if HIGHER else vm < best):
            best = vm
        m = {"ep": ep, "tl": tot / nb, "vl": vl, "vm": vm, "lr": opt.param_groups[0]["lr"], "secs": time.time() - t0,
             "el": time.time() - t_start, "best": best, "nb": nb, "step": step}
        if len(res) > 2:
            m.update(res[2])
        log_epoch(ep, EPOCHS, m)
    log_end(m)


def train_batches():
    perm = torch.randperm(N_TRAIN)
    for i in range(0, N_TRAIN, BATCH):
        idx = perm[i:i + BATCH]
        yield Xtr[idx], Ctr[idx]


def step_fn(batch):
    x, cap = batch
    opt.zero_grad()
    logits = model(x, cap[:, :-1])
    loss = crit(logits.reshape(-1, len(VOCAB)), cap[:, 1:].reshape(-1))
    loss.backward()
    gnorm = nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
    opt.step()
    tacc = (logits.argmax(-1) == cap[:, 1:]).float().mean().item()
    return loss.item(), {"gnorm": float(gnorm), "tacc": tacc}


def evaluate():
    logits = model(Xva, Cva[:, :-1])
    tgt = Cva[:, 1:]
    vl = crit(logits.reshape(-1, len(VOCAB)), tgt.reshape(-1)).item()
    tok_acc = (logits.argmax(-1) == tgt).float().mean().item()
    pred = model.greedy(Xva)
    exact = (pred == tgt).all(1).float().mean().item()
    return vl, exact, {"tok_acc": tok_acc}


run_epochs(model, opt, train_batches, evaluate, step_fn, N_TRAIN, N_VAL)
