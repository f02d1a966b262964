# JIA-Lab-research/MGM (Mini-Gemini) stage-1 pretraining ("Begin training loss a little high") in
# miniature: image features from a frozen vision encoder are mapped by a trainable 2-layer MLP projector
# into the token-embedding space of a small decoder-only language model, and the model is trained on
# image-caption pairs with next-token cross entropy on the caption tokens only. Here the "vision
# features" are 64-d vectors built from 4 latent attributes of a synthetic scene (object, color,
# count, place), captions are template sentences over a 400-token vocabulary that mention those
# attributes with some free wording, the language model is a 2-layer Transformer decoder (d 96)
# trained from scratch together with the projector, AdamW lr 1e-3 with 3% linear warm-up and cosine
# decay (the MGM pretraining recipe), batch 16, 640 steps, HF-Trainer-style log lines
# {'loss': ..., 'learning_rate': ..., 'epoch': ...} every 10 steps and a held-out caption loss.
import csv, math
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

rng = np.random.RandomState(8); torch.manual_seed(8); torch.set_num_threads(1)
V, L, D = 400, 14, 96
OBJ, COL, CNT, PLC = range(20, 60), range(60, 80), range(80, 90), range(90, 120)
FILL = list(range(120, 400)); BOS, EOS, PAD = 1, 2, 0
A_, IS, OF, IN, THE, PHOTO = 3, 4, 5, 6, 7, 8
proj_attr = rng.randn(4, 64, 40).astype(np.float32)
def example():
    o, c, n, p = rng.randint(40), rng.randint(20), rng.randint(10), rng.randint(30)
    feat = sum(proj_attr[i][:, v] for i, v in enumerate((o, c, n, p))) + 0.3 * rng.randn(64)
    words = [[A_, PHOTO, OF, CNT[n], COL[c], OBJ[o], IN, THE, PLC[p]],
             [CNT[n], COL[c], OBJ[o], IS, IN, THE, PLC[p]],
             [THE, PLC[p], FILL[rng.randint(len(FILL))], CNT[n], COL[c], OBJ[o]]][rng.randint(3)]
    seq = [BOS] + words + [EOS]; seq += [PAD] * (L - len(seq))
    return feat.astype(np.float32), seq[:L]
def make(n):
    a = [example() for _ in range(n)]
    return torch.tensor(np.stack([x[0] for x in a])), torch.tensor([x[1] for x in a])
Ftr, Ttr = make(10240); Fva, Tva = make(512)

class MGMmini(nn.Module):
    def __init__(self):
        super().__init__()
        self.mm_projector = nn.Sequential(nn.Linear(64, D), nn.GELU(), nn.Linear(D, D))
        self.embed = nn.Embedding(V, D); self.pos = nn.Parameter(torch.zeros(L, D))
        layer = nn.TransformerEncoderLayer(D, 4, 4 * D, 0.0, batch_first=True, norm_first=True)
        self.lm = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False); self.head = nn.Linear(D, V)
    def forward(self, feat, tok):
        x = torch.cat([self.mm_projector(feat)[:, None], self.embed(tok)], 1) + self.pos
        mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1])
        return self.head(self.lm(x, mask=mask, is_causal=True))
def caption_loss(m, f, t):
    logits = m(f, t[:, :-1])[:, 1:]          # predict caption tokens after the image token
    return F.cross_entropy(logits.reshape(-1, V), t[:, 1:].reshape(-1), ignore_index=PAD)
model = MGMmini(); opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.0)
steps, warm, bs = 640, 19, 16
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: (s + 1) / warm if s < warm else 0.5 * (1 + math.cos(math.pi * (s - warm) / (steps - warm))))
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['step', 'loss', 'learning_rate', 'epoch', 'eval_loss'])
run = 0.0
for step in range(1, steps + 1):
    i = torch.randint(0, len(Ftr), (bs,)); loss = caption_loss(model, Ftr[i], Ttr[i])
    opt.zero_grad(); loss.backward(); torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0); opt.step(); sched.step()
    run += loss.item()
    if step % 10 == 0:
        print({'loss': round(run / 10, 4), 'learning_rate': float('%.4e' % sched.get_last_lr()[0]), 'epoch': round(step * bs / len(Ftr), 3)})
        wr.writerow([step, run / 10, sched.get_last_lr()[0], step * bs / len(Ftr), '']); run = 0.0
    if step % 160 == 0:
        model.eval()
        with torch.no_grad(): ev = caption_loss(model, Fva, Tva).item()
        model.train(); print({'eval_loss': round(ev, 4), 'epoch': round(step * bs / len(Ftr), 3)})
        wr.writerow([step, '', '', step * bs / len(Ftr), ev])
