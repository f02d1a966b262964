# pytorch/pytorch issue "Gradient clipping with torch.cuda.amp" in miniature: the PyTorch MNIST example
# (two conv layers, max-pool, Dropout2d(0.25), fc 128, Dropout2d(0.5), fc 10, log_softmax + nll_loss,
# Adadelta lr=1.0, StepLR(step_size=1, gamma=0.7), batch 64, the example's "Train Epoch: ..." and
# "Test set: ..." lines) run under automatic mixed precision with a GradScaler, on CPU (autocast in
# bfloat16, GradScaler("cpu") with its default initial scale 65536). The digits are replaced by 3200
# synthetic 14 x 14 images of 10 classes (a fixed random stroke pattern per class, randomly shifted,
# plus noise), channels halved (16/32) to fit a CPU. The training step is written as in the report:
#     scaler.scale(loss).backward()
#     clip_grad_norm_(model.parameters(), 12)
#     scaler.step(optimizer)
#     scaler.update()
import csv
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F, torch.optim as optim
from torch.nn.utils import clip_grad_norm_
from torch.optim.lr_scheduler import StepLR

np.random.seed(40907); torch.manual_seed(40907); torch.set_num_threads(1)
S, K = 14, 10
protos = (np.random.rand(K, S + 4, S + 4) > 0.72).astype(np.float32)
def make(n):
    X = np.zeros((n, 1, S, S), np.float32); y = np.random.randint(0, K, n)
    for i in range(n):
        dy, dx = np.random.randint(0, 5, 2)
        X[i, 0] = protos[y[i], dy:dy + S, dx:dx + S] + 0.35 * np.random.randn(S, S)
    return torch.tensor((X - 0.28) / 0.55), torch.tensor(y)
Xtr, ytr = make(3200); Xte, yte = make(800)

class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, 1)
        self.conv2 = nn.Conv2d(16, 32, 3, 1)
        self.dropout1 = nn.Dropout2d(0.25)
        self.dropout2 = nn.Dropout2d(0.5)
        self.fc1 = nn.Linear(800, 128)
        self.fc2 = nn.Linear(128, 10)
    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = self.dropout2(x)
        x = self.fc2(x)
        return F.log_softmax(x.float(), dim=1)

model = Net()
optimizer = optim.Adadelta(model.parameters(), lr=1.0)
scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
scaler = torch.amp.GradScaler('cpu')
wr = csv.writer(open('metrics.csv', 'w', newline=''))
wr.writerow(['epoch', 'step', 'loss', 'grad_norm', 'lr', 'test_loss', 'test_acc'])
batch_size, epochs, log_interval, step = 64, 6, 10, 0
for epoch in range(1, epochs + 1):
    model.train()
    perm = torch.randperm(len(Xtr))
    for batch_idx in range(len(Xtr) // batch_size):
        idx = perm[batch_idx * batch_size:(batch_idx + 1) * batch_size]
        data, target = Xtr[idx], ytr[idx]
        optimizer.zero_grad()
        with torch.autocast('cpu', dtype=torch.bfloat16):
            output = model(data)
            loss = F.nll_loss(output, target)
        scaler.scale(loss).backward()
        gn = clip_grad_norm_(model.parameters(), 12)
        scaler.step(optimizer)
        scaler.update()
        step += 1
        if batch_idx % log_interval == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(Xtr), 100. * batch_idx * batch_size / len(Xtr), loss.item()))
            wr.writerow([epoch, step, loss.item(), gn.item(), optimizer.param_groups[0]['lr'], '', ''])
    model.eval(); test_loss = 0; correct = 0
    with torch.no_grad():
        for i in range(0, len(Xte), 200):
            with torch.autocast('cpu', dtype=torch.bfloat16):
                output = model(Xte[i:i + 200])
            test_loss += F.nll_loss(output, yte[i:i + 200], reduction='sum').item()
            correct += output.argmax(dim=1).eq(yte[i:i + 200]).sum().item()
    test_loss /= len(Xte)
    print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
        test_loss, correct, len(Xte), 100. * correct / len(Xte)))
    wr.writerow([epoch, step, '', '', optimizer.param_groups[0]['lr'], test_loss, correct / len(Xte)])
    scheduler.step()
