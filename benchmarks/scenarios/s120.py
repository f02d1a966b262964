"""Energy-per-trip regression for an electric delivery-van fleet.

Predicts kWh consumed on a route from route/vehicle/weather descriptors. Numeric columns
are z-scored with statistics from the training split; the target is standardised.
"""
import csv

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(120)
torch.set_num_threads(1)

FEATURES = ["distance_km", "stops", "elevation_gain_m", "ambient_c", "payload_kg", "avg_speed_kmh",
            "odometer_km"]
# columns that get z-scored (battery-ageing column added later by the fleet team)
SCALE_COLS = ["distance_km", "stops", "elevation_gain_m", "ambient_c", "payload_kg", "avg_speed_kmh"]
CONFIG = {"epochs": 15, "batch_size": 64, "lr": 1e-3, "hidden": 64}


def synth_trips(n, rng):
    d = {
        "distance_km": rng.uniform(20, 180, n),
        "stops": rng.integers(5, 90, n).astype(float),
        "elevation_gain_m": rng.gamma(2.0, 150, n),
        "ambient_c": rng.normal(12, 9, n),
        "payload_kg": rng.uniform(100, 1200, n),
        "avg_speed_kmh": rng.uniform(18, 75, n),
        "odometer_km": rng.uniform(5_000, 320_000, n),
    }
    cold = np.clip(10 - d["ambient_c"], 0, None)
    kwh = (0.19 * d["distance_km"] * (1 + 0.00025 * d["payload_kg"]) + 0.03 * d["stops"]
           + 0.012 * d["elevation_gain_m"] + 0.15 * cold * d["distance_km"] / 100
           + 0.002 * (d["avg_speed_kmh"] - 45) ** 2 + 4e-5 * d["odometer_km"]
           + rng.normal(0, 1.5, n))
    return d, kwh


def to_matrix(d, stats):
    cols = []
    for name in FEATURES:
        v = d[name]
        if name in stats:
            v = (v - stats[name][0]) / stats[name][1]
        cols.append(v)
    return torch.tensor(np.stack(cols, 1), dtype=torch.float32)


def main():
    rng = np.random.default_rng(120)
    d_tr, y_tr = synth_trips(4000, rng)
    d_va, y_va = synth_trips(1000, rng)
    stats = {c: (d_tr[c].mean(), d_tr[c].std()) for c in SCALE_COLS}
    x_tr, x_va = to_matrix(d_tr, stats), to_matrix(d_va, stats)
    ym, ys = y_tr.mean(), y_tr.std()
    t_tr = torch.tensor((y_tr - ym) / ys, dtype=torch.float32)
    t_va = torch.tensor((y_va - ym) / ys, dtype=torch.float32)

    h = CONFIG["hidden"]
    model = nn.Sequential(nn.Linear(len(FEATURES), h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 1))
    opt = torch.optim.Adam(model.parameters(), lr=CONFIG["lr"])
    crit = nn.MSELoss()
    bs = CONFIG["batch_size"]
    step = 0
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "epoch", "train_loss", "val_loss", "val_mae_kwh"])
        for epoch in range(CONFIG["epochs"]):
            perm = torch.randperm(len(x_tr))
            model.train()
            for i in range(0, len(perm), bs):
                idx = perm[i:i + bs]
                loss = crit(model(x_tr[idx]).squeeze(1), t_tr[idx])
                opt.zero_grad()
                loss.backward()
                opt.step()
                step += 1
                if step % 25 == 0:
                    model.eval()
                    with torch.no_grad():
                        pv = model(x_va).squeeze(1)
                        vl = crit(pv, t_va).item()
                        mae = (pv - t_va).abs().mean().item() * ys
                    model.train()
                    w.writerow([step, epoch, f"{loss.item():.5f}", f"{vl:.5f}", f"{mae:.3f}"])
            print(f"epoch {epoch:2d} step {step}  train {loss.item():.4f}  val {vl:.4f}  MAE {mae:.2f} kWh")


if __name__ == "__main__":
    main()
