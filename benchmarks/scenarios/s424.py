# pycorrector Chinese spelling correction (CSC) training in miniature: a MacBERT4CSC-style token-level
# corrector (embedding + 2-layer Transformer encoder + per-token vocabulary head; the output at each
# position is the corrected character), trained on (src, tgt) sentence pairs read from a user's own
# json training file; 1200 synthetic pairs over a 600-character vocabulary (src = tgt with 1-2 characters
# replaced by confusable ones), sentence lengths 8-16, batch 32, AdamW 5e-5 -> here 1e-3, one epoch shown
# with "Epoch: 1, Step: N, loss: ..., det_acc: ..." lines every 5 steps.
# The custom data set was not cleaned: a few pairs are not character-aligned (the source sentence has one
# character more than the target, e.g. a duplicated character that the "correction" deletes); the collate
# function pads src and tgt of a batch separately, and the loss flattens both.
import csv, random
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

random.seed(424); np.random.seed(424); torch.manual_seed(424); torch.set_num_threads(1)
V, PAD = 600, 0
conf = {c: [int(x) for x in np.random.randint(1, V, 3)] for c in range(1, V)}
pairs = []
for i in range(1200):
    L = random.randint(8, 16); tgt = [random.randint(1, V - 1) for _ in range(L)]; src = list(tgt)
    for p in random.sample(range(L), random.randint(1, 2)):
        src[p] = random.choice(conf[tgt[p]])
    pairs.append((src, tgt))
for j in (203, 611, 950):                       # unaligned pairs in the user's data (src has one extra char)
    tgt = [random.randint(1, V - 1) for _ in range(16)]; k = random.randrange(len(tgt))
    pairs[j] = (tgt[:k] + [tgt[k]] + tgt[k:], tgt)
print('Loaded %d train pairs from train.json, vocab size %d' % (len(pairs), V))

def collate(batch):
    ls, lt = max(len(s) for s, _ in batch), max(len(t) for _, t in batch)
    src = torch.tensor([s + [PAD] * (ls - len(s)) for s, _ in batch])
    tgt = torch.tensor([t + [PAD] * (lt - len(t)) for _, t in batch])
    return src, tgt

class CSCModel(nn.Module):
    def __init__(self, d=96):
        super().__init__()
        self.emb = nn.Embedding(V, d, padding_idx=PAD); self.pos = nn.Embedding(64, d)
        self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, 4, 192, 0.1, batch_first=True), 2)
        self.det = nn.Linear(d, 1); self.cor = nn.Linear(d, V)
    def forward(self, x):
        h = self.enc(self.emb(x) + self.pos(torch.arange(x.size(1))), src_key_padding_mask=(x == PAD))
        return self.det(h).squeeze(-1), self.cor(h)

model = CSCModel(); opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['epoch', 'step', 'loss', 'det_acc'])
order = list(range(len(pairs))); random.shuffle(order)
step = 0
for epoch in range(1, 4):
    model.train()
    for b in range(0, len(order), 32):
        src, tgt = collate([pairs[i] for i in order[b:b + 32]])
        det_logits, cor_logits = model(src)
        cor_loss = F.cross_entropy(cor_logits.view(-1, V), tgt.view(-1), ignore_index=PAD)
        det_label = (src != tgt).float()
        det_loss = F.binary_cross_entropy_with_logits(det_logits, det_label)
        loss = 0.7 * cor_loss + 0.3 * det_loss
        opt.zero_grad(); loss.backward(); opt.step(); step += 1
        det_acc = ((det_logits > 0).float() == det_label).float().mean().item()
        if step % 5 == 0:
            print('Epoch: %d, Step: %d, loss: %.4f, det_acc: %.4f' % (epoch, step, loss.item(), det_acc))
            wr.writerow([epoch, step, loss.item(), det_acc])
