# EEGNet-8,2 (Lawhern et al. 2018) for 4-class motor-imagery decoding on synthetic EEG:
# 8 scalp channels, 1 s trials at 128 Hz; each class suppresses the 10 Hz mu rhythm over "its" pair of
# channels (event-related desynchronisation) and adds a weak 20 Hz beta burst; 1/f-like background noise.
# temporal conv -> BN -> depthwise spatial conv -> BN -> ELU -> pool -> dropout -> separable conv -> BN -> ELU -> pool -> dense
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SEED = 11
np.random.seed(SEED)
torch.manual_seed(SEED)
torch.set_num_threads(1)

N_CHANS, N_TIMES, SFREQ, N_CLASSES = 8, 128, 128, 4
N_TRAIN, N_VALID = 1200, 400
BATCH_SIZE = 32
MAX_EPOCHS = 12
LR = 3e-3
DROPOUT = 0.25
F1, D, F2 = 8, 2, 16


def make_trials(n, rng):
    t = np.arange(N_TIMES) / SFREQ
    y = rng.randint(0, N_CLASSES, size=n)
    X = np.zeros((n, N_CHANS, N_TIMES))
    for i in range(n):
        # 1/f-ish background: integrated white noise, high-passed by subtracting a moving average
        bg = np.cumsum(rng.randn(N_CHANS, N_TIMES), axis=1)
        bg -= np.convolve(bg.mean(0), np.ones(16) / 16, mode="same")[None]
        bg = 6.0 * (bg - bg.mean(1, keepdims=True)) / (bg.std(1, keepdims=True) + 1e-6)
        mu_amp = np.full(N_CHANS, 7.0)
        mu_amp[2 * y[i]:2 * y[i] + 2] = 4.5
        phase = rng.uniform(0, 2 * np.pi, size=(N_CHANS, 1))
        mu = mu_amp[:, None] * np.sin(2 * np.pi * (10 + rng.randn() * 0.5) * t[None] + phase)
        beta = np.zeros((N_CHANS, N_TIMES))
        beta[(2 * y[i] + 3) % N_CHANS] = 3.0 * np.sin(2 * np.pi * 20 * t + rng.uniform(0, 6.28)) * np.exp(-((t - 0.5) / 0.2) ** 2)
        X[i] = bg + mu + beta + 3.0 * rng.randn(N_CHANS, N_TIMES)
    return X, y


rng = np.random.RandomState(SEED)
X, y = make_trials(N_TRAIN + N_VALID, rng)
X_uv = X  # microvolts
# per-channel standardisation with training-set statistics
ch_mean = X_uv[:N_TRAIN].mean(axis=(0, 2), keepdims=True)
ch_std = X_uv[:N_TRAIN].std(axis=(0, 2), keepdims=True)
X = (X_uv - ch_mean) / ch_std
X = torch.tensor(X, dtype=torch.float32).unsqueeze(1)  # (n, 1, C, T)
y = torch.tensor(y, dtype=torch.long)
X_train, y_train = X[:N_TRAIN], y[:N_TRAIN]
X_valid, y_valid = X[N_TRAIN:], y[N_TRAIN:]


class EEGNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv_temporal = nn.Conv2d(1, F1, (1, 32), padding=(0, 16), bias=False)
        self.bn1 = nn.BatchNorm2d(F1)
        self.conv_spatial = nn.Conv2d(F1, F1 * D, (N_CHANS, 1), groups=F1, bias=False)
        self.bn2 = nn.BatchNorm2d(F1 * D)
        self.pool1 = nn.AvgPool2d((1, 4))
        self.drop1 = nn.Dropout(DROPOUT)
        self.conv_sep_depth = nn.Conv2d(F1 * D, F1 * D, (1, 16), padding=(0, 8), groups=F1 * D, bias=False)
        self.conv_sep_point = nn.Conv2d(F1 * D, F2, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(F2)
        self.pool2 = nn.AvgPool2d((1, 8))
        self.drop2 = nn.Dropout(DROPOUT)
        self.classifier = nn.Linear(F2 * 4, N_CLASSES)

    def forward(self, x):
        x = self.bn1(self.conv_temporal(x))
        x = F.elu(self.bn2(self.conv_spatial(x)))
        x = self.drop1(self.pool1(x))
        x = F.elu(self.bn3(self.conv_sep_point(self.conv_sep_depth(x))))
        x = self.drop2(self.pool2(x))
        return self.classifier(x.flatten(1))


model = EEGNet()
# keep the convolutional feature extractor fixed and fine-tune only the classification head
for name, p in model.named_parameters():
    if not name.startswith("classifier"):
        p.requires_grad = False
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
criterion = nn.CrossEntropyLoss()


def evaluate(Xs, ys):
    model.eval()
    with torch.no_grad():
        out = model(Xs)
        loss = criterion(out, ys).item()
        acc = (out.argmax(1) == ys).float().mean().item()
    return loss, acc


global_step = 0
print(f"EEGNet-{F1},{D} n_chans={N_CHANS} n_times={N_TIMES} n_classes={N_CLASSES} params={sum(p.numel() for p in model.parameters())}")
print(f"train_trials={N_TRAIN} valid_trials={N_VALID} batch_size={BATCH_SIZE} lr={LR} max_epochs={MAX_EPOCHS}")
for epoch in range(1, MAX_EPOCHS + 1):
    t0 = time.time()
    model.train()
    perm = torch.randperm(N_TRAIN)
    tot_loss, tot_correct, seen = 0.0, 0, 0
    n_batches = (N_TRAIN + BATCH_SIZE - 1) // BATCH_SIZE
    for step, i in enumerate(range(0, N_TRAIN, BATCH_SIZE), 1):
        idx = perm[i:i + BATCH_SIZE]
        xb, yb = X_train[idx], y_train[idx]
        optimizer.zero_grad()
        out = model(xb)
        loss = criterion(out, yb)
        loss.backward()
        optimizer.step()
        tot_loss += loss.item() * len(idx)
        tot_correct += (out.argmax(1) == yb).sum().item()
        seen += len(idx)
        global_step += 1
        if step % 10 == 0:
            print(f"epoch={epoch} step={global_step} loss={loss.item():.4f} acc={tot_correct / seen:.3f}")
    train_loss, train_acc = tot_loss / seen, tot_correct / seen
    valid_loss, valid_acc = evaluate(X_valid, y_valid)
    dur = time.time() - t0
    print(f"epoch={epoch} step={global_step} train_loss={train_loss:.4f} train_acc={train_acc:.3f} val_loss={valid_loss:.4f} val_acc={valid_acc:.3f} time={dur:.1f}s")
