# osmr/imgclsmob issue "Inplace ReLU's are unnecessary and wrong" in miniature: training the pytorchcv Xception as it
# stood when the issue was filed (pytorch/pytorchcv/models/xception.py): ConvBlock / DwsConvBlock with
# self.activ = nn.ReLU(inplace=True), the DwsConvBlock applying its ReLU as a pre-activation (x = self.activ(x) before
# the depthwise-separable convolution), and XceptionUnit.forward computing identity = self.identity_conv(x) (a 1x1
# conv + BatchNorm on x) before x = self.body(x), whose first block, when start_with_relu, rectifies that same x in
# place. The convolution saved x for its backward pass, so the first loss.backward() of the training script fails with
# "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation"
# (exit 1). The training script is the usual loop the traceback shows, train(train_loader, model, criterion,
# optimizer, epoch, lr_scheduler) with CrossEntropyLoss and SGD (lr 0.01, momentum 0.9, weight decay 1e-4) and a
# StepLR schedule. Scaled down: the Xception layout (init block, entry-flow units with stride 2 and 2 repetitions,
# middle-flow units with 3 repetitions, exit unit with grow_first=False, final block of two depthwise-separable blocks,
# ReLU, global pooling and a linear classifier) with channels [[32], [64], [96, 96], [128]] instead of
# [[128], [256], [728] * 9, [1024]] and final widths 192 / 256 instead of 1536 / 2048, on 64 x 64 synthetic texture
# pictures of 10 classes (1200 training, 300 validation), batch 32, 5 epochs planned. metrics.csv has per-step loss and
# accuracy and per-epoch validation loss and accuracy (only what was logged before the crash).
import csv, math, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F
import torch.nn.init as init

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)


class ConvBlock(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, activate):
        super(ConvBlock, self).__init__()
        self.activate = activate
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding, bias=False)
        self.bn = nn.BatchNorm2d(num_features=out_channels)
        if self.activate:
            self.activ = nn.ReLU(inplace=True)

    def forward(self, x):
        x = self.conv(x)
        x = self.bn(x)
        if self.activate:
            x = self.activ(x)
        return x


class DwsConv(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0):
        super(DwsConv, self).__init__()
        self.dw_conv = nn.Conv2d(in_channels, in_channels, kernel_size, stride=stride, padding=padding,
                                 groups=in_channels, bias=False)
        self.pw_conv = nn.Conv2d(in_channels, out_channels, kernel_size=1, bias=False)

    def forward(self, x):
        return self.pw_conv(self.dw_conv(x))


class DwsConvBlock(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, activate):
        super(DwsConvBlock, self).__init__()
        self.activate = activate
        if self.activate:
            self.activ = nn.ReLU(inplace=True)
        self.conv = DwsConv(in_channels, out_channels, kernel_size, stride, padding)
        self.bn = nn.BatchNorm2d(num_features=out_channels)

    def forward(self, x):
        if self.activate:
            x = self.activ(x)
        x = self.conv(x)
        x = self.bn(x)
        return x


def dws_conv3x3_block(in_channels, out_channels, activate):
    return DwsConvBlock(in_channels, out_channels, kernel_size=3, stride=1, padding=1, activate=activate)


class XceptionUnit(nn.Module):
    def __init__(self, in_channels, out_channels, stride, reps, start_with_relu=True, grow_first=True):
        super(XceptionUnit, self).__init__()
        self.resize_identity = (in_channels != out_channels) or (stride != 1)
        if self.resize_identity:
            self.identity_conv = ConvBlock(in_channels, out_channels, 1, stride, 0, activate=False)
        self.body = nn.Sequential()
        for i in range(reps):
            if (grow_first and (i == 0)) or ((not grow_first) and (i == reps - 1)):
                in_channels_i, out_channels_i = in_channels, out_channels
            elif grow_first:
                in_channels_i, out_channels_i = out_channels, out_channels
            else:
                in_channels_i, out_channels_i = in_channels, in_channels
            activate = start_with_relu if (i == 0) else True
            self.body.add_module("block{}".format(i + 1), dws_conv3x3_block(in_channels_i, out_channels_i, activate))
        if stride != 1:
            self.body.add_module("pool", nn.MaxPool2d(kernel_size=3, stride=stride, padding=1))

    def forward(self, x):
        if self.resize_identity:
            identity = self.identity_conv(x)
        else:
            identity = x.clone()
        x = self.body(x)
        x = x + identity
        return x


class XceptionInitBlock(nn.Module):
    def __init__(self, in_channels):
        super(XceptionInitBlock, self).__init__()
        self.conv1 = ConvBlock(in_channels, 16, 3, 2, 0, activate=True)
        self.conv2 = ConvBlock(16, 32, 3, 1, 0, activate=True)

    def forward(self, x):
        return self.conv2(self.conv1(x))


class XceptionFinalBlock(nn.Module):
    def __init__(self, in_channels):
        super(XceptionFinalBlock, self).__init__()
        self.conv1 = dws_conv3x3_block(in_channels, 192, activate=False)
        self.conv2 = dws_conv3x3_block(192, 256, activate=True)
        self.activ = nn.ReLU(inplace=True)
        self.pool = nn.AdaptiveAvgPool2d(1)

    def forward(self, x):
        return self.pool(self.activ(self.conv2(self.conv1(x))))


class Xception(nn.Module):
    def __init__(self, channels, in_channels=3, num_classes=10):
        super(Xception, self).__init__()
        self.features = nn.Sequential()
        self.features.add_module("init_block", XceptionInitBlock(in_channels))
        in_channels = 32
        for i, channels_per_stage in enumerate(channels):
            stage = nn.Sequential()
            for j, out_channels in enumerate(channels_per_stage):
                stage.add_module("unit{}".format(j + 1), XceptionUnit(
                    in_channels, out_channels, stride=(2 if (j == 0) else 1), reps=(2 if (j == 0) else 3),
                    start_with_relu=((i != 0) or (j != 0)),
                    grow_first=((i != len(channels) - 1) or (j != len(channels_per_stage) - 1))))
                in_channels = out_channels
            self.features.add_module("stage{}".format(i + 1), stage)
        self.features.add_module("final_block", XceptionFinalBlock(in_channels))
        self.output = nn.Linear(256, num_classes)
        for name, module in self.named_modules():
            if isinstance(module, nn.Conv2d):
                init.kaiming_uniform_(module.weight)
                if module.bias is not None:
                    init.constant_(module.bias, 0)

    def forward(self, x):
        x = self.features(x)
        return self.output(x.view(x.size(0), -1))


# synthetic textures: 10 classes of oriented stripe / blob patterns with random phase, colour jitter and noise
S, NC = 64, 10
yy, xx = np.mgrid[0:S, 0:S].astype(np.float32) / S


def picture(c, r):
    ang = c * math.pi / NC + r.normal(0, .08)
    freq = 4 + (c % 3) * 3
    g = np.sin(2 * math.pi * freq * (xx * math.cos(ang) + yy * math.sin(ang)) + r.uniform(0, 6.3))
    col = np.array([.5 + .4 * math.sin(c), .5 + .4 * math.cos(2 * c), .5], np.float32) + r.normal(0, .05, 3)
    img = col[:, None, None] * (0.6 + 0.4 * g)[None] + r.normal(0, .15, (3, S, S))
    return ((img - .5) / .3).astype(np.float32)


def make(n, seed):
    r = np.random.RandomState(seed)
    ys = r.randint(0, NC, n)
    return torch.from_numpy(np.stack([picture(int(c), r) for c in ys])), torch.from_numpy(ys).long()


class AverageMeter(object):
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, v, n=1):
        self.sum += v * n; self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def train(train_loader, model, criterion, optimizer, epoch, lr_scheduler):
    model.train()
    losses, top1 = AverageMeter(), AverageMeter()
    for i, (inp, target) in enumerate(train_loader):
        output = model(inp)
        loss = criterion(output, target)
        acc = (output.argmax(1) == target).float().mean().item()
        losses.update(loss.item(), inp.size(0)); top1.update(acc, inp.size(0))
        wr.writerow([epoch, epoch * len(train_loader) + i + 1, round(loss.item(), 5), round(acc, 4), '', '']); f.flush()
        if i % 10 == 0:
            print('Epoch: [{0}][{1}/{2}]\tLoss {3:.4f} ({4:.4f})\tAcc {5:.3f} ({6:.3f})'.format(
                epoch, i, len(train_loader), loss.item(), losses.avg, acc, top1.avg), flush=True)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    lr_scheduler.step()


def validate(val_x, val_y, model, criterion):
    model.eval()
    with torch.no_grad():
        out = model(val_x)
        return criterion(out, val_y).item(), (out.argmax(1) == val_y).float().mean().item()


train_x, train_y = make(1200, 1)
val_x, val_y = make(300, 2)
train_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(train_x, train_y), batch_size=32, shuffle=True)
model = Xception(channels=[[32], [64], [96, 96], [128]], num_classes=NC)
print('Xception: %d parameters' % sum(p.numel() for p in model.parameters()))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.1)
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'step', 'loss', 'accuracy', 'val_loss', 'val_accuracy'])
for epoch in range(5):
    train(train_loader, model, criterion, optimizer, epoch, lr_scheduler)
    vl, va = validate(val_x, val_y, model, criterion)
    print(' * Epoch {0} validation: Loss {1:.4f}  Acc {2:.3f}'.format(epoch, vl, va), flush=True)
    wr.writerow([epoch, (epoch + 1) * len(train_loader), '', '', round(vl, 5), round(va, 4)]); f.flush()
f.close()
