# Joint species-distribution model in miniature (mistnet-style): presence/absence of 20 species at 1500
# sites predicted from 8 environmental covariates (standardised) by an MLP 8 -> 32 -> 32 -> 20 with
# tanh hidden units and a sigmoid output per species. The network's weights are never randomly
# initialised: a custom init sets every weight and bias to 0. BCE, Adam 1e-3, batch 50, 30 epochs.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(289)

n, d, S = 1500, 8, 20
env = torch.randn(n, d, generator=g)
W = torch.randn(d, S, generator=g) * 1.2
b = torch.randn(S, generator=g) - 0.5
z = env @ W + 0.8 * torch.tanh(env[:, :2] @ torch.randn(2, S, generator=g)) + b
Y = (torch.rand(n, S, generator=g) < torch.sigmoid(z)).float()
tr, te = slice(0, 1200), slice(1200, n)

net = nn.Sequential(nn.Linear(d, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, S))
for m in net.modules():
    if isinstance(m, nn.Linear):
        nn.init.zeros_(m.weight); nn.init.zeros_(m.bias)
opt = torch.optim.Adam(net.parameters(), lr=1e-3)


def mean_auc(score, y):
    aucs = []
    for s in range(y.shape[1]):
        pos = y[:, s] == 1; npos, nneg = pos.sum().item(), (~pos).sum().item()
        if npos == 0 or nneg == 0:
            continue
        r = torch.empty(len(score)); r[score[:, s].argsort()] = torch.arange(1, len(score) + 1).float()
        aucs.append((r[pos].sum().item() - npos * (npos + 1) / 2) / (npos * nneg))
    return sum(aucs) / len(aucs)


print('epoch,train_bce,test_bce,test_mean_auc,grad_norm_first_layer')
for epoch in range(1, 31):
    perm = torch.randperm(1200); tot = 0.0
    for i in range(0, 1200, 50):
        idx = perm[i:i + 50]
        loss = F.binary_cross_entropy_with_logits(net(env[tr][idx]), Y[tr][idx])
        opt.zero_grad(); loss.backward()
        g1 = net[0].weight.grad.norm().item()
        opt.step(); tot += loss.item() * len(idx)
    with torch.no_grad():
        out = net(env[te]); tl = F.binary_cross_entropy_with_logits(out, Y[te]).item()
    print('{},{:.4f},{:.4f},{:.4f},{:.3g}'.format(epoch, tot / 1200, tl, mean_auc(out, Y[te]), g1))
