"""Digit-glyph classifier; samples are rendered on the fly with random jitter (augmentation)."""
import csv
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.set_num_threads(1)
torch.manual_seed(16)
S = 28
GLYPHS = {
    0: ["0110", "1001", "1001", "1001", "0110"],
    1: ["0010", "0110", "0010", "0010", "0111"],
    2: ["1110", "0001", "0110", "1000", "1111"],
    3: ["1110", "0001", "0110", "0001", "1110"],
    4: ["1001", "1001", "1111", "0001", "0001"],
    5: ["1111", "1000", "1110", "0001", "1110"],
}


class RenderedGlyphs(Dataset):
    def __init__(self, n, seed):
        self.n = n
        self.seed = seed

    def __len__(self):
        return self.n

    def render(self, label, rng):
        img = [[0.0] * S for _ in range(S)]
        scale = rng.uniform(3.5, 4.5)
        oy, ox = rng.uniform(2, 6), rng.uniform(4, 9)
        rot = rng.uniform(-0.2, 0.2)
        c, s = np.cos(rot), np.sin(rot)
        g = GLYPHS[label]
        for yy in range(S):
            for xx in range(S):
                u = ((yy - oy) * c - (xx - ox) * s) / scale
                v = ((yy - oy) * s + (xx - ox) * c) / scale
                iu, iv = int(u), int(v)
                if 0 <= iu < 5 and 0 <= iv < 4 and g[iu][iv] == "1":
                    img[yy][xx] = 1.0
                img[yy][xx] += float(rng.normal(0, 0.2))
        return np.array(img, dtype=np.float32)

    def __getitem__(self, i):
        rng = np.random.default_rng(self.seed * 100003 + i)
        label = int(rng.integers(0, len(GLYPHS)))
        return torch.from_numpy(self.render(label, rng)).unsqueeze(0), label


model = nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(), nn.Linear(32 * 7 * 7, 64), nn.ReLU(), nn.Linear(64, len(GLYPHS)),
)
loader = DataLoader(RenderedGlyphs(2560, 1), batch_size=64, shuffle=True, num_workers=0)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "loss", "accuracy", "step_time_s", "data_time_s", "compute_time_s", "samples_per_s"])
    step = 0
    for epoch in range(1):
        t_end = time.perf_counter()
        for x, y in loader:
            t_data = time.perf_counter()
            out = model(x)
            loss = crit(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            t_done = time.perf_counter()
            data_t, comp_t = t_data - t_end, t_done - t_data
            step += 1
            acc = (out.argmax(1) == y).float().mean().item()
            w.writerow([step, epoch, f"{loss.item():.5f}", f"{acc:.4f}", f"{data_t + comp_t:.4f}",
                        f"{data_t:.4f}", f"{comp_t:.4f}", f"{len(y) / (data_t + comp_t):.1f}"])
            if step % 5 == 0:
                print(f"step {step:3d}  loss {loss.item():.4f}  acc {acc:.3f}  data {data_t*1000:.0f} ms  compute {comp_t*1000:.0f} ms")
            t_end = time.perf_counter()
