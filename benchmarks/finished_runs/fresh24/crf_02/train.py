"""Linear-chain CRF tagger: synthetic 14-token sentences from a hidden Markov model over 6 tags in which each tag is
followed by its successor tag with probability 0.7, and each tag emits words from a 48-word vocabulary where every word
is shared by two tags (so single tokens are ambiguous). Emission scores from a per-token MLP (24-d word embeddings,
48 hidden units, tanh), a learned 6x6 transition matrix plus start/end scores, negative log-likelihood from the forward
algorithm, Viterbi decoding, Adam. 5% of training tags resampled. Metric: validation token accuracy (chance 1/6)."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "crf"
LR, BATCH, EPOCHS, N_TRAIN, N_VAL, WD = 0.002, 8, 5, 3000, 600, 0.0
K, V, L = 6, 48, 14

def _j():
    return time.strftime("%b %d %H:%M:%S", time.gmtime())


def log_start(info):
    print(f"{_j()} gpu-box systemd[1]: Started {info['name']}-train.service - CRF tagger training.")
    print(f"{_j()} gpu-box python3[4242]: model params={info['n_params']} batch={info['batch']} lr={info['lr']}")


def log_step(ep, i, n, loss, lr, gstep, el):
    if gstep % 75 == 0:
        print(f"{_j()} gpu-box python3[4242]: step {gstep}: nll {loss:.4f}")


def log_epoch(ep, E, m):
    print(f"{_j()} gpu-box python3[4242]: epoch {ep}/{E} done: train nll {m['tl']:.4f}, dev nll {m['vl']:.4f}, dev token acc {m['vm']:.4f}")


def log_end(m):
    print(f"{_j()} gpu-box systemd[1]: crf-train.service: Deactivated successfully.")
    print(f"{_j()} gpu-box systemd[1]: crf-train.service: Consumed {m['el']:.3f}s CPU time.")


gen = torch.Generator().manual_seed(11)
trans = torch.full((K, K), 0.3 / (K - 1))
for a in range(K):
    trans[a, (a + 1) % K] = 0.7
emit = torch.zeros(K, V)
for w in range(V):
    a = w % K
    b = (a + 1 + (w // K) % (K - 1)) % K
    emit[a, w] += 1.0
    emit[b, w] += 0.85
emit = emit / emit.sum(1, keepdim=True)


def make(n, noise):
    tags = torch.zeros(n, L, dtype=torch.long)
    tags[:, 0] = torch.randint(0, K, (n,), generator=gen)
    for t in range(1, L):
        tags[:, t] = torch.multinomial(trans[tags[:, t - 1]], 1, generator=gen).squeeze(1)
    words = torch.multinomial(emit[tags.view(-1)], 1, generator=gen).view(n, L)
    if noise > 0:
        flip = torch.rand(n, L, generator=gen) < noise
        tags = torch.where(flip, torch.randint(0, K, (n, L), generator=gen), tags)
    return words, tags


w_train, t_train = make(N_TRAIN, 0.05)
w_val, t_val = make(N_VAL, 0.0)


class CRFTagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, 24)
        self.mlp = nn.Sequential(nn.Linear(24, 48), nn.Tanh(), nn.Linear(48, K))
        self.trans = nn.Parameter(torch.zeros(K, K))
        self.start = nn.Parameter(torch.zeros(K))
        self.end = nn.Parameter(torch.zeros(K))

    def emissions(self, words):
        return self.mlp(self.emb(words))

    def nll(self, words, tags):
        e = self.emissions(words)
        n = words.shape[0]
        ar = torch.arange(n)
        gold = self.start[tags[:, 0]] + e[ar, 0, tags[:, 0]]
        for t in range(1, L):
            gold = gold + self.trans[tags[:, t - 1], tags[:, t]] + e[ar, t, tags[:, t]]
        gold = gold + self.end[tags[:, -1]]
        alpha = self.start + e[:, 0]
        for t in range(1, L):
            alpha = torch.logsumexp(alpha.unsqueeze(2) + self.trans.unsqueeze(0), dim=1) + e[:, t]
        log_z = torch.logsumexp(alpha + self.end, dim=1)
        return (log_z - gold).mean()

    def decode(self, words):
        e = self.emissions(words)
        score = self.start + e[:, 0]
        back = []
        for t in range(1, L):
            s = score.unsqueeze(2) + self.trans.unsqueeze(0)
            score, arg = s.max(1)
            score = score + e[:, t]
            back.append(arg)
        best = (score + self.end).argmax(1)
        path = [best]
        for arg in reversed(back):
            best = arg.gather(1, best.unsqueeze(1)).squeeze(1)
            path.append(best)
        return torch.stack(path[::-1], 1)


model = CRFTagger()
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WD)
steps = math.ceil(N_TRAIN / BATCH)
n_params = sum(p.numel() for p in model.parameters())
log_start({"name": NAME, "n_params": n_params, "batch": BATCH, "lr": LR, "n_train": N_TRAIN, "n_val": N_VAL, "epochs": EPOCHS})
t0 = time.time()
gstep = 0
for ep in range(1, EPOCHS + 1):
    te = time.time()
    model.train()
    perm = torch.randperm(N_TRAIN)
    tot, corr = 0.0, 0
    for i in range(steps):
        idx = perm[i * BATCH:(i + 1) * BATCH]
        loss = model.nll(w_train[idx], t_train[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        gstep += 1
        tot += loss.item() * len(idx)
        log_step(ep, i, steps, loss.item(), optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    model.eval()
    with torch.no_grad():
        tm = (model.decode(w_train[:600]) == t_train[:600]).float().mean().item()
        vl = model.nll(w_val, t_val).item()
        vm = (model.decode(w_val) == t_val).float().mean().item()
    log_epoch(ep, EPOCHS, {"tl": tot / N_TRAIN, "tm": tm, "vl": vl, "vm": vm,
                           "lr": optimizer.param_groups[0]["lr"], "el": time.time() - t0, "sec": time.time() - te, "gstep": gstep})
log_end({"el": time.time() - t0, "gstep": gstep, "ep": EPOCHS, "vm": vm, "vl": vl, "n_train": N_TRAIN})
