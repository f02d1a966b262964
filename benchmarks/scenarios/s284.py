# Deep-Clustering-Network-style pipeline in miniature: an autoencoder-shaped encoder (784 -> 500 -> 500
# -> 10) on MNIST-like 10-cluster data (28x28 synthetic digits = class prototype + noise), here trained
# with a softmax head on the labels. The training set is stored sorted by class (as exported) and the
# train DataLoader uses shuffle=False (the test loader uses shuffle=True), so every epoch sweeps class
# 0, then class 1, ... SGD lr 0.01 momentum 0.9, batch 64, 8 epochs.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(284)

protos = (torch.rand(10, 784, generator=g) < 0.25).float()


def make(n_per):
    y = torch.arange(10).repeat_interleave(n_per)                      # sorted by class
    x = protos[y] * 0.7 + 0.5 * torch.rand(len(y), 784, generator=g)
    flip = torch.rand(len(y), 784, generator=g) < 0.15
    x = torch.where(flip, 1 - x, x)
    return x, y


xtr, ytr = make(300); xte, yte = make(100)
train_loader = DataLoader(TensorDataset(xtr, ytr), batch_size=64, shuffle=False)
test_loader = DataLoader(TensorDataset(xte, yte), batch_size=256, shuffle=True)
model = nn.Sequential(nn.Linear(784, 500), nn.ReLU(), nn.Linear(500, 500), nn.ReLU(), nn.Linear(500, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
for epoch in range(8):
    model.train(); losses = []
    for i, (x, y) in enumerate(train_loader):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
        losses.append(loss.item())
        if i % 8 == 0:
            print('epoch {} batch {:2d} loss {:.4f}'.format(epoch, i, loss.item()))
    model.eval(); correct = 0; tl = 0.0; pred_hist = torch.zeros(10)
    with torch.no_grad():
        for x, y in test_loader:
            out = model(x)
            tl += F.cross_entropy(out, y, reduction='sum').item()
            p = out.argmax(1); correct += (p == y).sum().item()
            pred_hist += torch.bincount(p, minlength=10).float()
    print('Epoch {}: mean train loss {:.4f} | test loss {:.4f} | test acc {:.4f} | most predicted class {} ({:.0f}%)'.format(
        epoch, sum(losses) / len(losses), tl / len(yte), correct / len(yte), int(pred_hist.argmax()),
        100 * pred_hist.max().item() / len(yte)))
