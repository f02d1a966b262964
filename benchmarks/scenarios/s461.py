# vikasverma1077/manifold_mixup supervised/main.py --train mixup_hidden in miniature: a small
# PreActResNet-style network whose forward(x, target, mixup_hidden=True, mixup_alpha) picks a random
# layer k in {0, 1, 2} (0 = the input), mixes the batch there with lam ~ Beta(alpha, alpha) and a
# random permutation, and returns the output with the reweighted (mixed one-hot) target;
# loss = bce_loss(softmax(output), reweighted_target); Prec@1 of the training batch via accuracy(output, target);
# SGD lr 0.1, momentum 0.9, nesterov, decay 1e-4, mixup_alpha 2.0, batch 100, step schedule;
# validate() with CrossEntropyLoss on the test set. 10 classes of synthetic 16 x 16 RGB images.
import csv, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(1); torch.manual_seed(1); torch.set_num_threads(1)
num_classes = 10
templates = torch.randn(num_classes, 3, 16, 16)
templates = templates + 0.8 * torch.randn(num_classes, 3, 1, 1)  # per-class colour cast
def make_set(n):
    y = torch.randint(0, num_classes, (n,))
    shift = torch.randint(-2, 3, (n, 2))
    x = torch.stack([torch.roll(templates[c], (int(s[0]), int(s[1])), (1, 2)) for c, s in zip(y, shift)])
    x = x + 0.8 * torch.randn_like(x)
    return x, y
x_train, y_train = make_set(4000)
x_test, y_test = make_set(1000)

def to_one_hot(inp, num_classes):
    return torch.zeros(inp.size(0), num_classes).scatter_(1, inp.unsqueeze(1), 1)

def get_lambda(alpha=1.0):
    return np.random.beta(alpha, alpha) if alpha > 0. else 1.

def mixup_process(out, target_reweighted, lam):
    indices = np.random.permutation(out.size(0))
    out = out * lam + out[indices] * (1 - lam)
    target_shuffled_onehot = target_reweighted[indices]
    target_reweighted = target_reweighted * lam + target_shuffled_onehot * (1 - lam)
    return out, target_reweighted

class PreActBlock(nn.Module):
    def __init__(self, in_planes, planes, stride=1):
        super().__init__()
        self.bn1 = nn.BatchNorm2d(in_planes); self.conv1 = nn.Conv2d(in_planes, planes, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes); self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.shortcut = nn.Conv2d(in_planes, planes, 1, stride, bias=False) if stride != 1 or in_planes != planes else None
    def forward(self, x):
        out = F.relu(self.bn1(x))
        shortcut = self.shortcut(out) if self.shortcut is not None else x
        out = self.conv1(out)
        out = self.conv2(F.relu(self.bn2(out)))
        return out + shortcut

class PreActResNet(nn.Module):
    def __init__(self, num_classes=10, initial_channels=16):
        super().__init__()
        self.num_classes = num_classes
        self.conv1 = nn.Conv2d(3, initial_channels, 3, 1, 1, bias=False)
        self.layer1 = PreActBlock(initial_channels, initial_channels)
        self.layer2 = PreActBlock(initial_channels, initial_channels * 2, stride=2)
        self.bn = nn.BatchNorm2d(initial_channels * 2)
        self.linear = nn.Linear(initial_channels * 2, num_classes)
    def forward(self, x, target=None, mixup_hidden=False, mixup_alpha=0.1, layer_mix=None):
        if mixup_hidden:
            if layer_mix is None:
                layer_mix = np.random.randint(0, 3)
            out = x
            target_reweighted = to_one_hot(target, self.num_classes)
            lam = get_lambda(mixup_alpha)
            if layer_mix == 0:
                out, target_reweighted = mixup_process(out, target_reweighted, lam)
            out = self.conv1(out)
            out = self.layer1(out)
            if layer_mix == 1:
                out, target_reweighted = mixup_process(out, target_reweighted, lam)
            out = self.layer2(out)
            if layer_mix == 2:
                out, target_reweighted = mixup_process(out, target_reweighted, lam)
            out = F.relu(self.bn(out))
            out = F.adaptive_avg_pool2d(out, 1).flatten(1)
            return self.linear(out), target_reweighted
        out = self.conv1(x); out = self.layer1(out); out = self.layer2(out)
        out = F.relu(self.bn(out))
        return self.linear(F.adaptive_avg_pool2d(out, 1).flatten(1))

def accuracy(output, target, topk=(1,)):
    maxk = max(topk); batch_size = target.size(0)
    _, pred = output.topk(maxk, 1, True, True); pred = pred.t()
    correct = pred.eq(target.view(1, -1).expand_as(pred))
    return [correct[:k].reshape(-1).float().sum(0).mul_(100.0 / batch_size) for k in topk]

bce_loss = nn.BCELoss(); softmax = nn.Softmax(dim=1); criterion = nn.CrossEntropyLoss()
net = PreActResNet(num_classes)
learning_rate, epochs, batch_size, mixup_alpha = 0.1, 10, 100, 2.0
schedule, gammas = [6, 8], [0.1, 0.1]
optimizer = torch.optim.SGD(net.parameters(), learning_rate, momentum=0.9, weight_decay=1e-4, nesterov=True)

f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'step', 'loss', 'train_prec1', 'test_loss', 'test_prec1', 'lr'])
step = 0
for epoch in range(epochs):
    lr = learning_rate
    for gamma, s in zip(gammas, schedule):
        if epoch >= s: lr *= gamma
    for g in optimizer.param_groups: g['lr'] = lr
    print('\n==>> [Epoch={:03d}/{:03d}] [learning_rate={:6.4f}]'.format(epoch, epochs, lr))
    net.train(); perm = torch.randperm(len(x_train)); losses = top1 = n = 0.0
    nb = len(x_train) // batch_size
    for i in range(nb):
        idx = perm[i * batch_size:(i + 1) * batch_size]
        input, target = x_train[idx], y_train[idx]
        output, reweighted_target = net(input, target, mixup_hidden=True, mixup_alpha=mixup_alpha)
        loss = bce_loss(softmax(output), reweighted_target)
        prec1, = accuracy(output, target, topk=(1,))
        optimizer.zero_grad(); loss.backward(); optimizer.step(); step += 1
        losses += loss.item() * len(idx); top1 += prec1.item() * len(idx); n += len(idx)
        wr.writerow([epoch, step, round(loss.item(), 5), round(prec1.item(), 2), '', '', lr])
        if i % 10 == 0:
            print('  Epoch: [{:03d}][{:03d}/{:03d}]   Loss {:.4f} ({:.4f})   Prec@1 {:.3f} ({:.3f})'.format(
                epoch, i, nb, loss.item(), losses / n, prec1.item(), top1 / n), flush=True)
    print('  **Train** Prec@1 {:.3f} Error@1 {:.3f}'.format(top1 / n, 100 - top1 / n))
    net.eval()
    with torch.no_grad():
        out = net(x_test); tl = criterion(out, y_test).item(); tp, = accuracy(out, y_test)
    print('  **Test** Prec@1 {:.3f} Error@1 {:.3f} Loss: {:.3f} '.format(tp.item(), 100 - tp.item(), tl), flush=True)
    wr.writerow([epoch, step, '', round(top1 / n, 3), round(tl, 4), round(tp.item(), 2), lr]); f.flush()
