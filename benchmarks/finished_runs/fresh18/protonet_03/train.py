"""Prototypical network for few-shot classification on synthetic data: 48 classes, each a cluster in a 12-d latent
space pushed through a fixed random tanh map to 32 raw sensor features (raw units around 100 +- 40) with noise.
Classes 0-35 are for meta-training, 36-47 are novel classes for validation. Each episode is 5-way, 5-shot, 5 queries
per class; an MLP encoder embeds support and query points, class prototypes are the mean support embeddings and the
logits are negative squared Euclidean distances to the prototypes. Cross-entropy, Adam; query accuracy is reported."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
NAME = "protonet"
LR, WAYS, SHOTS, QUERIES, EPISODES, EPOCHS = 1e-3, 5, 5, 5, 40, 15
DROPOUT = 0.0
BATCH = WAYS * (SHOTS + QUERIES)
MET, LOSSNAME, HIGHER = "acc", "loss_multiclass_log", True
_avg = {"v": None}


def log_start(info):
    print(f"{info['name']}")
    print(f"Learning Rate: {info['lr']:g}, Momentum: 0.9, Decay: 0.0005")
    print(f"Loaded: 0.000021 seconds")


def log_step(ep, i, n, loss, lr, gstep, el):
    a = _avg
    a["v"] = loss if a["v"] is None else 0.9 * a["v"] + 0.1 * loss
    if gstep % 10 == 0:
        print(f"{gstep}: {loss:.6f}, {a['v']:.6f} avg, {lr:.6f} rate, {el:.6f} seconds, {gstep * BATCH} images")


def log_epoch(ep, E, m):
    print(f"Saving weights to backup/{NAME}_{ep}.weights")
    print(f"valid: avg loss {m['vl']:.6f}, {MET} = {m['vm']:.6f} (train {MET} {m['tm']:.6f})")


def log_end(m):
    print(f"Saving weights to backup/{NAME}_final.weights")

gen = torch.Generator().manual_seed(3)
N_CLASSES, PER_CLASS, D_LAT, D_IN = 48, 40, 12, 32
mix = torch.randn(D_LAT, D_IN, generator=gen) / math.sqrt(D_LAT)
centres = torch.randn(N_CLASSES, D_LAT, generator=gen)
lat = centres.unsqueeze(1) + 0.75 * torch.randn(N_CLASSES, PER_CLASS, D_LAT, generator=gen)
raw = 100 + 40 * torch.tanh(lat @ mix) + 8 * torch.randn(N_CLASSES, PER_CLASS, D_IN, generator=gen)
train_classes, val_classes = list(range(36)), list(range(36, 48))
mu, sd = raw[:36].reshape(-1, D_IN).mean(0), raw[:36].reshape(-1, D_IN).std(0)
feats = (raw - mu) / sd


def episode(classes, g):
    cls = torch.tensor(classes)[torch.randperm(len(classes), generator=g)[:WAYS]]
    sup, qry = [], []
    for c in cls:
        idx = torch.randperm(PER_CLASS, generator=g)[:SHOTS + QUERIES]
        sup.append(feats[c, idx[:SHOTS]])
        qry.append(feats[c, idx[SHOTS:]])
    return torch.stack(sup), torch.cat(qry), torch.arange(WAYS).repeat_interleave(QUERIES)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(D_IN, 64), nn.ReLU(), nn.Dropout(DROPOUT),
                                 nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 32))

    def forward(self, x):
        return self.net(x)


def proto_logits(model, sup, qry):
    z_s = model(sup.reshape(-1, D_IN)).reshape(WAYS, SHOTS, -1).mean(1)
    z_q = model(qry)
    dists = torch.cdist(z_q, z_s) ** 2
    return F.softmax(-dists, dim=1)


model = Encoder()
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
val_gen = torch.Generator().manual_seed(11)
val_eps = [episode(val_classes, val_gen) for _ in range(30)]
train_gen = torch.Generator().manual_seed(5)
NTR, NVA, NVB = EPISODES * BATCH, len(val_eps) * BATCH, len(val_eps)
n_params = sum(p.numel() for p in model.parameters())
log_start(dict(name=NAME, n_params=n_params, n_train=36 * PER_CLASS, n_val=12 * PER_CLASS, lr=LR, batch=BATCH,
               epochs=EPOCHS, n_layers=6))

gstep = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    te = time.time()
    model.train()
    tot_loss, tot_acc = 0.0, 0.0
    for i in range(EPISODES):
        sup, qry, y = episode(train_classes, train_gen)
        logits = proto_logits(model, sup, qry)
        loss = F.cross_entropy(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        gstep += 1
        tot_loss += loss.item()
        tot_acc += (logits.argmax(1) == y).float().mean().item()
        log_step(epoch, i + 1, EPISODES, loss.item(), optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    model.eval()
    vl, va = 0.0, 0.0
    with torch.no_grad():
        for sup, qry, y in val_eps:
            logits = proto_logits(model, sup, qry)
            vl += F.cross_entropy(logits, y).item()
            va += (logits.argmax(1) == y).float().mean().item()
    m = dict(tl=tot_loss / EPISODES, tm=tot_acc / EPISODES, vl=vl / len(val_eps), vm=va / len(val_eps),
             lr=optimizer.param_groups[0]["lr"], el=time.time() - t0, gstep=gstep, ep_s=time.time() - te)
    log_epoch(epoch, EPOCHS, m)
log_end(m)
