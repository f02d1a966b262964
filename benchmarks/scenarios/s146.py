"""Speech-enhancement denoiser (1-D conv encoder/decoder) trained with a spectral-distance loss.

The spectral distance is the same implementation used by the evaluation scripts (numpy STFT),
so training optimises exactly what is reported.
"""
import csv

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(146)
torch.set_num_threads(1)

CFG = {"epochs": 6, "batch_size": 16, "lr": 1e-3, "length": 1024}


def spectral_distance(est, ref, n_fft=128, hop=64):
    """Log-magnitude STFT distance, numpy implementation shared with the eval tool."""
    win = np.hanning(n_fft)
    def mag(sig):
        frames = np.stack([sig[..., s:s + n_fft] * win for s in range(0, sig.shape[-1] - n_fft + 1, hop)], -2)
        return np.abs(np.fft.rfft(frames, axis=-1))
    return float(np.mean((np.log1p(mag(est)) - np.log1p(mag(ref))) ** 2))


def make_clips(n, rng):
    t = np.arange(CFG["length"]) / 8000.0
    clean = np.zeros((n, CFG["length"]), dtype=np.float32)
    for k in range(n):
        for _ in range(3):
            f = rng.uniform(150, 1200)
            clean[k] += rng.uniform(0.2, 0.6) * np.sin(2 * np.pi * f * t + rng.uniform(0, 6.28)) \
                * np.exp(-((t - rng.uniform(0, 0.12)) ** 2) / 0.002)
    noisy = clean + rng.normal(0, 0.3, clean.shape).astype(np.float32)
    return torch.tensor(noisy)[:, None], torch.tensor(clean)[:, None]


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv1d(1, 16, 9, padding=4), nn.ReLU(), nn.Conv1d(16, 32, 9, padding=4), nn.ReLU())
        self.dec = nn.Sequential(nn.Conv1d(32, 16, 9, padding=4), nn.ReLU(), nn.Conv1d(16, 1, 9, padding=4))

    def forward(self, x):
        return self.dec(self.enc(x))


def main():
    rng = np.random.default_rng(146)
    x_tr, c_tr = make_clips(640, rng)
    x_va, c_va = make_clips(128, rng)
    model = Denoiser()
    opt = torch.optim.Adam(model.parameters(), lr=CFG["lr"])
    bs, step = CFG["batch_size"], 0
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "epoch", "train_loss", "val_loss", "val_mse"])
        for epoch in range(CFG["epochs"]):
            perm = torch.randperm(len(x_tr))
            model.train()
            for k in range(0, len(perm), bs):
                idx = perm[k:k + bs]
                est = model(x_tr[idx])
                d = spectral_distance(est.detach().numpy(), c_tr[idx].numpy())
                loss = torch.tensor(d, requires_grad=True)
                opt.zero_grad()
                loss.backward()
                opt.step()
                step += 1
                if step % 8 == 0:
                    model.eval()
                    with torch.no_grad():
                        ev = model(x_va)
                    vl = spectral_distance(ev.numpy(), c_va.numpy())
                    vmse = torch.mean((ev - c_va) ** 2).item()
                    model.train()
                    w.writerow([step, epoch, f"{loss.item():.5f}", f"{vl:.5f}", f"{vmse:.5f}"])
            print(f"epoch {epoch} step {step}  train {loss.item():.4f}  val {vl:.4f}  mse {vmse:.4f}")


if __name__ == "__main__":
    main()
