# Continued (incremental) pre-training of a small causal language model in miniature: a 2-layer
# decoder-only transformer on a synthetic token corpus (vocab 200, sequences of 64 tokens), next-token
# cross-entropy. As in the report the optimizer is plain SGD with a step decay (x0.9 every 10 epochs);
# the initial lr here is 1e-3 (the report: SGD lr 0.1 on a 0.5B model, loss 2.4818 -> 2.4645 in 60
# epochs). The per-epoch mean training loss is written as a CSV-like log (epoch,train_loss_mean).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(41)

V, L, D = 200, 32, 64
trans = torch.softmax(3.0 * torch.randn(V, V, generator=g), -1)        # sparse-ish bigram language
def sample(n):
    x = torch.zeros(n, L + 1, dtype=torch.long)
    x[:, 0] = torch.randint(0, V, (n,), generator=g)
    for k in range(1, L + 1):
        x[:, k] = torch.multinomial(trans[x[:, k - 1]], 1, generator=g).squeeze(1)
    return x
data = sample(384)

class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, D)
        self.pos = nn.Parameter(torch.zeros(L, D))
        layer = nn.TransformerEncoderLayer(D, 4, 4 * D, 0.0, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, 2)
        self.ln = nn.LayerNorm(D)
        self.head = nn.Linear(D, V, bias=False)
        nn.init.normal_(self.emb.weight, std=0.02); nn.init.normal_(self.head.weight, std=0.02)
    def forward(self, x):
        mask = nn.Transformer.generate_square_subsequent_mask(x.size(1))
        h = self.blocks(self.emb(x) + self.pos[:x.size(1)], mask=mask, is_causal=True)
        return self.head(self.ln(h))

model = LM()
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.9)
print('epoch,train_loss_mean')
for epoch in range(40):
    model.train(); tot, nb = 0.0, 0
    perm = torch.randperm(len(data))
    for i in range(0, len(data), 32):
        b = data[perm[i:i + 32]]
        logits = model(b[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, V), b[:, 1:].reshape(-1))
        opt.zero_grad(); loss.backward(); opt.step()
        tot += loss.item(); nb += 1
    sched.step()
    print('{},{}'.format(epoch, tot / nb))
