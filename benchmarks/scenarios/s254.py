# Human activity recognition from body-worn IMU windows (UCI-HAR style: 9 inertial channels x 128
# time steps, 6 activities) with a small 1-D CNN, as in the reference PyTorch main script.
# The network's forward() ends with F.softmax(out, dim=1) and the criterion is nn.CrossEntropyLoss.
# SGD lr 0.01 momentum 0.9, batch 64, 25 epochs.
import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader

torch.manual_seed(0)
torch.set_num_threads(1)

N_CLASS, CH, T = 6, 9, 128
g = torch.Generator().manual_seed(11)
t = torch.linspace(0, 1, T)
freqs = torch.tensor([1.0, 1.5, 2.5, 3.5, 5.0, 7.0])
phase = torch.rand(N_CLASS, CH, generator=g) * 6.28
amp = 0.5 + torch.rand(N_CLASS, CH, generator=g)

def make(n):
    y = torch.randint(0, N_CLASS, (n,), generator=g)
    f = freqs[y][:, None, None] * (1 + 0.15 * torch.randn(n, 1, 1, generator=g))
    x = amp[y][:, :, None] * torch.sin(2 * math.pi * f * 4 * t + phase[y][:, :, None])
    x = x + 3.0 * torch.randn(n, CH, T, generator=g)
    return x, y

Xtr, ytr = make(3000)
Xte, yte = make(1000)
train_loader = DataLoader(TensorDataset(Xtr, ytr), batch_size=64, shuffle=True, generator=torch.Generator().manual_seed(1))

class Network(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Sequential(nn.Conv1d(CH, 32, 9, padding=4), nn.ReLU(), nn.MaxPool1d(2))
        self.conv2 = nn.Sequential(nn.Conv1d(32, 64, 9, padding=4), nn.ReLU(), nn.MaxPool1d(2))
        self.fc1 = nn.Sequential(nn.Linear(64 * 32, 128), nn.ReLU())
        self.fc2 = nn.Linear(128, N_CLASS)

    def forward(self, x):
        out = self.conv2(self.conv1(x))
        out = out.reshape(out.size(0), -1)
        out = self.fc2(self.fc1(out))
        return F.softmax(out, dim=1)

model = Network()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
criterion = nn.CrossEntropyLoss()
N_EPOCH = 20
for e in range(N_EPOCH):
    model.train()
    correct, total_loss = 0, 0.0
    for sample, target in train_loader:
        output = model(sample)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total_loss += loss.item() * len(target)
        correct += (output.argmax(1) == target).sum().item()
    acc_train = correct / len(ytr)
    model.eval()
    with torch.no_grad():
        out = model(Xte)
        acc_test = (out.argmax(1) == yte).float().mean().item()
        loss_test = criterion(out, yte).item()
    print('Epoch: [{}/{}], loss: {:.4f}, train acc: {:.4f}, test loss: {:.4f}, test acc: {:.4f}'.format(
        e + 1, N_EPOCH, total_loss / len(ytr), acc_train, loss_test, acc_test))
