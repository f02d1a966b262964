"""Bayes-by-backprop MLP regression on synthetic 8-feature data: y = sin(2*x0) + 0.5*x1^2 - x2*x3 + 0.3*x4 + noise
(sd 0.3). Three Bayesian linear layers (8-64-64-1, ReLU) with a factorised Gaussian posterior over every weight
(sigma = softplus(rho)), a N(0, 1) prior and the closed-form KL; one weight sample per mini-batch. Loss = Gaussian
NLL (known noise sd 0.3) + KL / N_train, per training example. Adam; reported: loss, NLL, KL term and the validation
RMSE of the posterior-mean network."""
import math
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
LR, BATCH, EPOCHS = 1e-05, 64, 15
NOISE_SD = 0.3


def log_start(n_params, n_tr, n_va, lr, batch, epochs):
    print(f"Melatih rangkaian neural Bayesian: {n_params} parameter, {n_tr} sampel latihan, {n_va} sampel pengesahan, kadar pembelajaran {lr}")


def log_step(epoch, i, n, loss, gstep, el):
    pass


def log_epoch(epoch, epochs, tl, tnll, tkl, vr, vnll, lr, gstep, el):
    print(f"Epok {epoch}/{epochs}: kerugian latihan {tl:.4f} (NLL {tnll:.4f}, KL {tkl:.4f}) | RMSE pengesahan {vr:.4f}")


def log_end(vr, el):
    print(f"Selesai. RMSE pengesahan akhir: {vr:.4f}")

gen = torch.Generator().manual_seed(17)


def make_data(n):
    x = torch.randn(n, 8, generator=gen)
    y = torch.sin(2 * x[:, 0]) + 0.5 * x[:, 1] ** 2 - x[:, 2] * x[:, 3] + 0.3 * x[:, 4]
    return x, (y + NOISE_SD * torch.randn(n, generator=gen))[:, None]


x_train, y_train = make_data(2000)
x_val, y_val = make_data(500)
N_TRAIN = len(x_train)


class BayesLinear(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.w_mu = nn.Parameter(torch.empty(n_out, n_in).uniform_(-1, 1) / math.sqrt(n_in))
        self.w_rho = nn.Parameter(torch.full((n_out, n_in), -5.0))
        self.b_mu = nn.Parameter(torch.zeros(n_out))
        self.b_rho = nn.Parameter(torch.full((n_out,), -5.0))

    def forward(self, x, sample=True):
        if not sample:
            return F.linear(x, self.w_mu, self.b_mu)
        w = self.w_mu + F.softplus(self.w_rho) * torch.randn_like(self.w_mu)
        b = self.b_mu + F.softplus(self.b_rho) * torch.randn_like(self.b_mu)
        return F.linear(x, w, b)

    def kl(self):
        total = 0.0
        for mu, rho in ((self.w_mu, self.w_rho), (self.b_mu, self.b_rho)):
            sigma = F.softplus(rho)
            total = total + (0.5 * (sigma ** 2 + mu ** 2 - 1.0) - torch.log(sigma)).sum()
        return total


class BayesMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2, self.l3 = BayesLinear(8, 64), BayesLinear(64, 64), BayesLinear(64, 1)

    def forward(self, x, sample=True):
        h = F.relu(self.l1(x, sample))
        h = F.relu(self.l2(h, sample))
        return self.l3(h, sample)

    def kl(self):
        return self.l1.kl() + self.l2.kl() + self.l3.kl()


def gauss_nll(pred, y):
    return (0.5 * ((y - pred) / NOISE_SD) ** 2 + math.log(NOISE_SD) + 0.5 * math.log(2 * math.pi)).mean()


model = BayesMLP()
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
n_params = sum(p.numel() for p in model.parameters())
steps = (N_TRAIN + BATCH - 1) // BATCH
log_start(n_params, N_TRAIN, len(x_val), LR, BATCH, EPOCHS)

gstep = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    model.train()
    order = torch.randperm(N_TRAIN)
    tot = tot_nll = tot_kl = 0.0
    for i in range(steps):
        idx = order[i * BATCH:(i + 1) * BATCH]
        optimizer.zero_grad()
        nll = gauss_nll(model(x_train[idx]), y_train[idx])
        kl_term = model.kl() / N_TRAIN
        loss = nll + kl_term
        loss.backward()
        optimizer.step()
        gstep += 1
        tot += loss.item() * len(idx)
        tot_nll += nll.item() * len(idx)
        tot_kl += kl_term.item() * len(idx)
        log_step(epoch, i + 1, steps, loss.item(), gstep, time.time() - t0)
    model.eval()
    with torch.no_grad():
        pred = model(x_val, sample=False)
        val_rmse = (pred - y_val).pow(2).mean().sqrt().item()
        val_nll = gauss_nll(pred, y_val).item()
    log_epoch(epoch, EPOCHS, tot / N_TRAIN, tot_nll / N_TRAIN, tot_kl / N_TRAIN, val_rmse, val_nll,
              optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
log_end(val_rmse, time.time() - t0)
