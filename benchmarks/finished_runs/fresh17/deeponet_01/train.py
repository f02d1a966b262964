"""DeepONet (unstacked) learning the antiderivative operator G(u)(y) = int_0^y u(s) ds on synthetic functions
u(x) = sum_k a_k sin(k pi x) + b_k cos(k pi x), k = 1..3, a, b ~ N(0, 1): the branch net reads u at 32 fixed sensors
on [0, 1], the trunk net reads a query point y, and the prediction is the dot product of their 32-d outputs plus a
bias. 1200 training functions and 300 validation functions, 10 random query points each, exact targets.
Tanh MLPs (2 x 64), MSE, Adam; RMSE is reported."""
import math
import sys
import time
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
LR, BATCH, EPOCHS, N_FUNC = 0.001, 32, 20, 1200
MET = "rmse"
_acc = {"loss": 0.0, "n": 0, "first": 1}


def log_start(n_params, n_tr, n_va, lr, batch, epochs):
    print(f"Training {n_params} parameters in 8 parameter tensors.")
    print("")
    print(f"Learning rate per minibatch: {lr}")
    _acc["first"] = 1


def log_step(epoch, i, n, loss, lr, gstep, el):
    _acc["loss"] += loss
    _acc["n"] += 1
    if i % 10 == 0:
        print(f" Minibatch[{i - 9:4d}-{i:4d}]: loss = {_acc['loss'] / _acc['n']:.6f} * {_acc['n'] * 32}, metric = {(_acc['loss'] / _acc['n']) ** 0.5 * 100:.2f}% * {_acc['n'] * 32};")
        _acc["loss"], _acc["n"] = 0.0, 0


def log_epoch(epoch, epochs, tl, tm, vl, vm, lr, gstep, el):
    _acc["loss"], _acc["n"] = 0.0, 0
    print(f"Finished Epoch[{epoch} of {epochs}]: [Training] loss = {tl:.6f} * 1200, metric = {tm * 100:.2f}% * 1200 {el:.3f}s ({1200 * epoch / max(el, 1e-6):5.1f} samples/s);")
    print(f"Finished Evaluation [{epoch}]: Minibatch[1-10]: metric = {vm * 100:.2f}% * 300;")


def log_end(vm, el):
    print(f"Final Results: Minibatch[1-10]: errs = {vm * 100:.2f}% * 300")
M, P, K = 32, 10, 3
gen = torch.Generator().manual_seed(5)
sensors = torch.linspace(0, 1, M)


def make_data(n):
    a = torch.randn(n, K, generator=gen)
    b = torch.randn(n, K, generator=gen)
    k = torch.arange(1, K + 1).float() * math.pi
    u = (a[:, None, :] * torch.sin(k * sensors[:, None]) + b[:, None, :] * torch.cos(k * sensors[:, None])).sum(-1)
    y = torch.rand(n, P, generator=gen)
    ky = k * y.unsqueeze(-1)
    g = (a[:, None, :] * (1 - torch.cos(ky)) / k + b[:, None, :] * torch.sin(ky) / k).sum(-1)
    return u, y.unsqueeze(-1), g


u_train, y_train, g_train = make_data(N_FUNC)
u_val, y_val, g_val = make_data(300)


def mlp(d_in, d_out, width=64):
    return nn.Sequential(nn.Linear(d_in, width), nn.Tanh(), nn.Linear(width, width), nn.Tanh(),
                         nn.Linear(width, d_out))


class DeepONet(nn.Module):
    def __init__(self, p=32):
        super().__init__()
        self.branch = mlp(M, p)
        self.trunk = mlp(1, p)
        self.bias = nn.Parameter(torch.zeros(1))

    def forward(self, u, y):
        b = self.branch(u)
        t = self.trunk(y)
        return torch.einsum("np,nqp->nq", b, t) + self.bias


model = DeepONet()
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
n_params = sum(p.numel() for p in model.parameters())
steps = (len(u_train) + BATCH - 1) // BATCH
log_start(n_params, len(u_train), len(u_val), LR, BATCH, EPOCHS)

gstep = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    model.train()
    order = torch.randperm(len(u_train))
    tot_loss = 0.0
    for i in range(steps):
        idx = order[i * BATCH:(i + 1) * BATCH]
        optimizer.zero_grad()
        pred = model(u_train[idx], y_train[idx])
        loss = criterion(pred, g_train[idx])
        loss.backward()
        optimizer.step()
        gstep += 1
        tot_loss += loss.item() * len(idx)
        log_step(epoch, i + 1, steps, loss.item(), optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
    model.eval()
    with torch.no_grad():
        val_loss = criterion(model(u_val, y_val), g_val).item()
    tl = tot_loss / len(u_train)
    log_epoch(epoch, EPOCHS, tl, math.sqrt(tl), val_loss, math.sqrt(val_loss),
              optimizer.param_groups[0]["lr"], gstep, time.time() - t0)
log_end(math.sqrt(val_loss), time.time() - t0)
