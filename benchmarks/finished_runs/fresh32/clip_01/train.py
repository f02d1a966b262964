"""CLAP/CLIP-style contrastive audio-caption pre-training on synthetic sound clips.
A clip is 256 samples of a tone with one of 6 pitches, 4 pulse rates (amplitude envelopes) and 3 timbres (sine,
square-ish, saw-ish harmonic mixes), random phase and loudness, plus white noise; its caption is 4-6 tokens drawn
from a 40-word vocabulary: one of two synonyms for each attribute value in random order plus filler words ("a",
"sound", "of", ...), so the text encoder must learn which words matter. Audio encoder: strided Conv1d stack with
BatchNorm and ReLU, global average pooling, projection to 32-D; text encoder: token embeddings, mean pooling, MLP,
projection to 32-D; both L2-normalised; training clips get a random circular time shift and extra noise; learnable logit scale (init 1/0.07 as in CLIP, clamped at 100); symmetric
InfoNCE loss over the batch; validation: in-batch loss and audio->text retrieval R@1 over 400 held-out pairs, where a
retrieved caption counts when it names the same pitch, rhythm and timbre (72 combinations, chance about 0.02).
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
N_TRAIN, N_VAL, T = 2000, 400, 256
LR, BATCH, EPOCHS = 0.001, 64, 8
VOCAB = ["<pad>", "a", "the", "sound", "of", "with", "and", "clip", "tone", "noise",
         "deep", "low", "warm", "mellow", "mid", "middle", "bright", "high", "shrill", "piercing", "tiny", "squeaky",
         "steady", "constant", "slow", "lazy", "quick", "fast", "rapid", "buzzing",
         "pure", "soft", "hollow", "reedy", "harsh", "raspy", "x1", "x2", "x3", "x4"]
PITCH_W = [("deep", "low"), ("warm", "mellow"), ("mid", "middle"), ("bright", "high"), ("shrill", "piercing"), ("tiny", "squeaky")]
RHY_W = [("steady", "constant"), ("slow", "lazy"), ("quick", "fast"), ("rapid", "buzzing")]
TIM_W = [("pure", "soft"), ("hollow", "reedy"), ("harsh", "raspy")]
FILL = ["a", "the", "sound", "of", "with", "and", "clip", "tone", "noise"]
W2I = {w: i for i, w in enumerate(VOCAB)}
MAXLEN = 7

g = torch.Generator().manual_seed(5)


def make_pairs(n):
    t = torch.arange(T).float() / T
    p = torch.randint(0, 6, (n,), generator=g)
    r = torch.randint(0, 4, (n,), generator=g)
    m = torch.randint(0, 3, (n,), generator=g)
    f0 = (6 + 4.5 * p.float())[:, None]
    ph = 2 * math.pi * torch.rand(n, 1, generator=g)
    base = 2 * math.pi * f0 * t[None, :] + ph
    w = torch.sin(base)
    w = w + (m == 1).float()[:, None] * (torch.sin(3 * base) / 3 + torch.sin(5 * base) / 5)
    w = w + (m == 2).float()[:, None] * (-torch.sin(2 * base) / 2 + torch.sin(3 * base) / 3 - torch.sin(4 * base) / 4)
    rate = torch.tensor([0.0, 3.0, 7.0, 13.0])[r][:, None]
    env = torch.where(rate > 0, 0.5 + 0.5 * torch.sign(torch.sin(2 * math.pi * rate * t[None, :])), torch.ones(1))
    loud = 0.5 + torch.rand(n, 1, generator=g)
    x = loud * w * env + 0.6 * torch.randn(n, T, generator=g)
    caps = torch.zeros(n, MAXLEN, dtype=torch.long)
    for i in range(n):
        words = [PITCH_W[p[i]][int(torch.randint(0, 2, (1,), generator=g))],
                 RHY_W[r[i]][int(torch.randint(0, 2, (1,), generator=g))],
                 TIM_W[m[i]][int(torch.randint(0, 2, (1,), generator=g))]]
        k = int(torch.randint(1, 4, (1,), generator=g))
        words += [FILL[int(j)] for j in torch.randint(0, len(FILL), (k,), generator=g)]
        order = torch.randperm(len(words), generator=g)
        for j, o in enumerate(order.tolist()):
            caps[i, j] = W2I[words[o]]
    combo = p * 12 + r * 3 + m
    return x[:, None, :], caps, combo


Atr, Ctr, Ktr = make_pairs(N_TRAIN)
Ava, Cva, Kva = make_pairs(N_VAL)
N_BATCHES = N_TRAIN // BATCH


class AudioEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv1d(1, 32, 9, stride=4, padding=4), nn.BatchNorm1d(32), nn.ReLU(),
            nn.Conv1d(32, 48, 9, stride=2, padding=4), nn.BatchNorm1d(48), nn.ReLU(),
            nn.Conv1d(48, 64, 9, stride=2, padding=4), nn.BatchNorm1d(64), nn.ReLU(),
            nn.Conv1d(64, 64, 5, stride=2, padding=2), nn.BatchNorm1d(64), nn.ReLU(),
        )
        self.proj = nn.Linear(64, 32)

    def forward(self, x):
        return self.proj(self.net(x).mean(dim=2))


class TextEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(len(VOCAB), 48, padding_idx=0)
        self.mlp = nn.Sequential(nn.Linear(48, 64), nn.ReLU(), nn.Linear(64, 32))

    def forward(self, c):
        mask = (c > 0).float()[:, :, None]
        h = (self.emb(c) * mask).sum(1) / mask.sum(1)
        return self.mlp(h)


class CLAP(nn.Module):
    def __init__(self):
        super().__init__()
        self.audio = AudioEncoder()
        self.text = TextEncoder()
        self.logit_scale = nn.Parameter(torch.tensor(math.log(1 / 0.07)))

    def forward(self, a, c):
        za = F.normalize(self.audio(a), dim=1)
        zt = F.normalize(self.text(c), dim=1)
        return za, zt


def clip_loss(za, zt, scale):
    logits = scale * za @ zt.T
    lbl = torch.arange(len(za))
    return 0.5 * (F.cross_entropy(logits, lbl) + F.cross_entropy(logits.T, lbl))


model = CLAP()
opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.01)
LOG_EVERY = 10
import datetime


def _i(msg):
    print(f"{datetime.datetime.now():%Y-%m-%d,%H:%M:%S} | INFO | {msg}")


def log_start(info):
    _i("Running with a single process. Device cpu.")
    _i("Model:")
    _i("Params:")
    _i(f"  batch_size: {info['batch']}\n  epochs: {info['epochs']}\n  lr: {info['lr']}\n  wd: 0.01\n  model: clap-tiny\n  precision: fp32")
    _i(f"Start epoch 0")


def log_step(ep, i, n, loss, lr, extra):
    done = i * BATCH
    _i(f"Train Epoch: {ep - 1} [{done:>5}/{N_TRAIN} ({100 * i / n:.0f}%)] Data (t): {extra['data_time']:.3f} Batch (t): {extra['iter_time']:.3f}, "
       f"{BATCH / max(extra['iter_time'], 1e-9):.3f}/s LR: {lr:.6f} Logit Scale: {extra['scale']:.3f} Contrastive_loss: {loss:.4f} ({loss:.4f}) Loss: {loss:.4f} ({loss:.4f})")


def log_epoch(ep, E, m):
    _i(f"Eval Epoch: {ep} audio_to_text_R@1: {m['vm']:.4f}\tclip_val_loss: {m['vl']:.4f}\tepoch: {ep}.0000\tnum_samples: {N_VAL}.0000")
    if ep < E:
        _i(f"Start epoch {ep}")


def log_end(m, hist):
    pass


def train_batches():
    perm = torch.randperm(N_TRAIN)
    for i in range(0, N_BATCHES * BATCH, BATCH):
        idx = perm[i:i + BATCH]
        a = torch.roll(Atr[idx], shifts=int(torch.randint(0, T, (1,))), dims=2)  # time-shift augmentation
        yield a + 0.3 * torch.randn_like(a), Ctr[idx]


def step_fn(batch):
    a, c = batch
    opt.zero_grad()
    za, zt = model(a, c)
    loss = clip_loss(za, zt, model.logit_scale.exp())
    loss.backward()
    opt.step()
    with torch.no_grad():
        model.logit_scale.clamp_(0, math.log(100))
    acc = ((za @ zt.T).argmax(1) == torch.arange(len(za))).float().mean().item()
    return loss.item(), {"acc": acc, "scale": model.logit_scale.exp().item()}


def evaluate():
    za, zt = model(Ava, Cva)
    vl = 0.0
    for i in range(0, N_VAL, 100):
        vl += clip_loss(za[i:i + 100], zt[i:i + 100], model.logit_scale.exp()).item() / (N_VAL // 100)
    best = (za @ zt.T).argmax(1)
    r1 = (Kva[best] == Kva).float().mean().item()
    return vl, r1, {"scale": model.logit_scale.exp().item()}


def run_epochs():
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    log_start({"n_params": n_params, "n_train": N_TRAIN, "n_val": N_VAL, "lr": LR, "batch": BATCH, "epochs": EPOCHS,
               "n_batches": N_BATCHES})
    t_start = time.time()
    best = None
    step = 0
    hist = []
    for ep in range(1, EPOCHS + 1):
        t0 = time.time()
        model.train()
        tot, nb, accs = 0.0, 0, 0.0
        t_data = 0.0
        t_last = time.time()
        for i, batch in enumerate(train_batches(), 1):
            t_data += time.time() - t_last
            loss, extra = step_fn(batch)
            step += 1
            tot += loss
            nb += 1
            accs += extra.get("acc", 0.0)
            if i % LOG_EVERY == 0 or i == N_BATCHES:
                extra = dict(extra)
                extra.update({"step": step, "elapsed": time.time() - t_start, "data_time": t_data / i,
                              "iter_time": (time.time() - t0) / i})
                log_step(ep, i, N_BATCHES, loss, opt.param_groups[0]["lr"], extra)
            t_last = time.time()
        model.eval()
        with torch.no_grad():
            res = evaluate()
        vl, vm = res[0], res[1]
        improved = best is None or vm > best
        if improved:
            best = vm
        m = {"ep": ep, "tl": tot / nb, "ta": accs / nb, "vl": vl, "vm": vm, "lr": opt.param_groups[0]["lr"],
             "secs": time.time() - t0, "el": time.time() - t_start, "best": best, "improved": improved, "step": step,
             "nb": nb}
        if len(res) > 2:
            m.update(res[2])
        hist.append(m)
        log_epoch(ep, EPOCHS, m)
    log_end(m, hist)


run_epochs()
