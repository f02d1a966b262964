"""Transformer encoder for token classification (NER-style BIO tagging) on synthetic sentences. Tokens 10-39 are
name-like words; a span of 1-3 of them is an entity of type PER when preceded by trigger token 2 ("Mr.") and of
type ORG when preceded by trigger token 3 ("at"); the same words elsewhere are O. Tags: O, B-PER, I-PER, B-ORG,
I-ORG. A 2-layer pre-norm Transformer encoder with learned positions and a linear tagger; reported: token loss,
token accuracy and entity-token macro F1 (over the four non-O tags)."""
import math
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
CFG = dict(n_train=3000, n_val=600, epochs=10, batch_size=32, lr=0.05, d_model=64, heads=4, layers=2, dropout=0.1)
_ROWS = []


def log_info(msg):
    print(msg)


def progress(it, epoch, n_epochs, n):
    return it


def on_step(epoch, n_epochs, i, n, loss, lr, gstep, total):
    pass


def _line(ch, ws):
    return "+" + "+".join(ch * (w + 2) for w in ws) + "+"


def log_epoch(epoch, n_epochs, m, lr):
    m.pop("_steps", None)
    cols = ["epoch"] + list(m)
    ws = [max(len(c), 8) for c in cols]
    if epoch == 1:
        print(_line("-", ws))
        print("| " + " | ".join(f"{c:<{w}}" for c, w in zip(cols, ws)) + " |")
        print(_line("=", ws))
    vals = [str(epoch)] + [f"{v:.4f}" for v in m.values()]
    print("| " + " | ".join(f"{c:>{w}}" for c, w in zip(vals, ws)) + " |")
    print(_line("-", ws))


def log_end(summary):
    print(summary)

VOCAB, SEQ, N_TAGS = 48, 16, 5


def make_sentences(n, gen):
    toks = torch.randint(4, VOCAB, (n, SEQ), generator=gen)
    tags = torch.zeros(n, SEQ, dtype=torch.long)
    for k in range(n):
        pos = 0
        while pos < SEQ - 4:
            r = torch.rand(1, generator=gen).item()
            if r < 0.18:
                trig = 2 if torch.rand(1, generator=gen).item() < 0.5 else 3
                ln = int(torch.randint(1, 4, (1,), generator=gen))
                toks[k, pos] = trig
                toks[k, pos + 1:pos + 1 + ln] = torch.randint(10, 40, (ln,), generator=gen)
                b = 1 if trig == 2 else 3
                tags[k, pos + 1] = b
                tags[k, pos + 2:pos + 1 + ln] = b + 1
                pos += ln + 2
            else:
                pos += 1
    return toks, tags


gen = torch.Generator().manual_seed(21)
x_train, y_train = make_sentences(CFG["n_train"], gen)
x_val, y_val = make_sentences(CFG["n_val"], gen)

class Tagger(nn.Module):
    def __init__(self, d, heads, layers, dropout):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, d)
        self.pos = nn.Parameter(torch.randn(SEQ, d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, heads, 2 * d, dropout, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, N_TAGS)

    def forward(self, x):
        h = self.encoder(self.emb(x) + self.pos)
        return self.head(self.norm(h))


def macro_f1(pred, gold):
    f1s = []
    for t in range(1, N_TAGS):
        tp = ((pred == t) & (gold == t)).sum().item()
        fp = ((pred == t) & (gold != t)).sum().item()
        fn = ((pred != t) & (gold == t)).sum().item()
        f1s.append(2 * tp / max(1, 2 * tp + fp + fn))
    return sum(f1s) / len(f1s)


model = Tagger(CFG["d_model"], CFG["heads"], CFG["layers"], CFG["dropout"])
optimizer = torch.optim.AdamW(model.parameters(), lr=CFG["lr"], weight_decay=0.01)
n_batches = math.ceil(CFG["n_train"] / CFG["batch_size"])
total = n_batches * CFG["epochs"]
log_info(f"Transformer tagger: {CFG['n_train']} train / {CFG['n_val']} val sentences of {SEQ} tokens, "
         f"{sum(p.numel() for p in model.parameters())} params, batch {CFG['batch_size']}, lr {CFG['lr']}, {CFG['epochs']} epochs")


def evaluate():
    model.eval()
    with torch.no_grad():
        logits = model(x_val)
        loss = F.cross_entropy(logits.reshape(-1, N_TAGS), y_val.reshape(-1)).item()
        pred = logits.argmax(-1)
        acc = (pred == y_val).float().mean().item()
    return loss, acc, macro_f1(pred, y_val)


t0 = time.time()
gstep = 0
for epoch in range(1, CFG["epochs"] + 1):
    model.train()
    perm = torch.randperm(CFG["n_train"])
    tot, correct = 0.0, 0
    for i in progress(range(n_batches), epoch, CFG["epochs"], n_batches):
        idx = perm[i * CFG["batch_size"]:(i + 1) * CFG["batch_size"]]
        logits = model(x_train[idx])
        loss = F.cross_entropy(logits.reshape(-1, N_TAGS), y_train[idx].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        gstep += 1
        tot += loss.item() * len(idx)
        correct += (logits.argmax(-1) == y_train[idx]).sum().item()
        on_step(epoch, CFG["epochs"], i, n_batches, loss.item(), optimizer.param_groups[0]["lr"], gstep, total)
    val_loss, val_acc, val_f1 = evaluate()
    log_epoch(epoch, CFG["epochs"], {"_steps": n_batches, "train_loss": tot / CFG["n_train"], "train_acc": correct / (CFG["n_train"] * SEQ),
                                     "val_loss": val_loss, "val_acc": val_acc, "val_f1": val_f1}, optimizer.param_groups[0]["lr"])

log_end(f"{CFG['epochs']} epochs in {time.time() - t0:.1f}s, final val_f1={val_f1:.4f}")
