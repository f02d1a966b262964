# TabTransformer (Huang, Khetan, Cvitkovic & Karnin, "TabTransformer: Tabular Data Modeling Using Contextual
# Embeddings", 2020; cf. lucidrains/tab-transformer-pytorch): categorical columns -> column embeddings -> a small
# Transformer encoder -> flattened contextual embeddings, concatenated with layer-normalised continuous columns ->
# MLP -> one logit, BCE, AdamW; binary "income > 50K"-like target on a synthetic census-style table.
# Metrics printed as boxed key/value tables (stable-baselines3 logger style) once per epoch.
import math, time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(11)

CARDS = [9, 16, 7, 14, 6, 5]            # workclass, education, marital, occupation, relationship, race
CAT_NAMES = ["workclass", "education", "marital_status", "occupation", "relationship", "race"]
CONT_NAMES = ["age", "fnlwgt", "capital_gain", "hours_per_week"]
N_TRAIN, N_VAL = 6000, 1500
DIM, DEPTH, HEADS = 16, 2, 4
ATTN_DROPOUT, FF_DROPOUT = 0.1, 0.1
MLP_HIDDEN = [64, 32]
BATCH = 128
EPOCHS = 8
LR = 1e-6
WEIGHT_DECAY = 1e-2
LABEL_NOISE = 0.0


def make_table(n, g, effects):
    cats = torch.stack([torch.randint(0, c, (n,), generator=g) for c in CARDS], 1)
    age = 18 + 60 * torch.rand(n, generator=g)
    fnlwgt = torch.exp(12 + 0.5 * torch.randn(n, generator=g))
    gain = torch.where(torch.rand(n, generator=g) < 0.1, torch.exp(7 + 1.5 * torch.rand(n, generator=g)), torch.zeros(n))
    hours = (40 + 10 * torch.randn(n, generator=g)).clamp(1, 99)
    cont = torch.stack([age, fnlwgt, gain, hours], 1)
    main, inter = effects
    z = sum(main[j][cats[:, j]] for j in range(len(CARDS)))
    z = z + inter[cats[:, 1], cats[:, 3]] + 0.04 * (age - 40) + 0.05 * (hours - 40) + 1.2 * (gain > 0).float() - 0.8
    y = (torch.rand(n, generator=g) < torch.sigmoid(2.0 * z)).float()
    flip = torch.rand(n, generator=g) < LABEL_NOISE
    y = torch.where(flip, 1 - y, y)
    return cats, cont, y


g = torch.Generator().manual_seed(2024)
effects = ([torch.randn(c, generator=g) * 0.8 for c in CARDS], torch.randn(CARDS[1], CARDS[3], generator=g))
tr_cat, tr_cont, tr_y = make_table(N_TRAIN, g, effects)
va_cat, va_cont, va_y = make_table(N_VAL, g, effects)
# continuous columns: log-transform the heavy-tailed ones, then standardise with training statistics
for t in (tr_cont, va_cont):
    t[:, 1] = torch.log(t[:, 1])
    t[:, 2] = torch.log1p(t[:, 2])
mu, sd = tr_cont.mean(0), tr_cont.std(0)
tr_cont, va_cont = (tr_cont - mu) / sd, (va_cont - mu) / sd


class TabTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.offsets = torch.tensor([0] + list(torch.tensor(CARDS).cumsum(0)[:-1]))
        self.embed = nn.Embedding(sum(CARDS), DIM)
        layer = nn.TransformerEncoderLayer(DIM, HEADS, dim_feedforward=4 * DIM, dropout=FF_DROPOUT, batch_first=True, activation="gelu")
        self.transformer = nn.TransformerEncoder(layer, DEPTH, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(len(CONT_NAMES))
        dims = [DIM * len(CARDS) + len(CONT_NAMES)] + MLP_HIDDEN
        mlp = []
        for a, b in zip(dims[:-1], dims[1:]):
            mlp += [nn.Linear(a, b), nn.ReLU()]
        mlp += [nn.Linear(dims[-1], 1)]
        self.mlp = nn.Sequential(*mlp)

    def forward(self, cat, cont):
        x = self.transformer(self.embed(cat + self.offsets))
        h = torch.cat([x.flatten(1), self.norm(cont)], 1)
        return self.mlp(h).squeeze(1)


def auc(scores, y):
    order = torch.argsort(scores)
    ranks = torch.empty_like(scores)
    ranks[order] = torch.arange(1, len(scores) + 1, dtype=scores.dtype)
    npos = y.sum()
    nneg = len(y) - npos
    return ((ranks[y == 1].sum() - npos * (npos + 1) / 2) / (npos * nneg)).item()


model = TabTransformer()
optimizer = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
print(f"Using cpu device")
print(f"train rows {N_TRAIN} (positive rate {tr_y.mean():.3f}), val rows {N_VAL}; categorical {CAT_NAMES}; continuous {CONT_NAMES}")
print(f"TabTransformer(dim={DIM}, depth={DEPTH}, heads={HEADS}) params={sum(p.numel() for p in model.parameters())}")


def table(sections):
    rows = []
    for sec, items in sections:
        rows.append((sec + "/", ""))
        for k, v in items:
            rows.append(("    " + k, f"{v:.4g}" if isinstance(v, float) else str(v)))
    w1 = max(len(a) for a, _ in rows)
    w2 = max(len(b) for _, b in rows) + 2
    line = "-" * (w1 + w2 + 7)
    print("\n".join([line] + [f"| {a:<{w1}} | {b:<{w2}}|" for a, b in rows] + [line]))


t0, steps = time.time(), 0
for epoch in range(1, EPOCHS + 1):
    model.train()
    perm = torch.randperm(N_TRAIN)
    tot, nb = 0.0, 0
    for i in range(0, N_TRAIN, BATCH):
        idx = perm[i:i + BATCH]
        logit = model(tr_cat[idx], tr_cont[idx])
        loss = F.binary_cross_entropy_with_logits(logit, tr_y[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        tot += loss.item(); nb += 1; steps += 1
    model.eval()
    with torch.no_grad():
        vl = model(va_cat, va_cont)
        vloss = F.binary_cross_entropy_with_logits(vl, va_y).item()
        vauc = auc(vl, va_y)
        vacc = ((vl > 0).float() == va_y).float().mean().item()
        tl = model(tr_cat[:1500], tr_cont[:1500])
        tauc = auc(tl, tr_y[:1500])
    table([("time", [("epoch", epoch), ("total_steps", steps), ("time_elapsed", int(time.time() - t0))]),
           ("train", [("loss", tot / nb), ("auc", tauc), ("learning_rate", optimizer.param_groups[0]["lr"])]),
           ("val", [("loss", vloss), ("auc", vauc), ("accuracy", vacc)])])
