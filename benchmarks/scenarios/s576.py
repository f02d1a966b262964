# pytorch/pytorch issue 666 ("nn.Module not importing parameters contained in lists") as a training run: the
# network is built with the number of layers as an argument and the layers are kept in a plain Python list
# (self.list_of_layers = [nn.Linear(...) for i in range(num_layers)]), next to one layer assigned directly
# (self.layer). nn.Module only registers modules assigned as attributes (or held in nn.ModuleList), so
# print(net) shows only (layer), net.parameters() holds only self.layer's weight and bias, and the optimizer built
# from net.parameters() never updates the listed layers: they get gradients but keep their random initial
# values. Here the listed layers are the hidden stack of a small classifier (3 x Linear + ReLU, width 64) and
# self.layer is the output layer; synthetic 10-class data labelled by a fixed random teacher network, Adam
# lr 1e-3, batch 64, 20 epochs. A line per epoch with the training loss / accuracy and the validation loss /
# accuracy; metrics.csv has every batch loss and the per-epoch results.
import csv

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)

D, H, C = 32, 64, 10
N_TRAIN, N_VAL = 10000, 2000


def make_data(n, g):
    x = torch.randn(n, D, generator=g)
    return x


g = torch.Generator().manual_seed(1)
teacher_w1 = torch.randn(D, 48, generator=g) / D ** 0.5
teacher_w2 = torch.randn(48, C, generator=g) / 48 ** 0.5
x_train = make_data(N_TRAIN, g)
x_val = make_data(N_VAL, g)


def label(x):
    return (torch.tanh(x @ teacher_w1) @ teacher_w2).argmax(1)


y_train, y_val = label(x_train), label(x_val)


class net(nn.Module):
    def __init__(self, num_layers):
        super(net, self).__init__()

        self.layer = nn.Linear(H, C)
        self.list_of_layers = [nn.Linear(D if i == 0 else H, H) for i in range(num_layers)]

    def forward(self, x):
        for l in self.list_of_layers:
            x = F.relu(l(x))
        return self.layer(x)


n = net(3)
print(n)
print('parameters seen by the optimizer: %d tensors, %d values' %
      (len(list(n.parameters())), sum(p.numel() for p in n.parameters())))
optimizer = torch.optim.Adam(n.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()

f = open('metrics.csv', 'w', newline='')
wr = csv.writer(f)
wr.writerow(['epoch', 'step', 'train_loss', 'val_loss', 'val_acc'])
step = 0
for epoch in range(20):
    perm = torch.randperm(N_TRAIN)
    tot, correct, seen = 0.0, 0, 0
    for i in range(0, N_TRAIN, 64):
        idx = perm[i:i + 64]
        xb, yb = x_train[idx], y_train[idx]
        out = n(xb)
        loss = criterion(out, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        tot += loss.item() * len(idx)
        correct += (out.argmax(1) == yb).sum().item()
        seen += len(idx)
        wr.writerow([epoch, step, '%.5f' % loss.item(), '', ''])
        step += 1
    with torch.no_grad():
        vout = n(x_val)
        vloss = criterion(vout, y_val).item()
        vacc = (vout.argmax(1) == y_val).float().mean().item()
    wr.writerow([epoch, step, '', '%.5f' % vloss, '%.4f' % vacc])
    print('epoch %2d  train loss %.4f  train acc %.4f  val loss %.4f  val acc %.4f' %
          (epoch, tot / seen, correct / seen, vloss, vacc))
f.close()
