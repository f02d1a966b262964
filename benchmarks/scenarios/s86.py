"""Wrist accelerometer activity recognition (6 activities) with a small 1-D CNN.

Labels come from participants' self-reported diaries, which are known to be unreliable.
"""
import csv
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(86)
rng = np.random.default_rng(86)

ACTIVITIES = ["sitting", "standing", "walking", "running", "cycling", "stairs"]
N_CLS, WIN, FS = len(ACTIVITIES), 64, 20.0
DIARY_ERROR = 0.15


def synth_window(act):
    t = np.arange(WIN) / FS
    # (cadence Hz, amplitude, gravity axis tilt)
    cadence, amp, tilt = [(0.0, 0.03, 0.2), (0.0, 0.06, 1.2), (1.8, 0.5, 1.0),
                          (2.7, 1.4, 0.9), (1.3, 0.35, 0.5), (1.6, 0.8, 1.1)][act]
    cadence *= rng.uniform(0.85, 1.15)
    phase = rng.uniform(0, 2 * np.pi)
    g = np.array([np.cos(tilt), np.sin(tilt), 0.3]) + rng.normal(0, 0.08, 3)
    sig = np.empty((3, WIN))
    for ax in range(3):
        sig[ax] = g[ax] + amp * rng.uniform(0.6, 1.2) * np.sin(2 * np.pi * cadence * t + phase + ax)
        if act == 5:
            sig[ax] += 0.3 * amp * np.sin(4 * np.pi * cadence * t + phase)
    return sig + rng.normal(0, 0.15, sig.shape)


def make_split(n):
    y = rng.integers(0, N_CLS, n)
    x = np.stack([synth_window(a) for a in y]).astype(np.float32)
    # diary mistakes: a fraction of windows is logged as some other activity
    wrong = rng.permutation(n) < int(DIARY_ERROR * n)
    y_diary = y.copy()
    y_diary[wrong] = (y[wrong] + rng.integers(1, N_CLS, wrong.sum())) % N_CLS
    return torch.from_numpy(x), torch.from_numpy(y_diary)


x_train, y_train = make_split(4800)
x_val, y_val = make_split(1500)
print("train", tuple(x_train.shape), "val", tuple(x_val.shape))


class ActivityCNN(nn.Module):
    def __init__(self, n_cls):
        super().__init__()
        self.conv1 = nn.Conv1d(3, 16, 5, padding=2)
        self.conv2 = nn.Conv1d(16, 32, 5, padding=2)
        self.fc = nn.Linear(32, n_cls)

    def forward(self, x):
        x = F.max_pool1d(F.relu(self.conv1(x)), 2)
        x = F.max_pool1d(F.relu(self.conv2(x)), 2)
        return self.fc(x.mean(dim=2))


model = ActivityCNN(N_CLS)
EPOCHS, BS, BASE_LR = 16, 64, 0.05
opt = torch.optim.SGD(model.parameters(), lr=BASE_LR, momentum=0.9, nesterov=True, weight_decay=1e-4)
steps_per_epoch = math.ceil(len(x_train) / BS)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=EPOCHS * steps_per_epoch)
crit = nn.CrossEntropyLoss()


def evaluate(x, y):
    model.eval()
    with torch.no_grad():
        out = model(x)
        return crit(out, y).item(), (out.argmax(1) == y).float().mean().item()


with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["epoch", "train_loss", "train_acc", "val_loss", "val_acc", "lr"])
    for ep in range(EPOCHS):
        model.train()
        perm = torch.randperm(len(x_train))
        run_loss, run_hit = 0.0, 0
        for i in range(0, len(perm), BS):
            idx = perm[i:i + BS]
            logits = model(x_train[idx])
            loss = crit(logits, y_train[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            run_loss += loss.item() * len(idx)
            run_hit += (logits.argmax(1) == y_train[idx]).sum().item()
        tl, ta = run_loss / len(perm), run_hit / len(perm)
        vl, va = evaluate(x_val, y_val)
        lr_now = opt.param_groups[0]["lr"]
        wr.writerow([ep, f"{tl:.4f}", f"{ta:.4f}", f"{vl:.4f}", f"{va:.4f}", f"{lr_now:.5f}"])
        print(f"[{ep + 1:02d}/{EPOCHS}] loss {tl:.4f} acc {ta:.3f} | val loss {vl:.4f} acc {va:.3f} | lr {lr_now:.4f}")
