# PyTorch "Quickstart" loop in miniature on a small FashionMNIST-like set (10 classes, 28x28, 800 training
# images): train(dataloader, model, loss_fn, optimizer) never calls model.train(), while test(...) calls
# model.eval() at its top. So after the first test() the network stays in eval mode for every later
# training epoch and its two Dropout(0.5) layers are switched off for the rest of training.
# MLP 784-512-512-10, Adam 1e-3, batch 32, 20 epochs.
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(286)

protos = torch.rand(10, 1, 28, 28, generator=g)


def make(n):
    y = torch.randint(0, 10, (n,), generator=g)
    x = 0.05 * protos[y] + 0.95 * torch.rand(n, 1, 28, 28, generator=g)
    return x, y


train_dataloader = DataLoader(TensorDataset(*make(800)), batch_size=32, shuffle=True)
test_dataloader = DataLoader(TensorDataset(*make(2000)), batch_size=256)


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(28 * 28, 512), nn.ReLU(), nn.Dropout(0.5),
            nn.Linear(512, 512), nn.ReLU(), nn.Dropout(0.5),
            nn.Linear(512, 10))

    def forward(self, x):
        return self.linear_relu_stack(self.flatten(x))


model = NeuralNetwork()
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)


def train(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset); total = 0.0; correct = 0
    for batch, (X, y) in enumerate(dataloader):          # no model.train() here
        pred = model(X)
        loss = loss_fn(pred, y)
        loss.backward(); optimizer.step(); optimizer.zero_grad()
        total += loss.item() * len(X); correct += (pred.argmax(1) == y).sum().item()
        if batch % 10 == 0:
            print(f"loss: {loss.item():>7f}  [{(batch + 1) * len(X):>5d}/{size:>5d}]")
    print(f"Train: Accuracy: {100 * correct / size:>0.1f}%, Avg loss: {total / size:>8f}, model.training={model.training}")


def test(dataloader, model, loss_fn):
    size = len(dataloader.dataset); num_batches = len(dataloader)
    model.eval()
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    print(f"Test Error: \n Accuracy: {(100 * correct / size):>0.1f}%, Avg loss: {test_loss / num_batches:>8f} \n")


for t in range(20):
    print(f"Epoch {t + 1}\n-------------------------------")
    train(train_dataloader, model, loss_fn, optimizer)
    test(test_dataloader, model, loss_fn)
print("Done!")
