# Field-aware factorization machine (FFM) for click-through prediction, written with raw tensors.
# 20 fields, each a one-hot categorical (50 values) times a real-valued count feature in [0, 1.5].
# Latent vectors V[feature, field, k] (k=4) are initialised from a standard normal, the logit
# z = sum_{i<j} <V[x_i, f_j], V[x_j, f_i]> * v_i * v_j, and the logistic loss is
# log(1 + exp(-y z)) with y in {-1, +1}. AdaGrad lr 0.05, batch 256.
import csv
import torch

torch.manual_seed(0)
torch.set_num_threads(1)

NF, NV, K, N = 20, 50, 4, 20000
g = torch.Generator().manual_seed(1)
cats = torch.randint(0, NV, (N, NF), generator=g)
vals = 1.5 * torch.rand(N, NF, generator=g)
# ground truth: a small FFM plus noise
Vt = 0.05 * torch.randn(NF * NV, NF, K, generator=g)
feat = cats + torch.arange(NF) * NV

def ffm_logit(V, feat, vals):
    # e[b, i, j, :] = V[feat[b, i], j, :]
    e = V[feat]                                   # (B, NF, NF, K)
    inter = (e * e.transpose(1, 2)).sum(-1)       # <V[x_i,f_j], V[x_j,f_i]>
    w = vals.unsqueeze(2) * vals.unsqueeze(1)
    iu = torch.triu_indices(NF, NF, 1)
    return (inter * w)[:, iu[0], iu[1]].sum(1)

with torch.no_grad():
    zt = ffm_logit(Vt, feat, vals)
    y = torch.where(torch.rand(N, generator=g) < torch.sigmoid(zt - zt.mean()), 1.0, -1.0)
ntr = 16000
V = torch.randn(NF * NV, NF, K).requires_grad_()   # weight init: N(0, 1)
opt = torch.optim.Adagrad([V], lr=0.05)

with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["step", "epoch", "loss", "logit_abs_max", "val_loss"])
    step = 0
    for epoch in range(1, 4):
        perm = torch.randperm(ntr, generator=g)
        for b in range(0, ntr, 256):
            idx = perm[b:b + 256]
            step += 1
            z = ffm_logit(V, feat[idx], vals[idx])
            loss = torch.log(1 + torch.exp(-y[idx] * z)).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            vl = ""
            if step % 10 == 0:
                with torch.no_grad():
                    zv = ffm_logit(V, feat[ntr:], vals[ntr:])
                    vl = f"{torch.log(1 + torch.exp(-y[ntr:] * zv)).mean().item():.4f}"
            if step <= 20 or step % 10 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} max|z| {z.abs().max().item():.1f} val_loss {vl}")
            wr.writerow([step, epoch, f"{loss.item():.4f}", f"{z.abs().max().item():.2f}", vl])
        fh.flush()
