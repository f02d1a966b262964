"""Predict length of stay (days) from admission vitals pulled from the ward API as JSON lines."""
import json
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(65)
rng = np.random.default_rng(65)

VITALS = ["age", "heart_rate", "resp_rate", "temp_c", "spo2", "sys_bp", "dia_bp", "glucose", "creatinine"]
REFERENCE = {  # typical value, spread
    "age": (60, 18), "heart_rate": (85, 15), "resp_rate": (18, 4), "temp_c": (37.2, 0.8), "spo2": (95, 3),
    "sys_bp": (125, 20), "dia_bp": (78, 12), "glucose": (120, 35), "creatinine": (1.1, 0.4),
}


def ward_api_dump(n):
    """What the API returns: one JSON object per admission (some probes occasionally fail to report)."""
    lines = []
    for _ in range(n):
        z = rng.normal(size=len(VITALS))
        rec = {k: round(REFERENCE[k][0] + REFERENCE[k][1] * v, 2) for k, v in zip(VITALS, z)}
        risk = 0.5 * z[0] + 0.4 * z[1] + 0.3 * z[2] - 0.5 * z[4] + 0.3 * z[7] + 0.4 * z[8] + 0.2 * z[1] * z[8]
        rec["stay_days"] = round(float(np.exp(1.2 + 0.45 * risk + rng.normal(0, 0.25))), 1)
        if rng.random() < 0.0006:
            rec["spo2"] = float("nan")
        lines.append(json.dumps(rec))
    return "\n".join(lines)


class Admissions(Dataset):
    def __init__(self, text):
        self.records = [json.loads(line) for line in text.splitlines()]

    def __len__(self):
        return len(self.records)

    def __getitem__(self, i):
        r = self.records[i]
        x = [(r[k] - REFERENCE[k][0]) / REFERENCE[k][1] for k in VITALS]
        return {"vitals": torch.tensor(x, dtype=torch.float32),
                "target": torch.tensor(math.log1p(r["stay_days"]), dtype=torch.float32)}


train_loader = DataLoader(Admissions(ward_api_dump(2400)), batch_size=16, shuffle=True)
val_loader = DataLoader(Admissions(ward_api_dump(600)), batch_size=200)


class StayRegressor(nn.Module):
    def __init__(self, d_in, hidden=64):
        super().__init__()
        self.l1 = nn.Linear(d_in, hidden)
        self.l2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x):
        return self.out(F.gelu(self.l2(F.gelu(self.l1(x))))).squeeze(-1)


model = StayRegressor(len(VITALS))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

def validate():
    model.eval()
    with torch.no_grad():
        total = sum(F.smooth_l1_loss(model(b["vitals"]), b["target"], reduction="sum").item() for b in val_loader)
    model.train()
    return total / len(val_loader.dataset)


log = open("metrics.jsonl", "w")
step = 0
for epoch in range(4):
    model.train()
    for batch in train_loader:
        pred = model(batch["vitals"])
        loss = F.smooth_l1_loss(pred, batch["target"])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 5 == 0:
            rec = {"step": step, "epoch": epoch, "loss": loss.item()}
            if step % 25 == 0:
                rec["val_loss"] = validate()
            log.write(json.dumps(rec) + "\n")
        step += 1
    print(f"epoch {epoch}  last batch loss {loss.item():.4f}  val loss {validate():.4f}")
log.close()
