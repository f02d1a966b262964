"""Machine-state classifier from vibration snippets: each recording is cut into many overlapping windows."""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.set_num_threads(1)
SEED = 11
N_STATES = 3
WIN, HOP = 48, 8


def recordings(n_rec, rng):
    recs, labels = [], []
    t = np.arange(400) / 100.0
    for _ in range(n_rec):
        state = rng.integers(0, N_STATES)
        sig = np.zeros_like(t)
        for _ in range(4):
            sig += rng.uniform(0.3, 1.0) * np.sin(2 * np.pi * rng.uniform(1, 20) * t + rng.uniform(0, 6.3))
        sig += 0.25 * np.sin(2 * np.pi * (5 + 3 * state) * t)
        sig += rng.normal(0, 0.3, t.shape)
        recs.append(sig.astype(np.float32))
        labels.append(state)
    return recs, labels


def windows(recs, labels):
    xs, ys = [], []
    for r, l in zip(recs, labels):
        for s in range(0, len(r) - WIN + 1, HOP):
            seg = r[s:s + WIN]
            xs.append(np.abs(np.fft.rfft(seg)) / WIN)
            ys.append(l)
    return torch.tensor(np.array(xs), dtype=torch.float32), torch.tensor(ys)


def evaluate(model, x, y, crit):
    model.eval()
    with torch.no_grad():
        o = model(x)
        return crit(o, y).item(), (o.argmax(1) == y).float().mean().item()


def main():
    torch.manual_seed(SEED)
    rng = np.random.default_rng(SEED)
    recs, labels = recordings(120, rng)
    X, y = windows(recs, labels)
    full = TensorDataset(X, y)
    n_val = len(full) // 5
    train_ds, val_ds = random_split(full, [len(full) - n_val, n_val], generator=torch.Generator().manual_seed(SEED))
    xv = torch.stack([full[i][0] for i in val_ds.indices])
    yv = torch.stack([full[i][1] for i in val_ds.indices])
    test_recs, test_labels = recordings(40, rng)
    xt, yt = windows(test_recs, test_labels)
    print(f"{len(train_ds)} train windows, {len(val_ds)} val windows, {len(xt)} windows from new recordings")

    dl = DataLoader(train_ds, batch_size=64, shuffle=True)
    model = nn.Sequential(nn.Linear(X.shape[1], 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
                          nn.Linear(128, N_STATES))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    crit = nn.CrossEntropyLoss()

    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["epoch", "loss", "accuracy", "val_loss", "val_accuracy", "test_loss", "test_accuracy"])
        for epoch in range(15):
            model.train()
            tl, tc, tn = 0.0, 0, 0
            for xb, yb in dl:
                out = model(xb)
                loss = crit(out, yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                tl += loss.item() * len(yb)
                tc += (out.argmax(1) == yb).sum().item()
                tn += len(yb)
            vl, va = evaluate(model, xv, yv, crit)
            row = [epoch, round(tl / tn, 5), round(tc / tn, 4), round(vl, 5), round(va, 4), "", ""]
            if epoch == 14:
                tsl, tsa = evaluate(model, xt, yt, crit)
                row[5], row[6] = round(tsl, 5), round(tsa, 4)
                print(f"new recordings: loss {tsl:.4f} acc {tsa:.3f}")
            w.writerow(row)
            print(f"epoch {epoch:2d}  loss {tl/tn:.4f} acc {tc/tn:.3f}  val_loss {vl:.4f} val_acc {va:.3f}")


if __name__ == "__main__":
    main()
