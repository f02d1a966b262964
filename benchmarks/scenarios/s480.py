# rollovd/LookSAM (looksam.py as of the "fix looksam" commit, May 2022) in miniature: the LookSAM
# optimizer (k=10, alpha=0.7, rho=0.1) wrapping torch.optim.SGD (lr 0.05, momentum 0.9, weight decay 5e-4),
# used exactly as in the README: loss.backward(); optimizer.step(t=train_index, samples=samples,
# targets=targets, zero_grad=True). The network is a small CIFAR-style ResNet whose residual blocks end
# in a BatchNorm with its weight initialised to zero (the "zero_init_residual" recipe), CrossEntropyLoss,
# batch 64, 10 classes of synthetic 3 x 16 x 16 images (3200 training, 640 test), CIFAR-style progress
# lines every 10 iterations and a test pass after each epoch.
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)

class LookSAM(torch.optim.Optimizer):
    def __init__(self, k, alpha, model, base_optimizer, criterion, rho=0.05, **kwargs):
        defaults = dict(alpha=alpha, rho=rho, **kwargs)
        self.model = model
        super(LookSAM, self).__init__(self.model.parameters(), defaults)
        self.k = k
        self.alpha = torch.tensor(alpha, requires_grad=False)
        self.criterion = criterion
        self.base_optimizer = base_optimizer(self.param_groups, **kwargs)
        self.param_groups = self.base_optimizer.param_groups
        self.criterion = criterion

    @staticmethod
    def normalized(g):
        return g / g.norm(p=2)

    def step(self, t, samples, targets, zero_grad=False):
        if not t % self.k:
            group = self.param_groups[0]
            scale = group['rho'] / (self._grad_norm() + 1e-8)
            for index_p, p in enumerate(group['params']):
                if p.grad is None:
                    continue
                self.state[p]['old_p'] = p.data.clone()
                self.state[f'old_grad_p_{index_p}']['old_grad_p'] = p.grad.clone()
                with torch.no_grad():
                    e_w = p.grad * scale.to(p)
                    p.add_(e_w)
            self.criterion(self.model(samples), targets).backward()
        group = self.param_groups[0]
        for index_p, p in enumerate(group['params']):
            if p.grad is None:
                continue
            if not t % self.k:
                old_grad_p = self.state[f'old_grad_p_{index_p}']['old_grad_p']
                g_grad_norm = LookSAM.normalized(old_grad_p)
                g_s_grad_norm = LookSAM.normalized(p.grad)
                self.state[f'gv_{index_p}']['gv'] = torch.sub(p.grad, p.grad.norm(p=2) * torch.sum(
                    g_grad_norm * g_s_grad_norm) * g_grad_norm)
            else:
                with torch.no_grad():
                    gv = self.state[f'gv_{index_p}']['gv']
                    p.grad.add_(self.alpha.to(p) * (p.grad.norm(p=2) / (gv.norm(p=2) + 1e-8) * gv))
            p.data = self.state[p]['old_p']
        self.base_optimizer.step()
        if zero_grad:
            self.zero_grad()

    def _grad_norm(self):
        shared_device = self.param_groups[0]['params'][0].device
        return torch.norm(torch.stack([p.grad.norm(p=2).to(shared_device) for group in self.param_groups
                                       for p in group['params'] if p.grad is not None]), p=2)

class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False); self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False); self.bn2 = nn.BatchNorm2d(cout)
        nn.init.zeros_(self.bn2.weight)                       # zero_init_residual
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(out)) + self.shortcut(x))
class ResNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, 1, 1, bias=False); self.bn1 = nn.BatchNorm2d(16)
        self.layer1 = BasicBlock(16, 16); self.layer2 = BasicBlock(16, 32, 2); self.layer3 = BasicBlock(32, 64, 2)
        self.linear = nn.Linear(64, num_classes)
    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.layer3(self.layer2(self.layer1(out)))
        return self.linear(F.adaptive_avg_pool2d(out, 1).flatten(1))

# synthetic 10-class images: class-specific colour blobs and stripes plus noise
def make(n, rs):
    y = rs.randint(0, 10, n); x = 0.6 * rs.randn(n, 3, 16, 16).astype(np.float32)
    g = np.linspace(-1, 1, 16)
    for i in range(n):
        c = y[i]; cx, cy = (c % 5) / 2 - 1, (c // 5) - 0.5
        blob = np.exp(-((g[None] - cx) ** 2 + (g[:, None] - cy) ** 2) * 4)
        x[i, c % 3] += 1.5 * blob; x[i, (c + 1) % 3] += 0.8 * np.sin(g * (2 + c))[None]
    return torch.tensor(x), torch.tensor(y)
rs = np.random.RandomState(1)
Xtr, Ytr = make(3200, rs); Xte, Yte = make(640, rs)

model = ResNet()
criterion = nn.CrossEntropyLoss()
optimizer = LookSAM(k=10, alpha=0.7, model=model, base_optimizer=torch.optim.SGD, criterion=criterion,
                    rho=0.1, lr=0.05, momentum=0.9, weight_decay=5e-4)
batch_size = 64
for epoch in range(1, 4):
    model.train(); perm = torch.randperm(len(Ytr)); train_loss = correct = total = 0
    n_iter = len(Ytr) // batch_size
    for train_index in range(n_iter):
        idx = perm[train_index * batch_size:(train_index + 1) * batch_size]
        samples, targets = Xtr[idx], Ytr[idx]
        outputs = model(samples)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step(t=train_index, samples=samples, targets=targets, zero_grad=True)
        train_loss += loss.item(); total += len(targets); correct += (outputs.argmax(1) == targets).sum().item()
        if (train_index + 1) % 10 == 0 or train_index < 3:
            print('Epoch: %d [%d/%d] Loss: %.3f | Acc: %.3f%% (%d/%d)' % (epoch, train_index + 1, n_iter,
                  train_loss / (train_index + 1), 100. * correct / total, correct, total), flush=True)
    model.eval()
    with torch.no_grad():
        out = model(Xte); test_loss = criterion(out, Yte).item(); acc = (out.argmax(1) == Yte).float().mean().item()
    print('Test epoch %d | Loss: %.3f | Acc: %.3f%%' % (epoch, test_loss, 100 * acc), flush=True)
