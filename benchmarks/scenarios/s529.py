# PyTorch forum thread "What does model.eval() do for batchnorm layer?" in miniature: a reply in the
# thread trained a model with BatchNorm layers and tested it one image at a time without switching
# to eval mode ("I got the same problem when I trained a model using BN layer. If I just need to test
# one image,the BN layer will affect the result because of the change of batch size?"); answer:
# "When evaluating you should use eval() mode and then batch size doesnt matter.", the poster:
# "Thanks~ I have solved the problem~". Here a CIFAR-10-tutorial-style loop trains a small CNN with
# BatchNorm2d after every convolution (SGD lr 0.01 momentum 0.9, batch 32, "[epoch, batch] loss"
# every 50 mini-batches) and after every epoch tests the 1000 test images one image at a time, as
# the poster did, while the network is still in train() mode, so each BatchNorm layer normalises
# the single picture with its own statistics; the training accuracy of the epoch is printed too.
# 32 x 32 synthetic pictures of 10 classes (stripe patterns of 5 orientations / frequencies in two
# colour casts, noise, random brightness) replace CIFAR-10: 5000 training, 1000 test, 6 epochs.
import csv
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
rs = np.random.RandomState(0)

S = 32
yy, xx = np.mgrid[:S, :S].astype(np.float32)
TINT = [np.array([0.75, 0.45, 0.35], np.float32), np.array([0.35, 0.5, 0.75], np.float32)]
classes = ('red-h', 'red-v', 'red-d1', 'red-d2', 'red-fine', 'blue-h', 'blue-v', 'blue-d1', 'blue-d2', 'blue-fine')


def draw(c):
    pat, tint = c % 5, TINT[c // 5]
    ang = [0, math.pi / 2, math.pi / 4, -math.pi / 4, 0][pat] + rs.uniform(-0.2, 0.2)
    freq = (0.9 if pat == 4 else 0.45) * rs.uniform(0.85, 1.15)
    u = xx * math.cos(ang) + yy * math.sin(ang)
    g = 0.5 + 0.25 * np.sin(freq * u + rs.uniform(0, 2 * math.pi))
    img = g[None] * (tint[:, None, None] + rs.uniform(-0.08, 0.08, (3, 1, 1))) * rs.uniform(0.7, 1.3)
    img = img + rs.randn(3, S, S) * 0.12
    return np.clip(img, 0, 1).astype(np.float32)


def make(n):
    ys = rs.randint(0, 10, n)
    X = np.stack([draw(c) for c in ys])
    X = (X - 0.5) / 0.5
    return torch.from_numpy(X), torch.from_numpy(ys)


trainX, trainY = make(5000)
testX, testY = make(1000)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1); self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1); self.bn2 = nn.BatchNorm2d(32)
        self.conv3 = nn.Conv2d(32, 64, 3, padding=1); self.bn3 = nn.BatchNorm2d(64)
        self.pool = nn.MaxPool2d(2, 2)
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = self.pool(F.relu(self.bn2(self.conv2(x))))
        x = F.relu(self.bn3(self.conv3(x)))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


net = Net()
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
f = open('metrics.csv', 'w', newline='')
wr = csv.writer(f)
wr.writerow(['epoch', 'step', 'loss', 'train_acc', 'test_acc'])
step = 0
for epoch in range(6):
    net.train()
    running_loss = 0.0
    correct = total = 0
    perm = torch.randperm(len(trainX))
    for i in range(len(trainX) // 32):
        idx = perm[i * 32:(i + 1) * 32]
        inputs, labels = trainX[idx], trainY[idx]
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        step += 1
        running_loss += loss.item()
        correct += (outputs.argmax(1) == labels).sum().item(); total += labels.size(0)
        wr.writerow([epoch + 1, step, round(loss.item(), 5), '', ''])
        if i % 50 == 49:
            print('[%d, %5d] loss: %.3f' % (epoch + 1, i + 1, running_loss / 50), flush=True)
            running_loss = 0.0
    train_acc = correct / total
    # test one image at a time (the network is still in train mode)
    correct_t = 0
    with torch.no_grad():
        for j in range(len(testX)):
            image = testX[j].unsqueeze(0)
            output = net(image)
            correct_t += int(output.argmax(1).item() == testY[j].item())
    test_acc = correct_t / len(testX)
    print('Accuracy of the network on the %d train images: %d %%' % (total, 100 * train_acc))
    print('Accuracy of the network on the 1000 test images: %d %%' % (100 * test_acc), flush=True)
    wr.writerow([epoch + 1, step, '', round(train_acc, 4), round(test_acc, 4)])
print('Finished Training')
f.close()
