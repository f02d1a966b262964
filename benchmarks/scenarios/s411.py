# llm.c (karpathy) train_gpt2 (the CPU/C reference loop) in miniature, ported to PyTorch: a small
# GPT-2-style model (2 layers, 4 heads, 64 channels, vocab 128 here) trained on a tiny synthetic
# token corpus (a fixed first-order Markov source with a few likely successors per token, so the
# achievable loss has a floor), default CPU settings B = 4, T = 64, AdamW lr 1e-3 (1e-4 in llm.c,
# which starts from the GPT-2 checkpoint; this miniature starts from scratch), 1000 steps,
# "step N: train loss X (took Y ms)" every step and "val loss X" every 10 steps, as train_gpt2 prints.
import csv, time, math
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(138); torch.manual_seed(138); torch.set_num_threads(1)
V, B, T, C = 128, 4, 64, 64
succ = np.random.randint(0, V, (V, 4)); probs = np.array([0.55, 0.25, 0.12, 0.08])
def corpus(n):
    out = np.zeros(n, np.int64); t = 0
    for i in range(n): t = succ[t, np.random.choice(4, p=probs)]; out[i] = t
    return torch.tensor(out)
train_tokens, val_tokens = corpus(40000), corpus(4000)
floor = -(probs * np.log(probs)).sum()

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(C); self.attn = nn.MultiheadAttention(C, 4, batch_first=True)
        self.ln_2 = nn.LayerNorm(C); self.mlp = nn.Sequential(nn.Linear(C, 4 * C), nn.GELU(), nn.Linear(4 * C, C))
    def forward(self, x, mask):
        h = self.ln_1(x); x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.mlp(self.ln_2(x))
class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(V, C); self.wpe = nn.Embedding(T, C)
        self.h = nn.ModuleList([Block() for _ in range(2)]); self.ln_f = nn.LayerNorm(C)
        self.mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
    def forward(self, idx, targets):
        x = self.wte(idx) + self.wpe(torch.arange(idx.size(1)))
        for b in self.h: x = b(x, self.mask)
        logits = self.ln_f(x) @ self.wte.weight.T
        return F.cross_entropy(logits.view(-1, V), targets.view(-1))

def get_batch(tokens, pos):
    buf = tokens[pos:pos + B * T + 1]
    return buf[:-1].view(B, T), buf[1:].view(B, T)
model = GPT()
for n_, p_ in model.named_parameters():
    if p_.dim() == 2 and 'ln' not in n_: nn.init.normal_(p_, std=0.02)   # GPT-2 init
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0)
print("[GPT-2]\nmax_seq_len: %d\nvocab_size: %d\nnum_layers: 2\nnum_heads: 4\nchannels: %d" % (T, V, C))
print("train dataset num_batches: %d\nval dataset num_batches: %d" % (len(train_tokens) // (B * T), len(val_tokens) // (B * T)))
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['step', 'train_loss', 'val_loss'])
tpos = 0; val_num_batches = 5
for step in range(0, 1001):
    row = [step, '', '']
    if step % 10 == 0:
        model.eval(); vl = 0.0
        with torch.no_grad():
            for i in range(val_num_batches): vl += model(*get_batch(val_tokens, i * B * T)).item()
        print("val loss %f" % (vl / val_num_batches)); row[2] = round(vl / val_num_batches, 6)
    if step == 1000: wr.writerow(row); break
    model.train(); t0 = time.time()
    if tpos + B * T + 1 > len(train_tokens): tpos = 0
    x, y = get_batch(train_tokens, tpos); tpos += B * T
    loss = model(x, y); opt.zero_grad(); loss.backward(); opt.step()
    print("step %d: train loss %f (took %f ms)" % (step, loss.item(), (time.time() - t0) * 1000))
    row[1] = round(loss.item(), 6); wr.writerow(row)
