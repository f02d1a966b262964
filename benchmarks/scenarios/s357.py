# ROCStories-style story-ending choice in miniature, after the run_openai_gpt.py fine-tuning example (double-heads
# model: language-modelling head + multiple-choice head on the last token, loss = mc_loss + lm_coef * lm_loss with
# lm_coef 0.9, Adam with linear warmup and decay): synthetic 4-sentence "stories" of 24 tokens drawn from one of
# 12 topics, two candidate 6-token endings (one on the story's topic, one on another topic) separated by a delimiter,
# a tiny causal transformer (2 layers, d 64, 4 heads), Adam lr 1e-3 with 10% warmup then linear decay, batch 16,
# 3 epochs over 1600 stories. The training loop calls loss.backward(), optimizer.step() and the schedule step for
# every batch but never zeroes the gradients (no optimizer.zero_grad()). Prints the training loss every 25 steps
# ("Training loss: ... lr ...") and eval loss / eval accuracy on 400 held-out stories after each epoch.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(357)
TOPICS, PER, V, DELIM = 12, 12, 12 * 12 + 40 + 2, 12 * 12 + 40
CLF = DELIM + 1
words = torch.arange(TOPICS * PER).view(TOPICS, PER)


def stories(n):
    t = torch.randint(0, TOPICS, (n,), generator=g)
    other = (t + torch.randint(1, TOPICS, (n,), generator=g)) % TOPICS
    def draw(tp, L):
        w = words[tp[:, None], torch.randint(0, PER, (len(tp), L), generator=g)]
        filler = TOPICS * PER + torch.randint(0, 40, (len(tp), L), generator=g)
        return torch.where(torch.rand(len(tp), L, generator=g) < 0.35, w, filler)
    ctx, good, bad = draw(t, 24), draw(t, 6), draw(other, 6)
    label = torch.randint(0, 2, (n,), generator=g)
    e0 = torch.where(label[:, None] == 0, good, bad); e1 = torch.where(label[:, None] == 0, bad, good)
    d = torch.full((n, 1), DELIM); c = torch.full((n, 1), CLF)
    return torch.stack([torch.cat([ctx, d, e0, c], 1), torch.cat([ctx, d, e1, c], 1)], 1), label


Xtr, Ytr = stories(1600)
Xev, Yev = stories(400)
L = Xtr.shape[2]


class DoubleHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok, self.pos = nn.Embedding(V, 64), nn.Embedding(L, 64)
        layer = nn.TransformerEncoderLayer(64, 4, 128, dropout=0.1, batch_first=True, norm_first=True)
        self.tf = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.ln, self.mc = nn.LayerNorm(64), nn.Linear(64, 1)
        nn.init.normal_(self.tok.weight, std=0.02); nn.init.normal_(self.pos.weight, std=0.01)
        self.mask = torch.triu(torch.full((L, L), float('-inf')), 1)

    def forward(self, x):
        b = x.shape[0]; x = x.view(-1, L)
        h = self.ln(self.tf(self.tok(x) + self.pos.weight, mask=self.mask))
        lm_logits = h @ self.tok.weight.t()
        return lm_logits, self.mc(h[:, -1]).view(b, 2)


def losses(model, x, y):
    lm_logits, mc_logits = model(x)
    flat = x.view(-1, L)
    lm = F.cross_entropy(lm_logits[:, :-1].reshape(-1, V), flat[:, 1:].reshape(-1))
    return F.cross_entropy(mc_logits, y), lm, mc_logits


model = DoubleHeads()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
EPOCHS, BS = 3, 16
total = EPOCHS * len(Xtr) // BS
sched = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min((s + 1) / (0.1 * total), max(0.0, (total - s) / (0.9 * total))))
rows, step = [], 0
for epoch in range(EPOCHS):
    model.train(); perm = torch.randperm(len(Xtr), generator=g); run = []
    for k in range(0, len(perm), BS):
        i = perm[k:k + BS]
        mc, lm, _ = losses(model, Xtr[i], Ytr[i])
        loss = mc + 0.9 * lm
        loss.backward()
        optimizer.step(); sched.step(); step += 1
        run.append(loss.item())
        if step % 25 == 0:
            print(f"Training loss: {sum(run[-25:]) / len(run[-25:]):.2e} lr: {sched.get_last_lr()[0]:.2e}")
    model.eval()
    with torch.no_grad():
        mc, lm, logits = losses(model, Xev, Yev)
        acc = (logits.argmax(1) == Yev).float().mean().item()
    r = dict(epoch=epoch + 1, train_loss=sum(run) / len(run), eval_mc_loss=mc.item(), eval_lm_loss=lm.item(), eval_accuracy=acc)
    rows.append(r)
    print(f"epoch {epoch + 1}: eval_loss = {mc.item():.4f} eval_lm_loss = {lm.item():.4f} eval_accuracy = {acc:.4f} train_loss = {r['train_loss']:.4f}")
with open('metrics.csv', 'w', newline='') as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
