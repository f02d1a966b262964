"""FT-Transformer on a synthetic tabular task: 6 numeric features (standardised) and 3 categorical ones
(cardinalities 5, 8, 12); the 3-class target depends on a nonlinear mix of numeric features and on
per-category offsets, and 8% of the labels are resampled at random. Every feature becomes a 32-d token
(per-feature linear tokenizer for numeric values, embeddings for categories), a [CLS] token is prepended,
two pre-norm Transformer encoder layers, linear head on [CLS]; AdamW + cross-entropy. Reported: loss and
accuracy on the training and validation rows."""
import math
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
LR, BATCH, EPOCHS, DROPOUT = 3e-3, 64, 12, 0.1
WARMUP_EPOCHS = 2

def log_start(n_params, n_tr, n_va, lr, batch, epochs):
    print(f"FT-Transformer प्रशिक्षण शुरू: {n_params} पैरामीटर, {n_tr} प्रशिक्षण पंक्तियाँ, {n_va} सत्यापन पंक्तियाँ, अधिकतम सीखने की दर {lr} ({WARMUP_EPOCHS} युग वार्म-अप, फिर कोसाइन)")


def log_step(epoch, i, n, loss, gstep, el):
    if i % 16 == 0:
        print(f"  युग {epoch} | बैच {i}/{n} | हानि {loss:.4f} | सीखने की दर {scheduler.get_last_lr()[0]:.2e}")


def log_epoch(epoch, epochs, tl, ta, vl, va, el):
    print(f"युग {epoch}/{epochs} पूरा | प्रशिक्षण हानि {tl:.4f} | प्रशिक्षण सटीकता {ta:.3f} | सत्यापन हानि {vl:.4f} | सत्यापन सटीकता {va:.3f} | समय {el:.1f} सेकंड")


def log_end(vl, va, el):
    print(f"प्रशिक्षण समाप्त। अंतिम सत्यापन सटीकता: {va:.3f}")

N_NUM, CARDS, N_CLASSES = 6, (5, 8, 12), 3
gen = torch.Generator().manual_seed(21)
cat_effect = [torch.randn(c, N_CLASSES, generator=gen) for c in CARDS]
w_num = torch.randn(N_NUM, N_CLASSES, generator=gen)


def make_rows(n):
    x_num = torch.randn(n, N_NUM, generator=gen)
    x_cat = torch.stack([torch.randint(0, c, (n,), generator=gen) for c in CARDS], dim=1)
    logits = x_num @ w_num + 1.5 * torch.sin(2 * x_num[:, :1] * x_num[:, 1:2]) * torch.tensor([1.0, -1.0, 0.0])
    logits = logits + sum(cat_effect[j][x_cat[:, j]] for j in range(len(CARDS)))
    y = logits.argmax(1)
    flip = torch.rand(n, generator=gen) < 0.08
    y = torch.where(flip, torch.randint(0, N_CLASSES, (n,), generator=gen), y)
    return x_num, x_cat, y


xn_train, xc_train, y_train = make_rows(3000)
xn_val, xc_val, y_val = make_rows(1000)


class FTTransformer(nn.Module):
    def __init__(self, d=32, layers=2, heads=4, p=0.1):
        super().__init__()
        self.num_w = nn.Parameter(torch.randn(N_NUM, d) / math.sqrt(d))
        self.num_b = nn.Parameter(torch.zeros(N_NUM, d))
        self.cat_emb = nn.ModuleList([nn.Embedding(c, d) for c in CARDS])
        self.cls = nn.Parameter(torch.zeros(1, 1, d))
        layer = nn.TransformerEncoderLayer(d, heads, dim_feedforward=2 * d, dropout=p, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, N_CLASSES)

    def forward(self, x_num, x_cat):
        tok_num = x_num.unsqueeze(-1) * self.num_w + self.num_b
        tok_cat = torch.stack([emb(x_cat[:, j]) for j, emb in enumerate(self.cat_emb)], dim=1)
        tokens = torch.cat([self.cls.expand(len(x_num), -1, -1), tok_num, tok_cat], dim=1)
        h = self.encoder(tokens)
        return self.head(self.norm(h[:, 0]))


model = FTTransformer(p=DROPOUT)
optimizer = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=1e-4)
criterion = nn.CrossEntropyLoss()
_total, _warm = EPOCHS * ((len(y_train) + BATCH - 1) // BATCH), WARMUP_EPOCHS * ((len(y_train) + BATCH - 1) // BATCH)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: (s + 1) / _warm if s < _warm else 0.5 * (1 + math.cos(math.pi * (s - _warm) / (_total - _warm))))
n_params = sum(p.numel() for p in model.parameters())
steps = (len(y_train) + BATCH - 1) // BATCH
log_start(n_params, len(y_train), len(y_val), LR, BATCH, EPOCHS)


def evaluate():
    model.eval()
    with torch.no_grad():
        logits = model(xn_val, xc_val)
        loss = criterion(logits, y_val).item()
        acc = (logits.argmax(1) == y_val).float().mean().item()
    model.train()
    return loss, acc


gstep = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    model.train()
    order = torch.randperm(len(y_train))
    total, correct = 0.0, 0
    for i in range(steps):
        idx = order[i * BATCH:(i + 1) * BATCH]
        xn, xc, yb = xn_train[idx], xc_train[idx], y_train[idx]
        optimizer.zero_grad()
        logits = model(xn, xc)
        loss = criterion(logits, yb)
        loss.backward()
        optimizer.step()
        scheduler.step()
        gstep += 1
        total += loss.item() * len(idx)
        correct += (logits.argmax(1) == yb).sum().item()
        log_step(epoch, i + 1, steps, loss.item(), gstep, time.time() - t0)
    val_loss, val_acc = evaluate()
    log_epoch(epoch, EPOCHS, total / len(y_train), correct / len(y_train), val_loss, val_acc, time.time() - t0)
log_end(val_loss, val_acc, time.time() - t0)
