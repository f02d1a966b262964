# ViLT-style vision-and-language pre-training, small: one transformer encoder over [text tokens;
# image patch embeddings], masked language modelling (15% of text tokens) + image-text matching.
# AdamW (weight decay 0.01), peak lr 5e-3 reached by linear warmup over the first 30% of the
# 1200 steps, then linear decay to 0. Batch 32.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
V, L_TXT, N_PATCH, D = 40, 8, 8, 64
MASK = V  # extra id for [MASK]
objects = torch.randn(V, 16)  # each "word" id has a visual appearance
zipf = 1.0 / torch.arange(1, V + 1).float()

def batch(n=32):
    txt = torch.multinomial(zipf, n * L_TXT, replacement=True).view(n, L_TXT)  # Zipf-like word frequencies
    # image: 8 patches showing the objects named by the 8 words (+ noise)
    img = objects[txt[:, :N_PATCH]] + 0.5 * torch.randn(n, N_PATCH, 16)
    match = torch.rand(n) < 0.5
    img[~match] = img[~match][torch.randperm(int((~match).sum()))] if (~match).sum() > 1 else img[~match]
    return txt, img, match.long()

class ViLTish(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(V + 1, D); self.patch = nn.Linear(16, D)
        self.pos = nn.Parameter(torch.zeros(1, L_TXT + N_PATCH + 1, D)); self.cls = nn.Parameter(torch.zeros(1, 1, D))
        layer = nn.TransformerEncoderLayer(D, 4, 4 * D, dropout=0.1, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.mlm = nn.Linear(D, V); self.itm = nn.Linear(D, 2)
    def forward(self, txt, img):
        x = torch.cat([self.cls.expand(len(txt), 1, D), self.tok(txt), self.patch(img)], 1) + self.pos
        h = self.enc(x)
        return self.mlm(h[:, 1:1 + L_TXT]), self.itm(h[:, 0])

model = ViLTish()
opt = torch.optim.AdamW(model.parameters(), lr=5e-3, weight_decay=0.01)
TOTAL, WARM = 1200, 360
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: s / WARM if s < WARM else max(0.0, (TOTAL - s) / (TOTAL - WARM)))

with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["step", "lr", "loss", "mlm_loss", "itm_loss", "itm_acc"])
    run = []
    for step in range(1, TOTAL + 1):
        txt, img, match = batch()
        m = torch.rand(txt.shape) < 0.15
        inp = txt.masked_fill(m, MASK)
        mlm_logits, itm_logits = model(inp, img)
        mlm = F.cross_entropy(mlm_logits[m], txt[m]) if m.any() else torch.tensor(0.0)
        itm = F.cross_entropy(itm_logits, match)
        loss = mlm + itm
        opt.zero_grad(); loss.backward(); opt.step(); sched.step()
        acc = (itm_logits.argmax(1) == match).float().mean().item()
        wr.writerow([step, f"{opt.param_groups[0]['lr']:.6f}", f"{loss.item():.4f}", f"{mlm.item():.4f}", f"{itm.item():.4f}", f"{acc:.3f}"])
        run.append(loss.item())
        if step % 50 == 0:
            print(f"Epoch 0: {100 * step / TOTAL:3.0f}% {step}/{TOTAL}, loss={sum(run[-50:]) / 50:.3f}, lr={opt.param_groups[0]['lr']:.2e}")
            fh.flush()
