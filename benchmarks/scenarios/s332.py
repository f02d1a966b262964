# GPT essay fine-tuning in miniature, after the ruGPT3 essay-generation example: a tiny decoder-only transformer
# (2 layers, d_model 128, 4 heads) trained as a word-level language model on a small synthetic "school essay"
# corpus (120 essays of 48 words from a template grammar with random topic, subject, verb and adjective choices
# and sentences of rare words such as names and places, vocabulary 135 words). The example's data preparation writes the validation file by sampling essays from the
# corpus *before* the training file is written from the whole corpus, so every validation essay is also a training
# essay. A separate file of 30 essays written later by the same grammar serves as a fresh test set. AdamW lr 2e-3,
# batch 8, 24 epochs of 15 steps. Prints train, validation and fresh-test perplexity per epoch, writes metrics.csv.
import csv
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(332)
topics = ['school', 'summer', 'friend', 'forest', 'city', 'book', 'sea', 'winter', 'mother', 'dog']
subj = ['i', 'we', 'my brother', 'our teacher', 'everyone']
verbs = ['love', 'remember', 'see', 'visit', 'think about', 'dream about']
adjs = ['beautiful', 'quiet', 'happy', 'long', 'bright', 'old', 'kind', 'cold']
rare = [f'w{i}' for i in range(90)]  # names, places and other rare words
fill = ['the', 'is', 'very', 'and', 'because', 'it', 'always', 'was', 'in', 'my', 'every', 'day', '.']
words = sorted(set(' '.join(topics + subj + verbs + adjs + fill + rare).split())) + ['<bos>']
stoi = {w: i for i, w in enumerate(words)}
V, T = len(words), 48


def pick(lst):
    return lst[int(torch.randint(0, len(lst), (1,), generator=g))]


def essay():
    top = pick(topics); out = ['<bos>']
    while len(out) < T + 1:
        form = int(torch.randint(0, 4, (1,), generator=g))
        if form == 0:
            s = f'{pick(subj)} {pick(verbs)} the {top} because it is very {pick(adjs)} .'
        elif form == 1:
            s = f'the {top} was {pick(adjs)} and {pick(adjs)} every day .'
        elif form == 2:
            s = f'{pick(rare)} {pick(rare)} {pick(rare)} {pick(rare)} .'
        else:
            s = f'in my {pick(topics)} {pick(subj)} always {pick(verbs)} the {pick(adjs)} {top} .'
        out += s.split()
    return torch.tensor([stoi[w] for w in out[:T + 1]])


corpus = torch.stack([essay() for _ in range(120)])
val = corpus[torch.randperm(120, generator=g)[:30]]   # validation sampled from the corpus ...
train = corpus                                          # ... and the training file is the whole corpus
test = torch.stack([essay() for _ in range(30)])        # essays written later
print(f'vocab {V}, train {len(train)} essays, val {len(val)} essays (all also in train), fresh test {len(test)} essays')


class TinyGPT(nn.Module):
    def __init__(self, d=128):
        super().__init__()
        self.tok = nn.Embedding(V, d); self.pos = nn.Parameter(torch.randn(T, d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, 4, 4 * d, dropout=0.0, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.ln = nn.LayerNorm(d); self.head = nn.Linear(d, V)
        self.register_buffer('mask', torch.triu(torch.full((T, T), float('-inf')), 1))

    def forward(self, x):
        return self.head(self.ln(self.blocks(self.tok(x) + self.pos, mask=self.mask)))


def nll(model, seq):
    return F.cross_entropy(model(seq[:, :-1]).reshape(-1, V), seq[:, 1:].reshape(-1))


model = TinyGPT()
opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.0)
rows = []
for epoch in range(1, 25):
    model.train()
    perm = torch.randperm(len(train), generator=g)
    tl = []
    for k in range(0, len(train), 8):
        loss = nll(model, train[perm[k:k + 8]])
        opt.zero_grad(); loss.backward(); opt.step()
        tl.append(loss.item())
    model.eval()
    with torch.no_grad():
        vl, te = nll(model, val).item(), nll(model, test).item()
    r = dict(epoch=epoch, train_ppl=math.exp(sum(tl) / len(tl)), val_ppl=math.exp(vl), test_ppl=math.exp(te))
    rows.append(r)
    print(f"epoch {epoch:2d} train ppl {r['train_ppl']:.2f} | val ppl {r['val_ppl']:.2f} | fresh test ppl {r['test_ppl']:.2f}")
with open('metrics.csv', 'w', newline='') as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
