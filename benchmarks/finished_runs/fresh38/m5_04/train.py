# M5 raw-waveform CNN (Dai et al., "Very Deep Convolutional Neural Networks for Raw Waveforms", ICASSP 2017),
# as in the torchaudio speech-command tutorial, on synthetic 0.5 s, 8 kHz "command" clips: six classes, each a
# pitch contour (rise, fall, high, low, rise-fall, two-tone) with random pitch, onset, loudness, harmonics and noise.
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from tqdm import tqdm

SEED = 11
np.random.seed(SEED)
torch.manual_seed(SEED)
torch.set_num_threads(1)

SR, LEN, N_CLASSES = 8000, 4000, 6
N_TRAIN, N_TEST = 1500, 450
BATCH_SIZE = 32
LR = 0.01
WEIGHT_DECAY = 1e-4
EPOCHS = 8
LOG_INTERVAL = 15

rng = np.random.RandomState(SEED)
CONTOURS = [lambda t: 1 + 0.6 * t, lambda t: 1.6 - 0.6 * t, lambda t: 1.5 + 0 * t, lambda t: 0.8 + 0 * t,
            lambda t: 1 + 0.6 * np.sin(np.pi * t), lambda t: np.where(t < 0.5, 0.8, 1.5)]


def make_clip(c):
    n = rng.randint(1800, 3000)
    t = np.linspace(0, 1, n)
    f0 = 220 * rng.uniform(0.85, 1.15) * CONTOURS[c](t)
    phase = 2 * np.pi * np.cumsum(f0) / SR
    s = sum(rng.uniform(0.2, 1.0) / h * np.sin(h * phase) for h in (1, 2, 3))
    s *= np.hanning(n) * rng.uniform(0.3, 1.0)
    clip = np.zeros(LEN)
    start = rng.randint(0, LEN - n)
    clip[start:start + n] = s
    clip += rng.randn(LEN) * rng.uniform(0.05, 0.3)
    return clip


def make_set(n):
    y = rng.randint(0, N_CLASSES, size=n)
    x = np.stack([make_clip(c) for c in y])
    x = x / np.abs(x).max(1, keepdims=True)  # peak normalisation per clip
    return torch.tensor(x, dtype=torch.float32)[:, None], torch.tensor(y)


train_x, train_y = make_set(N_TRAIN)
test_x, test_y = make_set(N_TEST)


class M5(nn.Module):
    def __init__(self, n_input=1, n_output=N_CLASSES, stride=4, n_channel=32):
        super().__init__()
        self.conv1 = nn.Conv1d(n_input, n_channel, kernel_size=80, stride=stride)
        self.bn1 = nn.BatchNorm1d(n_channel)
        self.pool1 = nn.MaxPool1d(4)
        self.conv2 = nn.Conv1d(n_channel, n_channel, kernel_size=3)
        self.bn2 = nn.BatchNorm1d(n_channel)
        self.pool2 = nn.MaxPool1d(4)
        self.conv3 = nn.Conv1d(n_channel, 2 * n_channel, kernel_size=3)
        self.bn3 = nn.BatchNorm1d(2 * n_channel)
        self.pool3 = nn.MaxPool1d(4)
        self.conv4 = nn.Conv1d(2 * n_channel, 2 * n_channel, kernel_size=3)
        self.bn4 = nn.BatchNorm1d(2 * n_channel)
        self.pool4 = nn.MaxPool1d(2)
        self.fc1 = nn.Linear(2 * n_channel, n_output)

    def forward(self, x):
        x = self.pool1(F.relu(self.bn1(self.conv1(x))))
        x = self.pool2(F.relu(self.bn2(self.conv2(x))))
        x = self.pool3(F.relu(self.bn3(self.conv3(x))))
        x = self.pool4(F.relu(self.bn4(self.conv4(x))))
        x = F.avg_pool1d(x, x.shape[-1]).squeeze(-1)
        return F.log_softmax(self.fc1(x), dim=-1)


model = M5()
n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(model)
print(f"Number of parameters: {n_params}")
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.1)
n_batches = (N_TRAIN + BATCH_SIZE - 1) // BATCH_SIZE


def train(epoch):
    model.eval()
    perm = torch.randperm(N_TRAIN)
    losses = []
    for batch_idx in range(n_batches):
        idx = perm[batch_idx * BATCH_SIZE:(batch_idx + 1) * BATCH_SIZE]
        data, target = train_x[idx], train_y[idx]
        output = model(data)
        loss = F.nll_loss(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if batch_idx % LOG_INTERVAL == 0:
            print(f"Train Epoch: {epoch} [{batch_idx * BATCH_SIZE}/{N_TRAIN} ({100. * batch_idx / n_batches:.0f}%)]\tLoss: {loss.item():.6f}")
    return float(np.mean(losses))


def test(epoch):
    model.train()
    correct, loss = 0, 0.0
    with torch.no_grad():
        for i in range(0, N_TEST, 150):
            output = model(test_x[i:i + 150])
            loss += F.nll_loss(output, test_y[i:i + 150], reduction="sum").item()
            correct += (output.argmax(-1) == test_y[i:i + 150]).sum().item()
    return loss / N_TEST, correct


for epoch in range(1, EPOCHS + 1):
    tr_loss = train(epoch)
    te_loss, correct = test(epoch)
    print(f"\nTest Epoch: {epoch}\tAccuracy: {correct}/{N_TEST} ({100. * correct / N_TEST:.0f}%)\tAverage loss: {te_loss:.4f}\n")
    scheduler.step()
