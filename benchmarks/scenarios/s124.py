"""Self-supervised pre-training of a 1-D CNN encoder for pipeline acoustic sensors.

SimCLR-style: two augmented views of each 64-sample snippet and an InfoNCE objective with a
learnable temperature (CLIP-style logit scale, initialised at 1/0.05).
"""
import json
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(124)
torch.set_num_threads(1)

CFG = {"n_train": 2048, "n_val": 256, "batch": 128, "steps": 240, "lr": 3e-3,
       "init_temperature": 0.05, "scale_lr": 0.02, "emb": 32, "log_every": 5}


def snippets(n, rng):
    t = np.arange(64) / 64
    f = rng.uniform(2, 12, (n, 1))
    a = rng.uniform(0.5, 1.5, (n, 1))
    x = a * np.sin(2 * np.pi * f * t + rng.uniform(0, 6.28, (n, 1))) + 0.5 * np.sin(2 * np.pi * 2.3 * f * t)
    return torch.tensor(x[:, None, :], dtype=torch.float32)


def augment(x):
    shift = torch.randint(-6, 7, (1,)).item()
    x = torch.roll(x, shift, dims=-1)
    x = x * (1 + 0.2 * torch.randn(x.shape[0], 1, 1))
    return x + 0.2 * torch.randn_like(x)


class Encoder(nn.Module):
    def __init__(self, emb):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(1, 32, 7, padding=3), nn.ReLU(), nn.MaxPool1d(2),
                                  nn.Conv1d(32, 64, 5, padding=2), nn.ReLU(), nn.AdaptiveAvgPool1d(1))
        self.proj = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, emb))

    def forward(self, x):
        return F.normalize(self.proj(self.conv(x).flatten(1)), dim=1)


def info_nce(z1, z2, logit_scale):
    sim = torch.exp(logit_scale.exp() * (z1 @ z2.t()))
    pos = sim.diag()
    return -torch.log(pos / sim.sum(1)).mean()


def main():
    rng = np.random.default_rng(124)
    x_tr, x_va = snippets(CFG["n_train"], rng), snippets(CFG["n_val"], rng)
    enc = Encoder(CFG["emb"])
    logit_scale = nn.Parameter(torch.tensor(math.log(1 / CFG["init_temperature"])))
    opt = torch.optim.Adam([{"params": enc.parameters()},
                            {"params": [logit_scale], "lr": CFG["scale_lr"]}], lr=CFG["lr"])
    with open("metrics.jsonl", "w") as fh:
        for step in range(1, CFG["steps"] + 1):
            enc.train()
            xb = x_tr[torch.randint(0, len(x_tr), (CFG["batch"],))]
            loss = info_nce(enc(augment(xb)), enc(augment(xb)), logit_scale)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % CFG["log_every"] == 0:
                enc.eval()
                with torch.no_grad():
                    z1, z2 = enc(augment(x_va)), enc(augment(x_va))
                    vl = info_nce(z1, z2, logit_scale).item()
                    top1 = ((z1 @ z2.t()).argmax(1) == torch.arange(len(x_va))).float().mean().item()
                    pos_sim = (z1 * z2).sum(1).mean().item()
                rec = {"step": step, "loss": loss.item(), "val_loss": vl, "val_top1": top1, "pos_sim": pos_sim,
                       "temperature": 1 / logit_scale.exp().item()}
                fh.write(json.dumps(rec) + "\n")
                if step % 20 == 0:
                    print(f"step {step:3d}  loss {loss.item():.4f}  val {vl:.4f}  top1 {top1:.3f}  pos sim {pos_sim:.3f}  T {1 / logit_scale.exp().item():.4f}")


if __name__ == "__main__":
    main()
