# Decomposable attention model for natural language inference (Parikh, Tackstrom, Das & Uszkoreit, EMNLP 2016,
# arXiv:1606.01933), as in the PyTorch re-implementations: word embeddings projected to 64 dims; Attend:
# e_ij = F(a_i) . F(b_j) with soft alignments beta_i / alpha_j; Compare: G([a_i; beta_i]), G([b_j; alpha_j]);
# Aggregate: sums over tokens, H([v1; v2]) -> 3 classes (entailment / contradiction / neutral). Adagrad lr 0.05
# as in the paper. Synthetic SNLI-like pairs over a 60-word vocabulary with 10 antonym pairs: an entailed
# hypothesis takes 4 premise words; a contradiction swaps one premise word for its antonym; a neutral hypothesis
# adds a word absent from the premise. Printed as key=value lines.
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(16)

VOCAB, N_ANT = 60, 10
P_LEN, H_LEN = 8, 4
N_TRAIN, N_VAL = 4000, 800
EMB, HID = 32, 64
LR = 0.05
BATCH = 32
EPOCHS = 10
LOG_EVERY = 40
CLIP = 5.0

g = torch.Generator().manual_seed(2016)
antonym = torch.arange(VOCAB)
for k in range(N_ANT):                      # words 0..19 form 10 antonym pairs (2k, 2k+1)
    antonym[2 * k], antonym[2 * k + 1] = 2 * k + 1, 2 * k


def make(n):
    P = torch.zeros(n, P_LEN, dtype=torch.long)
    Hy = torch.zeros(n, H_LEN, dtype=torch.long)
    y = torch.randint(0, 3, (n,), generator=g)
    for i in range(n):
        while True:
            p = torch.randperm(VOCAB, generator=g)[:P_LEN]
            if not any(antonym[w].item() in p.tolist() for w in p.tolist() if w < 2 * N_ANT):
                if any(w < 2 * N_ANT for w in p.tolist()):
                    break
        P[i] = p
        h = p[torch.randperm(P_LEN, generator=g)[:H_LEN]].clone()
        if y[i] == 1:                                            # contradiction: an antonym of a premise word
            ant_words = [w for w in p.tolist() if w < 2 * N_ANT]
            h[0] = antonym[ant_words[torch.randint(0, len(ant_words), (1,), generator=g).item()]]
        elif y[i] == 2:                                          # neutral: an unrelated new word
            banned = set(p.tolist()) | {antonym[w].item() for w in p.tolist()}
            cand = [w for w in range(VOCAB) if w not in banned]
            h[0] = cand[torch.randint(0, len(cand), (1,), generator=g).item()]
        Hy[i] = h[torch.randperm(H_LEN, generator=g)]
    return P, Hy, y


Ptr, Htr, ytr = make(N_TRAIN)
Pva, Hva, yva = make(N_VAL)


def mlp(i, o):
    return nn.Sequential(nn.Linear(i, o), nn.ReLU(), nn.Linear(o, o), nn.ReLU())


class DecomposableAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, EMB)
        self.proj = nn.Linear(EMB, HID, bias=False)
        self.F = mlp(HID, HID)
        self.G = mlp(2 * HID, HID)
        self.H = nn.Sequential(mlp(2 * HID, HID), nn.Linear(HID, 3))

    def forward(self, p, h):
        a, b = self.proj(self.embed(p)), self.proj(self.embed(h))
        e = torch.bmm(self.F(a), self.F(b).transpose(1, 2))       # [B, La, Lb]
        beta = torch.bmm(F.softmax(e, dim=2), b)                  # b aligned to each a_i
        alpha = torch.bmm(F.softmax(e, dim=1).transpose(1, 2), a)  # a aligned to each b_j
        v1 = self.G(torch.cat([a, beta], -1)).sum(1)
        v2 = self.G(torch.cat([b, alpha], -1)).sum(1)
        return self.H(torch.cat([v1, v2], -1).detach())


model = DecomposableAttention()
opt = torch.optim.Adagrad(model.parameters(), lr=LR)
crit = nn.CrossEntropyLoss()
print(f"data: train={N_TRAIN} dev={N_VAL} vocab={VOCAB} classes=3")
print(f"model: params={sum(p.numel() for p in model.parameters())} hidden={HID} optimizer=adagrad lr={LR} batch={BATCH}")

t0 = time.time()
step = 0
for epoch in range(1, EPOCHS + 1):
    model.train()
    perm = torch.randperm(N_TRAIN)
    tl, tc, tn = 0.0, 0, 0
    for i in range(0, N_TRAIN, BATCH):
        idx = perm[i:i + BATCH]
        logits = model(Ptr[idx], Htr[idx])
        loss = crit(logits, ytr[idx])
        opt.zero_grad()
        loss.backward()
        gnorm = nn.utils.clip_grad_norm_(model.parameters(), CLIP).item()
        opt.step()
        step += 1
        tl += loss.item() * len(idx); tc += (logits.argmax(1) == ytr[idx]).sum().item(); tn += len(idx)
        if step % LOG_EVERY == 0:
            print(f"epoch={epoch} step={step} loss={tl / tn:.4f} acc={tc / tn:.4f} gnorm={gnorm:.3f} time={time.time() - t0:.1f}s")
    model.eval()
    with torch.no_grad():
        lv = model(Pva, Hva)
        vl = crit(lv, yva).item()
        va = (lv.argmax(1) == yva).float().mean().item()
    print(f"epoch={epoch} train_loss={tl / tn:.4f} train_acc={tc / tn:.4f} dev_loss={vl:.4f} dev_acc={va:.4f}")
print(f"done best_dev_acc={va:.4f}")
