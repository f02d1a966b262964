# CNTK Examples/Image/MNIST 03_ConvBatchNorm (03_ConvBatchNorm.cntk + .ndl) ported to PyTorch, with the
# SGD block's minibatchSize set on the command line: featScaled = features / 256, ConvBNReLULayer(16 maps, 5x5)
# -> MaxPooling 2x2 -> ConvBNReLULayer(32 maps, 5x5) -> MaxPooling 2x2 -> DnnBNReLULayer(128) -> DNNLayer(10),
# CrossEntropyWithSoftmax + ErrorPrediction, SGD with learningRatesPerMB and momentumPerMB 0.9, train
# then test, CNTK-style "Minibatch[...]: ce = ...; err = ..." / "Finished Epoch[...]" / "Final Results" lines.
# BatchNormalization is written out as in CNTK's Macros.ndl node (batch mean / variance in training,
# running averages at test time). 10 classes of synthetic 28 x 28 "digit" images.
import csv, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(5); torch.manual_seed(5); torch.set_num_threads(1)

# ---- data: 10 stroke templates, random shift / thickness / noise, pixel values 0..255 ----
def templates():
    t = torch.zeros(10, 28, 28)
    for c in range(10):
        for _ in range(3):
            y0, x0, y1, x1 = np.random.randint(5, 23, 4)
            for s in np.linspace(0, 1, 40):
                t[c, int(round(y0 + s * (y1 - y0))), int(round(x0 + s * (x1 - x0)))] = 1.0
    return F.max_pool2d(t.unsqueeze(1), 3, 1, 1).squeeze(1)
T = templates()
def make_set(n):
    y = torch.randint(0, 10, (n,))
    x = torch.stack([torch.roll(T[c], (np.random.randint(-2, 3), np.random.randint(-2, 3)), (0, 1)) for c in y])
    x = (x * (0.7 + 0.3 * torch.rand(n, 1, 1)) + 0.15 * torch.rand(n, 28, 28)).clamp(0, 1)
    return (x * 255).round().unsqueeze(1), y
train_x, train_y = make_set(2000)
test_x, test_y = make_set(1000)

class BatchNormalization(nn.Module):
    """CNTK BatchNormalization node: normalizes with the minibatch mean / variance while training and
    with the running averages at test time."""
    def __init__(self, dim, spatial, eps=1e-5, momentum=0.1):
        super().__init__()
        self.spatial, self.eps, self.momentum = spatial, eps, momentum
        self.scale = nn.Parameter(torch.ones(dim)); self.bias = nn.Parameter(torch.zeros(dim))
        self.register_buffer('run_mean', torch.zeros(dim)); self.register_buffer('run_var', torch.ones(dim))
    def forward(self, x):
        dims = (0, 2, 3) if self.spatial else (0,)
        shape = (1, -1, 1, 1) if self.spatial else (1, -1)
        if self.training:
            mean = x.mean(dims); var = x.var(dims, unbiased=False)
            with torch.no_grad():
                self.run_mean.mul_(1 - self.momentum).add_(self.momentum * mean)
                self.run_var.mul_(1 - self.momentum).add_(self.momentum * var)
        else:
            mean, var = self.run_mean, self.run_var
        xhat = (x - mean.view(shape)) / torch.sqrt(var.view(shape) + self.eps)
        return xhat * self.scale.view(shape) + self.bias.view(shape)

class ConvBNReLULayer(nn.Module):
    def __init__(self, inp, out, k):
        super().__init__(); self.conv = nn.Conv2d(inp, out, k, bias=False); self.bn = BatchNormalization(out, True)
    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))
class DnnBNReLULayer(nn.Module):
    def __init__(self, inp, out):
        super().__init__(); self.W = nn.Linear(inp, out, bias=False); self.bn = BatchNormalization(out, False)
    def forward(self, x):
        return F.relu(self.bn(self.W(x)))

class DNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = ConvBNReLULayer(1, 16, 5); self.conv2 = ConvBNReLULayer(16, 32, 5)
        self.h1 = DnnBNReLULayer(32 * 4 * 4, 128); self.ol = nn.Linear(128, 10)
    def forward(self, features):
        featScaled = features * 0.00390625
        pool1 = F.max_pool2d(self.conv1(featScaled), 2, 2)
        pool2 = F.max_pool2d(self.conv2(pool1), 2, 2)
        return self.ol(self.h1(pool2.flatten(1)))

net = DNN()
minibatchSize = 1
maxEpochs = 2
learningRatesPerMB = [0.05, 0.01]
numMBsToShowResult = 500
optimizer = torch.optim.SGD(net.parameters(), lr=learningRatesPerMB[0], momentum=0.9)

f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'minibatch', 'ce', 'err', 'test_ce', 'test_err', 'lr'])
for epoch in range(maxEpochs):
    for g in optimizer.param_groups: g['lr'] = learningRatesPerMB[min(epoch, len(learningRatesPerMB) - 1)]
    net.train(); perm = torch.randperm(len(train_x)); t0 = time.time()
    ce_sum = err_sum = n_win = 0.0; ce_show = err_show = n_show = 0.0; ep_ce = ep_err = 0.0
    n_mb = len(perm) // minibatchSize
    for mb in range(n_mb):
        idx = perm[mb * minibatchSize:(mb + 1) * minibatchSize]
        ol = net(train_x[idx]); ce = F.cross_entropy(ol, train_y[idx])
        err = (ol.argmax(1) != train_y[idx]).float().mean()
        optimizer.zero_grad(); ce.backward(); optimizer.step()
        ce_sum += ce.item(); err_sum += err.item(); n_win += 1; ep_ce += ce.item(); ep_err += err.item()
        ce_show += ce.item(); err_show += err.item(); n_show += 1
        if (mb + 1) % 100 == 0:
            wr.writerow([epoch + 1, epoch * n_mb + mb + 1, round(ce_sum / n_win, 5), round(err_sum / n_win, 4), '', '', optimizer.param_groups[0]['lr']])
        if (mb + 1) % numMBsToShowResult == 0:
            print(' Epoch[{} of {}]-Minibatch[{:4d}-{:4d}]: ce = {:.8f} * {}; err = {:.8f} * {}; time = {:.4f}s'.format(
                epoch + 1, maxEpochs, mb + 2 - numMBsToShowResult, mb + 1, ce_show / n_show, int(n_show) * minibatchSize, err_show / n_show, int(n_show) * minibatchSize, time.time() - t0), flush=True)
            ce_show = err_show = n_show = 0.0
        if (mb + 1) % 100 == 0:
            ce_sum = err_sum = n_win = 0.0
    print('Finished Epoch[{} of {}]: [Training] ce = {:.8f} * {}; err = {:.8f} * {}; learningRatePerSample = {}; epochTime={:.3f}s'.format(
        epoch + 1, maxEpochs, ep_ce / n_mb, n_mb * minibatchSize, ep_err / n_mb, n_mb * minibatchSize, optimizer.param_groups[0]['lr'], time.time() - t0))
    net.eval()
    with torch.no_grad():
        ol = net(test_x); tce = F.cross_entropy(ol, test_y).item(); terr = (ol.argmax(1) != test_y).float().mean().item()
    print('Final Results: Minibatch[1-{}]: err = {:.8f} * {}; ce = {:.8f} * {}'.format(
        len(test_x) // 32 + 1, terr, len(test_x), tce, len(test_x)), flush=True)
    wr.writerow([epoch + 1, (epoch + 1) * n_mb, '', '', round(tce, 5), round(terr, 4), optimizer.param_groups[0]['lr']]); f.flush()
