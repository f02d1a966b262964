# "CIFAR-10 with CNN" lab in miniature: 3x16x16 synthetic 10-class images, a 2-conv + 2-FC CNN, SGD lr
# 0.01 momentum 0.9, batch 64, 6 epochs. In the lab's train() the optimizer.zero_grad() call sits once at
# the top of the epoch, outside the batch loop, so every batch's gradient is added to all previous
# batches' gradients of the same epoch before optimizer.step().
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(288)

protos = torch.rand(10, 3, 4, 4, generator=g)


def make(n):
    y = torch.randint(0, 10, (n,), generator=g)
    x = F.interpolate(protos[y], size=16, mode='bilinear', align_corners=False) + 0.35 * torch.randn(n, 3, 16, 16, generator=g)
    return (x - 0.5) / 0.3, y


trainloader = DataLoader(TensorDataset(*make(3200)), batch_size=64, shuffle=True)
testloader = DataLoader(TensorDataset(*make(1000)), batch_size=250)


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1); self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 4 * 4, 64); self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


net = CNN()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
for epoch in range(6):
    net.train()
    optimizer.zero_grad()                                    # once per epoch
    running_loss = 0.0; correct = 0; total = 0
    for i, (inputs, labels) in enumerate(trainloader):
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        gnorm = torch.sqrt(sum((p.grad ** 2).sum() for p in net.parameters())).item()
        optimizer.step()
        running_loss += loss.item(); correct += (outputs.argmax(1) == labels).sum().item(); total += len(labels)
        if i % 10 == 9:
            print('[%d, %5d] loss: %.3f | grad norm: %.2f' % (epoch + 1, i + 1, running_loss / 10, gnorm))
            running_loss = 0.0
    net.eval(); tc = 0; tl = 0.0
    with torch.no_grad():
        for inputs, labels in testloader:
            out = net(inputs); tl += criterion(out, labels).item() * len(labels); tc += (out.argmax(1) == labels).sum().item()
    print('epoch %d: train acc %.2f %% | test loss %.3f | test acc %.2f %%' % (epoch + 1, 100 * correct / total, tl / 1000, 100 * tc / 1000))
