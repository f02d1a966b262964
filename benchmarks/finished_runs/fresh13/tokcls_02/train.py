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
import yaml
with open("config.yaml") as _f:
    CFG = yaml.safe_load(_f)
import sys
from tqdm import tqdm
_BAR = [None]


def log_info(msg):
    print(f"2026-12-04 02:51:07,118 - INFO - allennlp.training.gradient_descent_trainer - {msg}", flush=True)


def progress(it, epoch, n_epochs, n):
    print(f"2026-12-04 02:51:07,118 - INFO - allennlp.training.gradient_descent_trainer - Epoch {epoch - 1}/{n_epochs - 1}", flush=True)
    print(f"2026-12-04 02:51:07,119 - INFO - allennlp.training.gradient_descent_trainer - Training", flush=True)
    _BAR[0] = tqdm(it, total=n, file=sys.stdout, mininterval=0, miniters=max(1, n // 12), ncols=100, bar_format="{desc}||: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}]")
    return _BAR[0]


def on_step(epoch, n_epochs, i, n, loss, lr, gstep, total):
    on_step.s = (getattr(on_step, "s", 0.0) if i else 0.0) + loss
    if i % 3 == 0 or i == n - 1:
        _BAR[0].set_description_str(f"accuracy: {getattr(on_step, 'acc', 0.0):.4f}, batch_loss: {loss:.4f}, loss: {on_step.s / (i + 1):.4f} ", refresh=False)


def log_epoch(epoch, n_epochs, m, lr):
    m.pop("_steps", None)
    _BAR[0].close()
    p = "2026-12-04 02:51:08,204 - INFO - allennlp.training.callbacks.console_logger - "
    print(p + "                       Training |  Validation")
    keys = sorted({k.split("_", 1)[1] for k in m})
    for k in keys:
        tr = m.get("train_" + k)
        va = m.get("val_" + k)
        print(p + f"{k:<22} |  {'N/A' if tr is None else f'{tr:8.3f}'}  |  {'N/A' if va is None else f'{va:8.3f}'}")
    on_step.acc = m.get("train_acc", 0.0)


def log_end(summary):
    print(f"2026-12-04 02:51:09,001 - INFO - allennlp.commands.train - {summary}", flush=True)

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
