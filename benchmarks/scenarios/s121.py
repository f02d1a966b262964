"""Late-payment prediction for B2B invoices.

Each invoice carries a handful of numeric fields plus the customer account (thousands of
small accounts). The account is turned into a numeric feature with smoothed target (mean)
encoding, the usual trick for high-cardinality categoricals, then an MLP is trained.
"""
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(121)
torch.set_num_threads(1)

CFG = {"n_accounts": 1500, "invoices": 4500, "val_frac": 0.2, "smoothing": 1.0,
       "epochs": 20, "batch_size": 64, "lr": 2e-3}


def synth_invoices(rng, n, account_risk):
    acct = rng.integers(0, len(account_risk), n)
    amount = rng.lognormal(7, 1, n)
    terms = rng.choice([15, 30, 60], n)
    prior_late = rng.poisson(1.0, n)
    logit = (0.6 * account_risk[acct] + 0.25 * (np.log(amount) - 7) + 0.01 * (terms - 30)
             + 0.3 * (prior_late - 1) - 0.3)
    late = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.int64)
    num = np.stack([np.log(amount), terms / 30.0, prior_late], 1)
    return acct, num, late


def target_encode(acct, y, n_accounts, smoothing):
    prior = y.mean()
    sums = np.bincount(acct, weights=y, minlength=n_accounts)
    cnts = np.bincount(acct, minlength=n_accounts)
    enc = (sums + smoothing * prior) / (cnts + smoothing)
    return enc, prior


def evaluate(model, x, y, crit):
    model.eval()
    with torch.no_grad():
        out = model(x).squeeze(1)
        return crit(out, y.float()).item(), ((out > 0).long() == y).float().mean().item()


def main():
    rng = np.random.default_rng(121)
    account_risk = rng.normal(0, 1.0, CFG["n_accounts"])
    acct, num, late = synth_invoices(rng, CFG["invoices"], account_risk)

    # encode the account column, then split into train / validation
    enc, prior = target_encode(acct, late, CFG["n_accounts"], CFG["smoothing"])
    feats = np.column_stack([num, enc[acct]]).astype(np.float32)
    mu, sd = feats.mean(0), feats.std(0)
    feats = (feats - mu) / sd
    perm = rng.permutation(len(late))
    n_val = int(CFG["val_frac"] * len(late))
    va_idx, tr_idx = perm[:n_val], perm[n_val:]
    x_tr, y_tr = torch.from_numpy(feats[tr_idx]), torch.from_numpy(late[tr_idx])
    x_va, y_va = torch.from_numpy(feats[va_idx]), torch.from_numpy(late[va_idx])

    # next month's invoices, scored with the stored encoding table
    acct_n, num_n, late_n = synth_invoices(rng, 1500, account_risk)
    f_n = ((np.column_stack([num_n, enc[acct_n]]) - mu) / sd).astype(np.float32)
    x_nm, y_nm = torch.from_numpy(f_n), torch.from_numpy(late_n)

    model = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
    opt = torch.optim.AdamW(model.parameters(), lr=CFG["lr"])
    crit = nn.BCEWithLogitsLoss()
    loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=CFG["batch_size"], shuffle=True)
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["epoch", "train_loss", "train_acc", "val_loss", "val_acc"])
        for epoch in range(CFG["epochs"]):
            model.train()
            for xb, yb in loader:
                loss = crit(model(xb).squeeze(1), yb.float())
                opt.zero_grad()
                loss.backward()
                opt.step()
            tl, ta = evaluate(model, x_tr, y_tr, crit)
            vl, va = evaluate(model, x_va, y_va, crit)
            w.writerow([epoch, f"{tl:.5f}", f"{ta:.4f}", f"{vl:.5f}", f"{va:.4f}"])
            print(f"epoch {epoch:2d}  train {tl:.4f}/{ta:.3f}  val {vl:.4f}/{va:.3f}")
    nl, na = evaluate(model, x_nm, y_nm, crit)
    print(f"next-month invoices: loss {nl:.4f}  acc {na:.3f}")


if __name__ == "__main__":
    main()
