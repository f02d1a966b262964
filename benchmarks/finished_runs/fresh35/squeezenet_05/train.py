"""SqueezeNet-style classifier (fire modules) on synthetic 16x16 colour texture images, 6 classes.

Training loop and prints follow gsp-27/pytorch_Squeezenet main.py (SGD with momentum 0.9 and weight decay,
the "55 epoch learning rule" regimes, `Train Epoch: e [n/N (p%)]\tLoss: ...`, `training accuracy (...)`,
`predicted ... out of ...`, `accuracy = ...`).
"""
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)

parser = argparse.ArgumentParser('Options for training SqueezeNet in pytorch')
parser.add_argument('--batch-size', type=int, default=32, metavar='N', help='batch size of train')
parser.add_argument('--epoch', type=int, default=12, metavar='N', help='number of epochs to train for')
parser.add_argument('--learning-rate', type=float, default=0.005, metavar='LR', help='learning rate')
parser.add_argument('--momentum', type=float, default=0.9, metavar='M', help='percentage of past parameters to store')
parser.add_argument('--log-schedule', type=int, default=10, metavar='N', help='number of batches between prints')
parser.add_argument('--seed', type=int, default=1, help='set seed to some constant value to reproduce experiments')
parser.add_argument('--epoch_55', action='store_true', default=True, help='would you like to use 55 epoch learning rule')
args = parser.parse_args()

torch.manual_seed(args.seed)


def make_images(n, seed):
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, 6, (n,), generator=g)
    yy, xx = torch.meshgrid(torch.arange(16.), torch.arange(16.), indexing='ij')
    angles = torch.tensor([0., 0.5, 1.0, 1.6, 2.1, 2.6])
    freqs = torch.tensor([0.9, 1.2, 0.9, 1.2, 0.9, 1.2])
    colours = torch.tensor([[1., .2, .2], [.2, 1., .2], [.2, .2, 1.], [1., 1., .2], [.2, 1., 1.], [1., .2, 1.]])
    imgs = torch.empty(n, 3, 16, 16)
    for i in range(n):
        c = labels[i]
        a = angles[c] + 0.25 * torch.randn(1, generator=g)
        ph = 6.28 * torch.rand(1, generator=g)
        wave = torch.sin(freqs[c] * (xx * torch.cos(a) + yy * torch.sin(a)) + ph)
        col = colours[(int(c) + int(torch.randint(0, 2, (1,), generator=g))) % 6] if torch.rand(1, generator=g) < 0.3 else colours[c]
        imgs[i] = col[:, None, None] * wave[None] + 1.1 * torch.randn(3, 16, 16, generator=g)
    mean, std = imgs.mean(dim=(0, 2, 3)), imgs.std(dim=(0, 2, 3))
    imgs = (imgs - mean[None, :, None, None]) / std[None, :, None, None]
    return imgs, labels


class Fire(nn.Module):
    def __init__(self, inplanes, squeeze_planes, expand_planes):
        super(Fire, self).__init__()
        self.conv1 = nn.Conv2d(inplanes, squeeze_planes, kernel_size=1, stride=1)
        self.bn1 = nn.BatchNorm2d(squeeze_planes)
        self.relu1 = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(squeeze_planes, expand_planes, kernel_size=1, stride=1)
        self.bn2 = nn.BatchNorm2d(expand_planes)
        self.conv3 = nn.Conv2d(squeeze_planes, expand_planes, kernel_size=3, stride=1, padding=1)
        self.bn3 = nn.BatchNorm2d(expand_planes)
        self.relu2 = nn.ReLU(inplace=True)

    def forward(self, x):
        x = self.relu1(self.bn1(self.conv1(x)))
        out1 = self.bn2(self.conv2(x))
        out2 = self.bn3(self.conv3(x))
        out = torch.cat([out1, out2], 1)
        out = self.relu2(out)
        return out


class SqueezeNet(nn.Module):
    def __init__(self, num_classes=6):
        super(SqueezeNet, self).__init__()
        self.conv1 = nn.Conv2d(3, 32, kernel_size=3, stride=1, padding=1)
        self.bn1 = nn.BatchNorm2d(32)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool1 = nn.MaxPool2d(kernel_size=2, stride=2)
        self.fire2 = Fire(32, 8, 16)
        self.fire3 = Fire(32, 8, 16)
        self.maxpool2 = nn.MaxPool2d(kernel_size=2, stride=2)
        self.fire4 = Fire(32, 16, 32)
        self.fire5 = Fire(64, 16, 32)
        self.drop = nn.Dropout(0.3)
        self.conv2 = nn.Conv2d(64, num_classes, kernel_size=1, stride=1)
        self.avg_pool = nn.AdaptiveAvgPool2d(1)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                n = m.kernel_size[0] * m.kernel_size[1] * m.in_channels
                m.weight.data.normal_(0, np.sqrt(2. / n))

    def forward(self, x):
        x = self.maxpool1(self.relu(self.bn1(self.conv1(x))))
        x = self.fire2(x)
        x = self.fire3(x)
        x = self.maxpool2(x)
        x = self.fire4(x)
        x = self.fire5(x)
        x = self.conv2(self.drop(x))
        x = self.avg_pool(x).flatten(1)
        return F.softmax(x, dim=1)


train_x, train_y = make_images(1280, 0)
val_x, val_y = make_images(384, 1)
train_set = torch.utils.data.TensorDataset(train_x, train_y)
train_loader = torch.utils.data.DataLoader(train_set, batch_size=args.batch_size, shuffle=True)
test_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(val_x, val_y), batch_size=64, shuffle=False)

net = SqueezeNet()


def paramsforepoch(epoch):
    p = dict()
    regimes = [[1, 6, 5e-3, 5e-4],
               [7, 10, 1e-3, 5e-4],
               [11, 1e8, 1e-4, 0]]
    for i, row in enumerate(regimes):
        if epoch >= row[0] and epoch <= row[1]:
            p['learning_rate'] = row[2]
            p['weight_decay'] = row[3]
    return p


avg_loss = list()
best_accuracy = 0.0
optimizer = torch.optim.SGD(net.parameters(), lr=args.learning_rate, momentum=args.momentum, weight_decay=5e-4)


def adjustlrwd(params):
    for param_group in optimizer.param_groups:
        param_group['lr'] = params['learning_rate']
        param_group['weight_decay'] = params['weight_decay']


def train(epoch):
    if args.epoch_55:
        params = paramsforepoch(epoch)
        print("Configuring optimizer with lr={:.5f} and weight_decay={:.4f}".format(params['learning_rate'], params['weight_decay']))
        adjustlrwd(params)
    global avg_loss
    correct = 0
    net.train()
    for b_idx, (data, targets) in enumerate(train_loader):
        optimizer.zero_grad()
        scores = net.forward(data)
        loss = F.nll_loss(scores, targets)
        pred = scores.data.max(1)[1]
        correct += pred.eq(targets.data).cpu().sum()
        avg_loss.append(loss.item())
        loss.backward()
        optimizer.step()
        if b_idx % args.log_schedule == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, (b_idx + 1) * len(data), len(train_loader.dataset),
                100. * (b_idx + 1) * len(data) / len(train_loader.dataset), loss.item()))
    train_accuracy = correct / float(len(train_loader.dataset))
    print("training accuracy ({:.2f}%)".format(100 * train_accuracy))
    return (train_accuracy * 100.0)


def val():
    global best_accuracy
    correct = 0
    net.eval()
    with torch.no_grad():
        for idx, (data, target) in enumerate(test_loader):
            score = net.forward(data)
            pred = score.data.max(1)[1]
            correct += pred.eq(target.data).cpu().sum()
    print("predicted {} out of {}".format(correct, len(test_loader.dataset)))
    val_accuracy = correct / float(len(test_loader.dataset)) * 100
    print("accuracy = {:.2f}".format(val_accuracy))
    if val_accuracy > best_accuracy:
        best_accuracy = val_accuracy
        torch.save(net.state_dict(), 'bsqueezenet_onfulldata.pth')
    return val_accuracy


if __name__ == '__main__':
    train_acc, val_acc = list(), list()
    for i in range(1, args.epoch + 1):
        train_acc.append(train(i))
        val_acc.append(val())
