# DeepSurv (Cox proportional-hazards MLP) on a flchain-like survival table in miniature: raw clinical
# covariates (age, sex, sample.yr ~1995, kappa, lambda, flc.grp, creatinine, mgus) fed to the
# network as they are, negative Cox partial log-likelihood, SGD with Nesterov momentum 0.9,
# lr 0.05 (a value in the range of the DeepSurv paper settings), L2 1e-4, full-batch updates (as in DeepSurv.train), 8 epochs.
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)

g = torch.Generator().manual_seed(2)
def make(n):
    age = 50 + 40 * torch.rand(n, generator=g)
    sex = (torch.rand(n, generator=g) < 0.55).float()
    year = torch.randint(1985, 2004, (n,), generator=g).float()
    kappa = torch.exp(0.3 * torch.randn(n, generator=g) + 0.3)
    lam = torch.exp(0.3 * torch.randn(n, generator=g) + 0.5)
    grp = torch.randint(1, 11, (n,), generator=g).float()
    creat = 1.0 + 0.3 * torch.randn(n, generator=g).abs()
    mgus = (torch.rand(n, generator=g) < 0.05).float()
    x = torch.stack([age, sex, year, kappa, lam, grp, creat, mgus], 1)
    risk = 0.08 * (age - 70) + 0.5 * (kappa + lam - 3) + 0.8 * (creat - 1.2)
    t = -torch.log(torch.rand(n, generator=g)) / (0.05 * torch.exp(risk))
    c = 15 * torch.rand(n, generator=g)
    e = (t <= c).float()
    return x, torch.minimum(t, c), e

x_tr, t_tr, e_tr = make(600)
x_va, t_va, e_va = make(200)

network = nn.Sequential(nn.Linear(8, 25), nn.ReLU(), nn.Linear(25, 25), nn.ReLU(), nn.Linear(25, 1))
opt = torch.optim.SGD(network.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-4)

def neg_log_likelihood(risk, t, e):
    order = torch.argsort(t, descending=True)
    risk, e = risk[order], e[order]
    log_risk = torch.log(torch.cumsum(torch.exp(risk), 0))
    return -((risk - log_risk) * e).sum() / e.sum()

def concordance(risk, t, e):
    num = den = 0.0
    for i in range(len(t)):
        if e[i] == 1:
            later = t > t[i]
            den += later.sum().item()
            num += (risk[later] < risk[i]).sum().item() + 0.5 * (risk[later] == risk[i]).sum().item()
    return num / den if den else 0.5

log = {'train': [], 'train_ci': [], 'valid': [], 'valid_ci': [], 'best_validation_loss': float('inf')}
for epoch in range(8):
    risk = network(x_tr).squeeze(1)
    loss = neg_log_likelihood(risk, t_tr, e_tr)
    opt.zero_grad(); loss.backward(); opt.step()
    with torch.no_grad():
        vr = network(x_va).squeeze(1)
        vloss = neg_log_likelihood(vr, t_va, e_va).item()
        tci, vci = concordance(risk.detach(), t_tr, e_tr), concordance(vr, t_va, e_va)
    log['train'].append(loss.item()); log['train_ci'].append(round(tci, 4))
    log['valid'].append(vloss); log['valid_ci'].append(round(vci, 4))
    if vloss < log['best_validation_loss']:
        log['best_validation_loss'] = vloss
    print(f"Epoch: {epoch}, loss: {loss.item()}, train_ci: {tci:.4f}, valid loss: {vloss}, valid_ci: {vci:.4f}")
print(log)
