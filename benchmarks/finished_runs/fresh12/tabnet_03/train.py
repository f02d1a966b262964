"""TabNet-like classifier for tabular data (Arik & Pfister 2019, reduced): a shared + step-specific GLU feature
transformer, an attentive transformer that produces a sparsemax feature mask at each of `n_steps` decision
steps (with the prior-scale relaxation gamma), and a sparsity (mask entropy) penalty. The data is a synthetic
credit-style table: 16 numeric columns on very different scales (income, age, balance, counts, ratios), of
which 5 drive a binary default label through a nonlinear rule."""
import math
import time
import torch
import yaml
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
with open("config.yaml") as f:
    CFG = yaml.safe_load(f)

import sys
from tqdm import tqdm

_POST = {}


def log_info(msg):
    print(f"[NeMo I {time.strftime('%Y-%m-%d %H:%M:%S')} train:1] {msg}")


def progress(it, epoch, n_epochs, n):
    return tqdm(it, total=n, desc=f"Epoch {epoch - 1}", file=sys.stdout, ncols=120, mininterval=0.5,
                bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}{postfix}]")


def on_step(epoch, n_epochs, i, n, loss, lr, gstep, total):
    _POST["bar"] = None


def log_epoch(epoch, n_epochs, m, lr):
    parts = ", ".join(f"{k}={v:.3f}" for k, v in m.items())
    print(f"Epoch {epoch - 1}: v_num=0, lr={lr:.2e}, {parts}")


def log_end(summary):
    print(f"[NeMo I {time.strftime('%Y-%m-%d %H:%M:%S')} train:1] `Trainer.fit` stopped: `max_epochs={summary.get('epochs')}` reached.")
    for k, v in summary.items():
        print(f"[NeMo I {time.strftime('%Y-%m-%d %H:%M:%S')} train:1]   {k}: {v}")


def sparsemax(z):
    zs, _ = torch.sort(z, dim=-1, descending=True)
    k = torch.arange(1, z.shape[-1] + 1, dtype=z.dtype)
    cs = zs.cumsum(-1)
    support = (1 + k * zs) > cs
    k_z = support.sum(-1, keepdim=True)
    tau = (cs.gather(-1, k_z - 1) - 1) / k_z.to(z.dtype)
    return torch.clamp(z - tau, min=0)


def make_table(n, g):
    scales = torch.tensor([30000., 12., 5000., 3., 0.2, 1., 40., 8., 0.5, 100., 2., 15., 0.05, 900., 6., 1.5])
    means = torch.tensor([52000., 41., 8000., 4., 0.35, 0., 120., 10., 1., 600., 3., 30., 0.1, 2500., 12., 2.])
    z = torch.randn(n, 16, generator=g)
    x = means + scales * z
    logit = 1.6 * z[:, 2] - 1.2 * z[:, 0] + 1.4 * z[:, 4] * z[:, 7] + 1.1 * torch.tanh(2 * z[:, 11]) - 0.8 * z[:, 13].abs() + 0.6
    y = (torch.rand(n, generator=g) < torch.sigmoid(2.0 * logit)).float()
    return x, y


class GLUBlock(nn.Module):
    def __init__(self, d_in, d_out, shared=None):
        super().__init__()
        self.fc = shared if shared is not None else nn.Linear(d_in, 2 * d_out, bias=False)
        self.bn = nn.BatchNorm1d(2 * d_out, momentum=0.05)

    def forward(self, x):
        return F.glu(self.bn(self.fc(x)), dim=-1)


class FeatTransformer(nn.Module):
    def __init__(self, d_in, d, shared):
        super().__init__()
        self.b1 = GLUBlock(d_in, d, shared[0])
        self.b2 = GLUBlock(d, d, shared[1])
        self.b3 = GLUBlock(d, d)
        self.b4 = GLUBlock(d, d)

    def forward(self, x):
        h = self.b1(x)
        s = math.sqrt(0.5)
        h = (h + self.b2(h)) * s
        h = (h + self.b3(h)) * s
        return (h + self.b4(h)) * s


class TabNetLite(nn.Module):
    def __init__(self, d_in, n_d, n_steps, gamma):
        super().__init__()
        self.n_d, self.n_steps, self.gamma = n_d, n_steps, gamma
        d = 2 * n_d
        shared = nn.ModuleList([nn.Linear(d_in, 2 * d, bias=False), nn.Linear(d, 2 * d, bias=False)])
        self.in_bn = nn.BatchNorm1d(d_in, momentum=0.05)
        self.initial = FeatTransformer(d_in, d, shared)
        self.steps = nn.ModuleList([FeatTransformer(d_in, d, shared) for _ in range(n_steps)])
        self.att = nn.ModuleList([nn.Sequential(nn.Linear(n_d, d_in, bias=False), nn.BatchNorm1d(d_in, momentum=0.05))
                                  for _ in range(n_steps)])
        self.out = nn.Linear(n_d, 1)
        self.apply(self._init)

    @staticmethod
    def _init(m):
        if isinstance(m, nn.Linear):
            nn.init.xavier_normal_(m.weight, gain=math.sqrt((m.in_features + m.out_features) / math.sqrt(4 * m.in_features)))
            if m.bias is not None:
                nn.init.zeros_(m.bias)

    def forward(self, x):
        x = self.in_bn(x)
        prior = torch.ones_like(x)
        a = self.initial(x)[:, self.n_d:]
        agg = 0.0
        ent = 0.0
        for t in range(self.n_steps):
            mask = sparsemax(self.att[t](a) * prior)
            prior = prior * (self.gamma - mask)
            ent = ent + (-mask * torch.log(mask + 1e-10)).sum(1).mean()
            h = self.steps[t](x * mask)
            agg = agg + F.relu(h[:, :self.n_d])
            a = h[:, self.n_d:]
        return self.out(agg).squeeze(-1), ent / self.n_steps


g = torch.Generator().manual_seed(5)
x_tr, y_tr = make_table(CFG["n_train"], g)
x_va, y_va = make_table(CFG["n_val"], g)
if CFG["label_noise"] > 0:
    flip = torch.rand(CFG["n_train"], generator=g) < CFG["label_noise"]
    y_tr = torch.where(flip, 1 - y_tr, y_tr)
    flip = torch.rand(CFG["n_val"], generator=g) < CFG["label_noise"]
    y_va = torch.where(flip, 1 - y_va, y_va)

model = TabNetLite(16, CFG["n_d"], CFG["n_steps"], CFG["gamma"])
optimizer = torch.optim.Adam(model.parameters(), lr=CFG["lr"], weight_decay=CFG["weight_decay"])
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=CFG["lr_step"], gamma=CFG["lr_gamma"])
steps_per_epoch = CFG["n_train"] // CFG["batch_size"]
total_steps = CFG["epochs"] * steps_per_epoch
log_info(f"TabNetLite n_d={CFG['n_d']} steps={CFG['n_steps']} gamma={CFG['gamma']} lambda_sparse={CFG['lambda_sparse']} "
         f"params={sum(p.numel() for p in model.parameters())} | train {CFG['n_train']} rows, val {CFG['n_val']} rows, "
         f"positive rate {y_tr.mean().item():.3f}")


def auc(scores, labels):
    pos, neg = scores[labels == 1], scores[labels == 0]
    return ((pos[:, None] > neg[None, :]).float().mean() + 0.5 * (pos[:, None] == neg[None, :]).float().mean()).item()


def evaluate():
    model.eval()
    with torch.no_grad():
        logits, _ = model(x_va)
        loss = F.binary_cross_entropy_with_logits(logits, y_va).item()
        acc = ((logits > 0).float() == y_va).float().mean().item()
    return loss, acc, auc(logits, y_va)


t_start = time.time()
gstep = 0
for epoch in range(1, CFG["epochs"] + 1):
    model.train()
    perm = torch.randperm(CFG["n_train"])
    tot, seen = 0.0, 0
    for i in progress(range(steps_per_epoch), epoch, CFG["epochs"], steps_per_epoch):
        idx = perm[i * CFG["batch_size"]:(i + 1) * CFG["batch_size"]]
        logits, ent = model(x_tr[idx])
        loss = F.binary_cross_entropy_with_logits(logits, y_tr[idx]) + CFG["lambda_sparse"] * ent
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 2.0)
        optimizer.step()
        gstep += 1
        tot += loss.item() * len(idx)
        seen += len(idx)
        on_step(epoch, CFG["epochs"], i, steps_per_epoch, loss.item(), optimizer.param_groups[0]["lr"], gstep, total_steps)
    scheduler.step()
    val_loss, val_acc, val_auc = evaluate()
    log_epoch(epoch, CFG["epochs"], {"loss": tot / seen, "val_loss": val_loss, "val_acc": val_acc, "val_auc": val_auc},
              optimizer.param_groups[0]["lr"])

log_end({"epochs": CFG["epochs"], "val_auc": round(val_auc, 4), "time_s": round(time.time() - t_start, 1)})
