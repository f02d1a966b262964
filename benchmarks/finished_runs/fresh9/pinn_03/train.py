"""Physics-informed neural network (PINN) for a 1-D boundary value problem, in the style of a small
PyTorch PINN notebook: u''(x) = -4 pi^2 sin(2 pi x) on [0, 1] with u(0) = u(1) = 0 (exact solution
u = sin(2 pi x)). A tanh MLP is trained on the ODE residual at collocation points (second derivative by
autograd) plus a boundary penalty; the relative L2 error against the exact solution is reported on a
fixed 201-point grid. One 'epoch' below is a block of iterations."""
import math
import time
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
CFG = dict(iters_per_epoch=100, epochs=30, lr=0.05, n_colloc=128, resample=False, hidden=32, depth=3,
           bc_weight=10.0, lr_step_epochs=10, lr_gamma=0.5)
_hdr = {"done": False}


def log_info(msg):
    print("# " + msg)


def progress(it, epoch, n_epochs, n_batches):
    return it


def on_batch(bar, loss):
    pass


def log_epoch(epoch, n_epochs, m, lr):
    if not _hdr["done"]:
        print(",".join(["epoch"] + list(m) + ["lr"]))
        _hdr["done"] = True
    print(",".join([str(epoch)] + [f"{v:.6f}" for v in m.values()] + [f"{lr:.6g}"]))


def log_end(summary):
    print("# " + ", ".join(f"{k}={v}" for k, v in summary.items()))


class PINN(nn.Module):
    def __init__(self, hidden, depth):
        super().__init__()
        layers, d_in = [], 1
        for _ in range(depth):
            layers += [nn.Linear(d_in, hidden), nn.Tanh()]
            d_in = hidden
        layers.append(nn.Linear(d_in, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def forcing(x):
    return -4 * math.pi ** 2 * torch.sin(2 * math.pi * x)


def exact(x):
    return torch.sin(2 * math.pi * x)


def residual(model, x):
    x = x.clone().requires_grad_(True)
    u = model(x)
    u_x = torch.autograd.grad(u, x, torch.ones_like(u), create_graph=True)[0]
    u_xx = torch.autograd.grad(u_x, x, torch.ones_like(u_x), create_graph=True)[0]
    return u_xx - forcing(x)


model = PINN(CFG["hidden"], CFG["depth"])
optimizer = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=CFG["lr_step_epochs"], gamma=CFG["lr_gamma"])
x_grid = torch.linspace(0, 1, CFG["n_colloc"]).unsqueeze(1)
x_bc = torch.tensor([[0.0], [1.0]])
u_bc = torch.zeros(2, 1)
x_test = torch.linspace(0, 1, 201).unsqueeze(1)
n_params = sum(p.numel() for p in model.parameters())
log_info(f"PINN 1-{CFG['hidden']}x{CFG['depth']}-1 tanh, {n_params} params | collocation {CFG['n_colloc']} "
         f"({'resampled' if CFG['resample'] else 'fixed grid'}) | bc_weight {CFG['bc_weight']} | Adam lr {CFG['lr']}")

t_start = time.time()
for epoch in range(1, CFG["epochs"] + 1):
    model.train()
    s_tot = s_pde = s_bc = 0.0
    bar = progress(range(CFG["iters_per_epoch"]), epoch, CFG["epochs"], CFG["iters_per_epoch"])
    for it in bar:
        x_c = torch.rand(CFG["n_colloc"], 1) if CFG["resample"] else x_grid
        optimizer.zero_grad()
        loss_pde = residual(model, x_c).pow(2).mean()
        loss_bc = (model(x_bc) - u_bc).pow(2).mean()
        loss = loss_pde + CFG["bc_weight"] * loss_bc
        loss.backward()
        optimizer.step()
        s_tot += loss.item()
        s_pde += loss_pde.item()
        s_bc += loss_bc.item()
        on_batch(bar, loss.item())
    scheduler.step()
    n = CFG["iters_per_epoch"]
    model.eval()
    with torch.no_grad():
        u_pred = model(x_test)
        rel_l2 = ((u_pred - exact(x_test)).norm() / exact(x_test).norm()).item()
    log_epoch(epoch, CFG["epochs"], {"loss": s_tot / n, "loss_pde": s_pde / n, "loss_bc": s_bc / n,
                                     "val_rel_l2": rel_l2}, optimizer.param_groups[0]["lr"])

log_end({"iterations": CFG["epochs"] * CFG["iters_per_epoch"], "rel_l2_error": round(rel_l2, 5),
         "time_s": round(time.time() - t_start, 1)})
