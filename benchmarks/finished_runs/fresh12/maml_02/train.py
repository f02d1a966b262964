"""MAML on few-shot sine regression (Finn et al. 2017, the sinusoid experiment, small version). A task is
y = A sin(x - phase) with A in [0.1, 5] and phase in [0, pi]; each task gives K support points for one inner
gradient step and K query points on which the adapted network is scored. The outer (meta) loss is the
post-adaptation query MSE averaged over a meta-batch of tasks, differentiated through the inner step
(second-order). Tasks in a meta-batch are processed together with batched matrix multiplies. Every
`eval_every` meta-iterations the script reports the training meta-loss and the pre-/post-adaptation MSE on
200 fixed validation tasks."""
import math
import time
import json
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
with open("config.json") as f:
    CFG = json.load(f)

_HDR = [False]


def log_info(msg):
    print("# " + msg)


def progress(it, epoch, n_epochs, n):
    return it


def on_step(epoch, n_epochs, i, n, loss, lr, gstep, total):
    pass


def log_epoch(epoch, n_epochs, m, lr):
    if not _HDR[0]:
        print("epoch," + ",".join(m.keys()) + ",lr")
        _HDR[0] = True
    print(f"{epoch}," + ",".join(f"{v:.5f}" for v in m.values()) + f",{lr:.3e}")


def log_end(summary):
    print("# " + " ".join(f"{k}={v}" for k, v in summary.items()))


def sample_tasks(n_tasks, k, g):
    amp = 0.1 + 4.9 * torch.rand(n_tasks, 1, generator=g)
    phase = math.pi * torch.rand(n_tasks, 1, generator=g)
    xs = -5 + 10 * torch.rand(n_tasks, 2 * k, generator=g)
    ys = amp * torch.sin(xs - phase)
    return xs[:, :k, None], ys[:, :k, None], xs[:, k:, None], ys[:, k:, None]


class SineNet(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(1, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.head = nn.Linear(hidden, 1)

    def batched_params(self, n_tasks):
        return [p.unsqueeze(0).expand(n_tasks, *p.shape) for p in
                (self.body[0].weight, self.body[0].bias, self.body[2].weight, self.body[2].bias,
                 self.head.weight, self.head.bias)]

    @staticmethod
    def fforward(params, x):
        w1, b1, w2, b2, w3, b3 = params
        h = F.relu(torch.baddbmm(b1.unsqueeze(1), x, w1.transpose(1, 2)))
        h = F.relu(torch.baddbmm(b2.unsqueeze(1), h, w2.transpose(1, 2)))
        return torch.baddbmm(b3.unsqueeze(1), h, w3.transpose(1, 2))


def adapt(model, xs, ys, create_graph):
    params = model.batched_params(xs.shape[0])
    support_loss = F.mse_loss(SineNet.fforward(params, xs), ys, reduction="none").mean((1, 2)).sum()
    grads = torch.autograd.grad(support_loss, params, create_graph=create_graph)
    return [p - CFG["inner_lr"] * gr for p, gr in zip(params, grads)]


model = SineNet(CFG["hidden"])
meta_optimizer = torch.optim.Adam(model.parameters(), lr=CFG["meta_lr"])
g_train = torch.Generator().manual_seed(3)
val_tasks = sample_tasks(200, CFG["k_shot"], torch.Generator().manual_seed(99))
log_info(f"MAML sine: {CFG['k_shot']}-shot, meta-batch {CFG['meta_batch']}, inner lr {CFG['inner_lr']}, "
         f"meta lr {CFG['meta_lr']}, {sum(p.numel() for p in model.parameters())} params, {CFG['meta_iters']} meta-iterations")


def evaluate():
    xs, ys, xq, yq = val_tasks
    with torch.no_grad():
        pre = F.mse_loss(SineNet.fforward(model.batched_params(xs.shape[0]), xq), yq).item()
    fast = adapt(model, xs, ys, create_graph=False)
    with torch.no_grad():
        post = F.mse_loss(SineNet.fforward(fast, xq), yq).item()
    return pre, post


t_start = time.time()
n_report = CFG["meta_iters"] // CFG["eval_every"]
running = 0.0
for it in progress(range(1, CFG["meta_iters"] + 1), 1, 1, CFG["meta_iters"]):
    xs, ys, xq, yq = sample_tasks(CFG["meta_batch"], CFG["k_shot"], g_train)
    fast = adapt(model, xs, ys, create_graph=True)
    meta_loss = F.mse_loss(SineNet.fforward(fast, xq), yq)
    meta_optimizer.zero_grad()
    meta_loss.backward()
    meta_optimizer.step()
    running += meta_loss.item()
    on_step(1, 1, it - 1, CFG["meta_iters"], meta_loss.item(), meta_optimizer.param_groups[0]["lr"], it, CFG["meta_iters"])
    if it % CFG["eval_every"] == 0:
        pre, post = evaluate()
        log_epoch(it // CFG["eval_every"], n_report, {"meta_loss": running / CFG["eval_every"], "val_pre_mse": pre,
                                                      "val_post_mse": post}, meta_optimizer.param_groups[0]["lr"])
        running = 0.0

log_end({"meta_iters": CFG["meta_iters"], "final_val_post_mse": round(post, 4), "time_s": round(time.time() - t_start, 1)})
