# Scene-text recognizer (small CNN-GRU, 4 character slots, cross-entropy per slot) fed by an on-the-fly word-image synthesizer: train_dataset.get_batch()
import csv
import random
import time
import torch
import torch.nn as nn

torch.manual_seed(0)
random.seed(0)
torch.set_num_threads(1)

CHARS = "0123456789"
GLYPH = {}
g = torch.Generator().manual_seed(1)
for c in CHARS:
    GLYPH[c] = (torch.rand(12, 8, generator=g) > 0.55).float().tolist()


class SynthTextDataset:
    """Renders each word image pixel by pixel, then applies noise / jitter / blur in Python."""

    def __init__(self, batch_size):
        self.batch_size = batch_size

    def render(self, word):
        H, W = 16, 8 * len(word) + 8
        img = [[0.0] * W for _ in range(H)]
        x0 = random.randint(0, 6)
        for k, ch in enumerate(word):
            dy = random.randint(0, 3)
            for r in range(12):
                for c in range(8):
                    if GLYPH[ch][r][c] > 0 and x0 + 8 * k + c < W:
                        img[r + dy][x0 + 8 * k + c] = 1.0
        for _ in range(2):  # box blur
            out = [[0.0] * W for _ in range(H)]
            for r in range(H):
                for c in range(W):
                    s, n = 0.0, 0
                    for rr in range(max(0, r - 1), min(H, r + 2)):
                        for cc in range(max(0, c - 1), min(W, c + 2)):
                            s += img[rr][cc]
                            n += 1
                    out[r][c] = s / n + random.gauss(0, 0.05)
            img = out
        return img

    def get_batch(self):
        images, labels, lengths = [], [], []
        for _ in range(self.batch_size):
            word = "".join(random.choice(CHARS) for _ in range(4))
            img = self.render(word)
            padded = [row + [0.0] * (48 - len(row)) for row in img]
            images.append(padded)
            labels.append([CHARS.index(ch) for ch in word])
            lengths.append(len(word))
        return torch.tensor(images).unsqueeze(1), torch.tensor(labels), torch.tensor(lengths)


class CRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.cnn = nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d((2, 1)),
                                 nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d((2, 1)),
                                 nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d((1, 4)))
        self.rnn = nn.GRU(64, 64, bidirectional=True, batch_first=True)
        self.fc = nn.Linear(128, len(CHARS))

    def forward(self, x):
        f = self.cnn(x).squeeze(2).permute(0, 2, 1)
        o, _ = self.rnn(f)
        return self.fc(o)


train_dataset = SynthTextDataset(batch_size=32)
model = CRNN()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
num_iter = 120
start = time.time()
with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "loss", "data_time", "step_time"])
    for i in range(1, num_iter + 1):
        t0 = time.time()
        image_tensors, labels, lengths = train_dataset.get_batch()
        t1 = time.time()
        preds = model(image_tensors)
        cost = criterion(preds.reshape(-1, len(CHARS)), labels.reshape(-1))
        optimizer.zero_grad()
        cost.backward()
        optimizer.step()
        t2 = time.time()
        w.writerow([i, f"{cost.item():.4f}", f"{t1 - t0:.4f}", f"{t2 - t1:.4f}"])
        if i % 10 == 0:
            print(f"[{i}/{num_iter}] Loss: {cost.item():0.5f} elapsed_time: {time.time() - start:0.5f} "
                  f"get_batch: {t1 - t0:0.4f}s forward/backward: {t2 - t1:0.4f}s")
