# MNIST-style MLP with validation, batch size 64 (toy data so it runs offline)
import csv
import numpy as np
import torch
from torch import nn, optim
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
torch.set_num_threads(1)
batch_size = 64

g = torch.Generator().manual_seed(3)
protos = torch.rand(10, 28, 28, generator=g)
def fake_mnist(n):
    y = torch.randint(0, 10, (n,), generator=g)
    return (protos[y] * 0.7 + torch.rand(n, 28, 28, generator=g) * 0.5).unsqueeze(1), y

train_x, train_y = fake_mnist(6000)
valid_x, valid_y = fake_mnist(1000)      # 1000 = 15 * 64 + 40
train_loader = DataLoader(TensorDataset(train_x, train_y), batch_size=batch_size, shuffle=True, drop_last=True)
valid_loader = DataLoader(TensorDataset(valid_x, valid_y), batch_size=batch_size)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(28 * 28, 512)
        self.fc2 = nn.Linear(512, 512)
        self.fc3 = nn.Linear(512, 10)
        self.dropout = nn.Dropout(0.2)

    def forward(self, x):
        x = x.view(batch_size, 28 * 28)
        x = self.dropout(F.relu(self.fc1(x)))
        x = self.dropout(F.relu(self.fc2(x)))
        return self.fc3(x)


model = Net()
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(model.parameters(), lr=0.01)

valid_loss_min = np.inf
log = open("metrics.csv", "w", newline="")
w = csv.writer(log)
w.writerow(["step", "epoch", "train_loss", "valid_loss"])
step = 0
for epoch in range(1, 6):
    train_loss = 0.0
    valid_loss = 0.0
    model.train()
    for data, target in train_loader:
        optimizer.zero_grad()
        output = model(data)
        loss = criterion(output, target)
        loss.backward()
        optimizer.step()
        train_loss += loss.item() * data.size(0)
        step += 1
        if step % 10 == 0:
            w.writerow([step, epoch, f"{loss.item():.5f}", ""])
            log.flush()
    model.eval()
    for data, target in valid_loader:
        output = model(data)
        loss = criterion(output, target)
        valid_loss += loss.item() * data.size(0)
    train_loss = train_loss / len(train_loader.dataset)
    valid_loss = valid_loss / len(valid_loader.dataset)
    w.writerow([step, epoch, f"{train_loss:.5f}", f"{valid_loss:.5f}"])
    print('Epoch: {} \tTraining Loss: {:.6f} \tValidation Loss: {:.6f}'.format(epoch, train_loss, valid_loss))
log.close()
