"""Credit-default model: engineered applicant features -> MLP -> P(default within 12 months)."""
import csv

import numpy as np
import torch
import torch.nn as nn

np.random.seed(396)
torch.manual_seed(396)

# ---------------------------------------------------------------- raw applicant table
N = 5000
age = np.random.randint(21, 76, N).astype(float)
income = np.round(np.random.lognormal(10.8, 0.55, N), -2)
# self-declared income is not verified for a handful of applications and is stored as 0
unverified = np.random.rand(N) < 0.0006
income[unverified] = 0.0
debt = np.round(np.random.lognormal(9.6, 0.9, N), -1)
n_accounts = np.random.poisson(4, N).astype(float)
utilisation = np.clip(np.random.beta(2, 3, N) + 0.05 * np.random.randn(N), 0, 1)
months_employed = np.random.exponential(60, N).round()
late_payments = np.random.poisson(0.6, N).astype(float)

# ---------------------------------------------------------------- feature engineering
with np.errstate(divide="ignore", invalid="ignore"):
    debt_to_income = debt / income
    debt_per_account = debt / np.maximum(n_accounts, 1)
log_income = np.log1p(income)

X = np.column_stack([age, log_income, np.log1p(debt), n_accounts, utilisation,
                     np.log1p(months_employed), late_payments, debt_to_income, np.log1p(debt_per_account)])

# ground truth default risk (uses the true affordability, not the recorded field)
true_dti = debt / np.exp(10.8)
logit = -2.2 + 1.4 * np.log1p(4 * np.minimum(true_dti, 5)) + 2.0 * (utilisation - 0.4) + 0.55 * late_payments \
    - 0.012 * (age - 45) - 0.004 * months_employed
ok = ~unverified
logit[ok] = (-2.2 + 1.4 * np.log1p(4 * np.minimum(debt_to_income[ok], 5)) + 2.0 * (utilisation[ok] - 0.4)
             + 0.55 * late_payments[ok] - 0.012 * (age[ok] - 45) - 0.004 * months_employed[ok])
y = (np.random.rand(N) < 1 / (1 + np.exp(-logit))).astype(np.float32)

# robust scaling: income-type columns are heavy-tailed, so median/IQR rather than mean/std
idx = np.random.permutation(N)
tr, va = idx[:4000], idx[4000:]
med = np.median(X[tr], axis=0)
iqr = np.percentile(X[tr], 75, axis=0) - np.percentile(X[tr], 25, axis=0)
X = (X - med) / iqr

x_train = torch.tensor(X[tr], dtype=torch.float32)
y_train = torch.tensor(y[tr]).unsqueeze(1)
x_val = torch.tensor(X[va], dtype=torch.float32)
y_val = torch.tensor(y[va]).unsqueeze(1)
print(f"train rows {len(tr)}, default rate {y_train.mean():.3f}")

# ---------------------------------------------------------------- model
model = nn.Sequential(
    nn.Linear(X.shape[1], 64), nn.ReLU(),
    nn.Linear(64, 32), nn.ReLU(),
    nn.Linear(32, 1),
)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.BCEWithLogitsLoss()

BATCH = 64
EPOCHS = 6
step = 0
f = open("metrics.csv", "w", newline="")
out = csv.writer(f)
out.writerow(["step", "epoch", "train_loss", "val_loss", "val_acc"])
for epoch in range(EPOCHS):
    perm = torch.randperm(len(x_train))
    recent = []
    for i in range(0, len(perm), BATCH):
        b = perm[i:i + BATCH]
        loss = criterion(model(x_train[b]), y_train[b])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        recent.append(loss.item())
        if step % 5 == 0:
            with torch.no_grad():
                vlogit = model(x_val)
                vloss = criterion(vlogit, y_val).item()
                vacc = ((vlogit > 0).float() == y_val).float().mean().item()
            out.writerow([step, epoch, f"{np.mean(recent):.5f}", f"{vloss:.5f}", f"{vacc:.4f}"])
            recent = []
        step += 1
    print(f"epoch {epoch}  step {step}  last loss {loss.item():.4f}  val loss {vloss:.4f}  val acc {vacc:.3f}")
f.close()
