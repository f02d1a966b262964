# UrbanSound8K-style environmental sound classifier in miniature, after the "PyTorch for Audio" course code
# (CNNNetwork: 4 conv blocks of Conv2d(3x3)-ReLU-MaxPool, flatten, Linear to 10 classes, then nn.Softmax(dim=1);
# trained with nn.CrossEntropyLoss, Adam lr 1e-3, batch 128): synthetic log-mel spectrograms (64 mel bands x 44
# frames) of 10 sound classes (each a class-specific mix of harmonic stacks, noise bands and onset patterns with
# random pitch shift, timing and gain), 3000 training and 600 test clips read through a Dataset / DataLoader,
# 10 epochs. Prints the course's "Epoch i" / "loss: ..." / "-----" lines (mean training loss over the epoch) plus the
# test accuracy, writes metrics.csv.
import csv
import math
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(339)
NM, NF, NC = 64, 44, 10
f0 = torch.randint(4, 20, (NC,), generator=g)
noise_band = torch.randint(0, 48, (NC,), generator=g)
period = torch.randint(3, 12, (NC,), generator=g)


class UrbanSoundLike(Dataset):
    def __init__(self, n, seed):
        gg = torch.Generator().manual_seed(seed)
        self.y = torch.randint(0, NC, (n,), generator=gg)
        self.x = torch.empty(n, 1, NM, NF)
        mel = torch.arange(NM).float()[:, None]
        t = torch.arange(NF).float()[None, :]
        for k in range(n):
            c = int(self.y[k])
            shift = int(torch.randint(-2, 3, (1,), generator=gg))
            spec = torch.zeros(NM, NF)
            for h in (1, 2, 3):  # harmonic stack
                spec += torch.exp(-0.5 * ((mel - h * (f0[c] + shift)) / 1.2) ** 2) / h
            spec += 0.6 * torch.exp(-0.5 * ((mel - noise_band[c]) / 5.0) ** 2) * torch.rand(1, NF, generator=gg)
            phase = int(torch.randint(0, int(period[c]), (1,), generator=gg))
            spec *= 0.4 + 0.6 * (((t + phase) % period[c]) < period[c] / 2).float()
            spec = spec * (0.5 + torch.rand(1, generator=gg)) + 0.25 * torch.rand(NM, NF, generator=gg)
            self.x[k, 0] = 10 * torch.log10(spec + 1e-3) / 10  # log-mel, roughly unit scale
        self.x = (self.x - self.x.mean()) / self.x.std()

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


class CNNNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        chans = [1, 16, 32, 64, 128]
        self.convs = nn.Sequential(*[nn.Sequential(nn.Conv2d(chans[i], chans[i + 1], 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)) for i in range(4)])
        self.flatten = nn.Flatten()
        self.linear = nn.Linear(128 * 4 * 2, NC)
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x):
        logits = self.linear(self.flatten(self.convs(x)))
        return self.softmax(logits)


train_data, test_data = UrbanSoundLike(3000, 1), UrbanSoundLike(600, 2)
train_loader = DataLoader(train_data, batch_size=128, shuffle=True, generator=g)
cnn = CNNNetwork()
loss_fn = nn.CrossEntropyLoss()
optimiser = torch.optim.Adam(cnn.parameters(), lr=0.001)
rows = []
for i in range(10):
    print(f"Epoch {i + 1}")
    cnn.train()
    losses = []
    for x, y in train_loader:
        loss = loss_fn(cnn(x), y)
        optimiser.zero_grad(); loss.backward(); optimiser.step()
        losses.append(loss.item())
    cnn.eval()
    with torch.no_grad():
        acc = (cnn(test_data.x).argmax(1) == test_data.y).float().mean().item()
    rows.append(dict(epoch=i + 1, loss=sum(losses) / len(losses), test_acc=acc))
    print(f"loss: {rows[-1]['loss']:.6f}  test accuracy: {acc:.3f}")
    print("---------------------------")
print("Finished training")
with open('metrics.csv', 'w', newline='') as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
