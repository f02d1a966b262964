"""CTC "speech-like" recognizer on synthetic sequences: each utterance is a random string of 3-6 tokens from a
6-symbol alphabet; every token is rendered as 2-4 noisy frames of a 16-dim feature prototype, with optional silence
frames between tokens. A bidirectional GRU emits per-frame log-probabilities over blank+6 symbols, trained with CTC."""
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

SEED = 0
LR = 0.003
BATCH_SIZE = 32
EPOCHS = 10
LOG_EVERY = 20
N_TRAIN = 1500
N_VAL = 300
HIDDEN = 48
NOISE = 1.2

torch.set_num_threads(1)
torch.manual_seed(SEED)
np.random.seed(SEED)

from tqdm import tqdm

_bar = None


def info(msg):
    print(msg)


def wrap_epoch(it, epoch):
    global _bar
    _bar = tqdm(it, desc=f"Epoch {epoch}/{EPOCHS}", ncols=100)
    return _bar


def on_step(epoch, step, n_steps, m, lr, gstep):
    if step % 4 == 0 or step == n_steps:
        _bar.set_postfix({k: f"{v:.4f}" for k, v in m.items()} | {"lr": f"{lr:.1e}"})


def on_epoch(epoch, n_steps, tr, va, elapsed, lr, gstep):
    _bar.close()
    print(f"epoch {epoch}: " + ", ".join(f"train_{k}={v:.4f}" for k, v in tr.items()) + ", "
          + ", ".join(f"val_{k}={v:.4f}" for k, v in va.items()))


def on_end(total, tr):
    print(f"finished in {total:.1f}s")


N_SYM = 6
FEAT = 16
PROTO = np.random.default_rng(123).standard_normal((N_SYM + 1, FEAT)) * 1.0


def make_utterance(rng):
    n = rng.integers(3, 7)
    labels = rng.integers(1, N_SYM + 1, size=n)
    frames = []
    for i, lab in enumerate(labels):
        if rng.random() < 0.5 or (i > 0 and labels[i - 1] == lab):
            frames += [PROTO[0]] * int(rng.integers(1, 3))
        frames += [PROTO[lab]] * int(rng.integers(2, 5))
    frames += [PROTO[0]] * int(rng.integers(0, 3))
    x = np.stack(frames) + NOISE * rng.standard_normal((len(frames), FEAT))
    return x.astype(np.float32), labels.astype(np.int64)


class Utterances(Dataset):
    def __init__(self, n, seed):
        rng = np.random.default_rng(seed)
        self.items = [make_utterance(rng) for _ in range(n)]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def collate(batch):
    xs, ys = zip(*batch)
    x_len = torch.tensor([len(x) for x in xs])
    y_len = torch.tensor([len(y) for y in ys])
    x = torch.zeros(len(xs), int(x_len.max()), FEAT)
    for i, xi in enumerate(xs):
        x[i, :len(xi)] = torch.from_numpy(xi)
    y = torch.from_numpy(np.concatenate(ys))
    return x, x_len, y, y_len


train_set = Utterances(N_TRAIN, SEED + 1)
val_set = Utterances(N_VAL, SEED + 2)
train_loader = DataLoader(train_set, batch_size=BATCH_SIZE, shuffle=True, collate_fn=collate)
val_loader = DataLoader(val_set, batch_size=100, collate_fn=collate)
N_VAL_BATCHES = len(val_loader)
info(f"train utterances {len(train_set)}  val utterances {len(val_set)}  "
     f"mean frames {np.mean([len(x) for x, _ in train_set.items]):.1f}")


class CTCRecognizer(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(FEAT, HIDDEN)
        self.rnn = nn.GRU(HIDDEN, HIDDEN, batch_first=True, bidirectional=True)
        self.out = nn.Linear(HIDDEN, N_SYM + 1)

    def forward(self, x):
        h = torch.relu(self.inp(x))
        h, _ = self.rnn(h)
        return self.out(h).log_softmax(-1)


model = CTCRecognizer()
info(f"model params: {sum(p.numel() for p in model.parameters()):,}")
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
ctc = nn.CTCLoss(blank=0, zero_infinity=True)


def forward_loss(batch):
    x, x_len, y, y_len = batch
    logp = model(x)
    loss = ctc(logp.transpose(0, 1), y, x_len, y_len)
    return loss, {"loss": loss.item()}


def edit_distance(a, b):
    d = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        prev, d[0] = d[0], i
        for j in range(1, len(b) + 1):
            cur = min(d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] != b[j - 1]))
            prev, d[j] = d[j], cur
    return d[len(b)]


def greedy_decode(logp, lens):
    best = logp.argmax(-1)
    out = []
    for row, n in zip(best, lens):
        seq, last = [], 0
        for s in row[:n].tolist():
            if s != last and s != 0:
                seq.append(s)
            last = s
        out.append(seq)
    return out


@torch.no_grad()
def evaluate():
    model.eval()
    tot, n, errs, chars = 0.0, 0, 0, 0
    for x, x_len, y, y_len in val_loader:
        logp = model(x)
        tot += ctc(logp.transpose(0, 1), y, x_len, y_len).item() * len(x)
        n += len(x)
        refs = torch.split(y, y_len.tolist())
        for hyp, ref in zip(greedy_decode(logp, x_len), refs):
            errs += edit_distance(hyp, ref.tolist())
            chars += len(ref)
    return {"loss": tot / n, "cer": errs / chars}


t0 = time.time()
gstep = 0
tr = {}
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
        gstep += 1
        bs = len(batch[0])
        for k, v in m.items():
            sums[k] = sums.get(k, 0.0) + v * bs
        seen += bs
        on_step(epoch, step, n_steps, m, optimizer.param_groups[0]["lr"], gstep)
    tr = {k: v / seen for k, v in sums.items()}
    val = evaluate()
    on_epoch(epoch, n_steps, tr, val, time.time() - t_ep, optimizer.param_groups[0]["lr"], gstep)
on_end(time.time() - t0, tr)
