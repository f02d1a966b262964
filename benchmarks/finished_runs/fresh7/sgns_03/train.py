"""Skip-gram word2vec with negative sampling (SGNS) on a synthetic topic corpus: 600 words split into 20 topics
of 30 words; each sentence draws most of its words from one topic. Two embedding tables (input/center and
output/context) are trained with the logistic negative-sampling loss; quality is measured by how many of each
word's 5 nearest neighbours (cosine) share its topic (nn@5 topic purity) and by the loss on held-out sentences."""
import time
import yaml
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)

with open("config.yaml") as f:
    cfg = yaml.safe_load(f)
VOCAB, TOPICS, WINDOW = 600, 20, 2
DIM, NEG = cfg["model"]["dim"], cfg["model"]["negatives"]
EPOCHS, BATCH, LR = cfg["train"]["epochs"], cfg["train"]["batch_size"], cfg["optim"]["lr"]


def make_corpus(n_sent, g):
    sents = []
    per = VOCAB // TOPICS
    for _ in range(n_sent):
        t = torch.randint(TOPICS, (1,), generator=g).item()
        words = torch.randint(per, (10,), generator=g) + t * per
        noise = torch.rand(10, generator=g) < 0.45
        words[noise] = torch.randint(VOCAB, (int(noise.sum()),), generator=g)
        sents.append(words)
    return torch.stack(sents)


def make_pairs(sents):
    centers, contexts = [], []
    L = sents.shape[1]
    for off in range(-WINDOW, WINDOW + 1):
        if off == 0:
            continue
        lo, hi = max(0, -off), min(L, L - off)
        centers.append(sents[:, lo:hi].reshape(-1))
        contexts.append(sents[:, lo + off:hi + off].reshape(-1))
    return torch.cat(centers), torch.cat(contexts)


g = torch.Generator().manual_seed(1)
train_sents, val_sents = make_corpus(2400, g), make_corpus(400, g)
tr_c, tr_o = make_pairs(train_sents)
va_c, va_o = make_pairs(val_sents)
counts = torch.bincount(train_sents.reshape(-1), minlength=VOCAB).float()
noise_dist = counts.pow(0.75)
noise_dist /= noise_dist.sum()
topic_of = torch.arange(VOCAB) // (VOCAB // TOPICS)


class SkipGram(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Embedding(VOCAB, DIM)
        self.out = nn.Embedding(VOCAB, DIM)
        nn.init.uniform_(self.inp.weight, -0.5 / DIM, 0.5 / DIM)
        nn.init.normal_(self.out.weight, std=0.01)

    def forward(self, center, context, negatives):
        v = self.inp(center)                                  # (B, D)
        u_pos = self.out(context)                             # (B, D)
        u_neg = self.out(negatives)                           # (B, K, D)
        pos = (v * u_pos).sum(-1)
        neg = torch.bmm(u_neg, v.unsqueeze(-1)).squeeze(-1)
        return -(F.logsigmoid(pos) + F.logsigmoid(-neg).sum(-1)).mean()


def nn_purity(model, k=5):
    with torch.no_grad():
        e = F.normalize(model.inp.weight, dim=1)
        sim = e @ e.t()
        sim.fill_diagonal_(-2)
        idx = sim.topk(k, dim=1).indices
        return (topic_of[idx] == topic_of.unsqueeze(1)).float().mean().item()


def val_loss(model):
    gv = torch.Generator().manual_seed(7)
    with torch.no_grad():
        neg = torch.multinomial(noise_dist, va_c.numel() * NEG, replacement=True, generator=gv).view(-1, NEG)
        return model(va_c, va_o, neg).item()


model = SkipGram()
if cfg["optim"]["name"] == "sgd":
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=cfg["optim"].get("momentum", 0.0))
else:
    opt = torch.optim.Adam(model.parameters(), lr=LR)
n = tr_c.numel()
steps_per_epoch = (n + BATCH - 1) // BATCH
print(f"corpus: {train_sents.numel()} train tokens, {n} pairs, vocab {VOCAB}, {TOPICS} topics")
print(f"params: {sum(p.numel() for p in model.parameters())}")

for epoch in range(1, EPOCHS + 1):
    t0 = time.time()
    perm = torch.randperm(n)
    run, seen = 0.0, 0
    for step in range(steps_per_epoch):
        idx = perm[step * BATCH:(step + 1) * BATCH]
        neg = torch.multinomial(noise_dist, idx.numel() * NEG, replacement=True).view(-1, NEG)
        loss = model(tr_c[idx], tr_o[idx], neg)
        opt.zero_grad()
        loss.backward()
        opt.step()
        run += loss.item() * idx.numel()
        seen += idx.numel()
        if (step + 1) % 40 == 0:
            print(f"epoch={epoch} step={step + 1}/{steps_per_epoch} loss={loss.item():.4f} lr={opt.param_groups[0]['lr']:g}")
    print(f"epoch={epoch} train_loss={run / seen:.4f} val_loss={val_loss(model):.4f} nn5_purity={nn_purity(model):.4f} time={time.time() - t0:.1f}s")
