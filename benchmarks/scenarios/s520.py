# alibaba/x-deeplearning issue "训练出现nan值" in miniature, ported from XDL to PyTorch: a CTR model with both sparse
# and dense features (sparse ids -> xdl.embedding with sum pooling, dense features concatenated, a 3-layer PReLU
# MLP, sigmoid cross entropy), trained on a stream of daily logs one day after another (xdl.Momentum, lr 0.02,
# momentum 0.9, L2 1e-5 on the MLP weights, batch 256), with "global_step: .., loss: .."
# and a per-day "day N finished: auc ..". Synthetic impression logs replace the poster's data: user, item and category ids
# (10 000 / 2 000 / 30), three dense ratio features in [0, 1] and one dense count feature (the user's page views in the
# last 7 days) fed as it comes; clicks are drawn from a hidden logistic model of all features. A small share of the
# records from day 5 on come from a crawler-like user whose 7-day count is in the millions. 8 "days" of 240 steps.
import csv, math
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
rs = np.random.RandomState(0)
N_USER, N_ITEM, N_CATE, EMB = 10000, 2000, 30, 8
BATCH, STEPS_PER_DAY, DAYS = 256, 240, 8

u_bias = rs.randn(N_USER) * 0.6; i_bias = rs.randn(N_ITEM) * 0.6; c_bias = rs.randn(N_CATE) * 0.4
def day_batches(day):
    r = np.random.RandomState(1000 + day)
    for _ in range(STEPS_PER_DAY):
        u = r.randint(0, N_USER, BATCH); it = r.randint(0, N_ITEM, BATCH); c = it % N_CATE
        ratios = r.rand(BATCH, 3).astype(np.float32)
        clicks7 = r.poisson(np.exp(r.randn(BATCH) * 0.8 + 1.0)).astype(np.float32)
        crawler = (r.rand(BATCH) < 4e-5) & (day >= 5)                 # a crawler shows up in the logs on day 5
        clicks7[crawler] = r.uniform(1e6, 5e6, crawler.sum())
        logit = -1.2 + u_bias[u] + i_bias[it] + c_bias[c] + 1.5 * ratios[:, 0] - ratios[:, 1] \
                + 0.4 * np.log1p(np.minimum(clicks7, 50))
        y = (r.rand(BATCH) < 1 / (1 + np.exp(-logit))).astype(np.float32)
        dense = np.concatenate([ratios, clicks7[:, None]], 1)
        yield (torch.from_numpy(u), torch.from_numpy(it), torch.from_numpy(c), torch.from_numpy(dense),
               torch.from_numpy(y))

class CTRModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.u = nn.EmbeddingBag(N_USER, EMB, mode='sum'); self.i = nn.EmbeddingBag(N_ITEM, EMB, mode='sum')
        self.c = nn.EmbeddingBag(N_CATE, EMB, mode='sum')
        for e in (self.u, self.i, self.c): nn.init.normal_(e.weight, std=0.01)
        self.mlp = nn.Sequential(nn.Linear(3 * EMB + 4, 64), nn.PReLU(), nn.Linear(64, 32), nn.PReLU(), nn.Linear(32, 1))
    def forward(self, u, it, c, dense):
        x = torch.cat([self.u(u[:, None]), self.i(it[:, None]), self.c(c[:, None]), dense], 1)
        return self.mlp(x).squeeze(1)

def auc(y, p):
    o = np.argsort(p); y = y[o]; n1 = y.sum(); n0 = len(y) - n1
    ranks = np.arange(1, len(y) + 1)
    return float((ranks[y == 1].sum() - n1 * (n1 + 1) / 2) / max(n1 * n0, 1))

model = CTRModel()
opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
wr = csv.writer(open('metrics.csv', 'w', newline=''))
wr.writerow(['day', 'global_step', 'loss', 'grad_norm', 'day_auc'])
step = 0
for day in range(1, DAYS + 1):
    ys, ps = [], []
    for u, it, c, dense, y in day_batches(day):
        logit = model(u, it, c, dense)
        loss = F.binary_cross_entropy_with_logits(logit, y) + 1e-5 * sum((p ** 2).sum() for n, p in model.mlp.named_parameters() if 'weight' in n)
        opt.zero_grad(); loss.backward()
        gn = math.sqrt(sum(float(p.grad.pow(2).sum()) for p in model.parameters() if p.grad is not None))
        opt.step(); step += 1
        ys.append(y.numpy()); ps.append(torch.sigmoid(logit).detach().numpy())
        wr.writerow([day, step, '%.6g' % loss.item(), '%.4g' % gn, ''])
        if step % 40 == 0:
            print('global_step: %d, loss: %.6f, grad_norm: %.4g' % (step, loss.item(), gn), flush=True)
    yv, pv = np.concatenate(ys), np.concatenate(ps)
    a = auc(yv, pv) if np.all(np.isfinite(pv)) else float('nan')
    print('day %d finished: auc %.4f' % (day, a), flush=True)
    wr.writerow([day, step, '', '', '%.4f' % a])
