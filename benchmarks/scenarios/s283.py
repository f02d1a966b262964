# CTR prediction in miniature (EasyRec-style wide & deep): 4 raw numeric features fed to the deep tower
# exactly as logged (age in years, item price in cents, historical click count, dwell time in ms: scales
# from 1e1 to 1e5) with no bucketing or normalisation, plus two categorical id embeddings. Binary
# click label, BCE-with-logits, Adam 1e-3, batch 256, 6 epochs, EasyRec-like log lines.
import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(283)


def make(n):
    age = torch.randint(18, 70, (n,), generator=g).float()
    price = torch.exp(torch.rand(n, generator=g) * 9 + 3)             # 20 .. 160000 cents
    clicks = torch.exp(torch.rand(n, generator=g) * 11)               # 1 .. 60000
    dwell = torch.rand(n, generator=g) * 60000                        # ms
    user = torch.randint(0, 500, (n,), generator=g)
    item = torch.randint(0, 800, (n,), generator=g)
    z = (-0.04 * (age - 40) - 0.5 * (torch.log(price) - 7.5) + 0.35 * (torch.log(clicks) - 5.5)
         + 2.0 * (dwell / 60000 - 0.5) + 0.6 * torch.sin(user.float()) + 0.6 * torch.cos(item.float()))
    label = (torch.rand(n, generator=g) < torch.sigmoid(z)).float()
    return torch.stack([age, price, clicks, dwell], 1), user, item, label


def auc(score, y):
    order = score.argsort()
    ranks = torch.empty_like(order, dtype=torch.float); ranks[order] = torch.arange(1, len(score) + 1).float()
    pos = y == 1
    npos, nneg = pos.sum().item(), (~pos).sum().item()
    return (ranks[pos].sum().item() - npos * (npos + 1) / 2) / (npos * nneg)


class WideDeep(nn.Module):
    def __init__(self):
        super().__init__()
        self.ue = nn.Embedding(500, 16); self.ie = nn.Embedding(800, 16)
        self.deep = nn.Sequential(nn.Linear(4 + 32, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 1))
        self.wide = nn.Linear(4, 1)

    def forward(self, num, u, i):
        h = torch.cat([num, self.ue(u), self.ie(i)], 1)                 # raw numeric values go straight in
        return (self.deep(h) + self.wide(num)).squeeze(1)


tr = make(12000); te = make(3000)
loader = DataLoader(TensorDataset(*tr), batch_size=256, shuffle=True)
model = WideDeep()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
step = 0
for epoch in range(6):
    for num, u, i, y in loader:
        logit = model(num, u, i)
        loss = F.binary_cross_entropy_with_logits(logit, y)
        opt.zero_grad(); loss.backward(); opt.step()
        step += 1
        if step % 10 == 0:
            print('[epoch {}] global_step = {}, loss = {:.4f}, lr = 0.001'.format(epoch, step, loss.item()))
    with torch.no_grad():
        num, u, i, y = te
        s = model(num, u, i)
        el = F.binary_cross_entropy_with_logits(s, y).item()
    print('Eval epoch {}: auc = {:.4f}, loss = {:.4f}'.format(epoch, auc(s, y), el))
