# Tony-Y/pytorch_warmup issue "Why did my learning rate drop from the initial lr" in miniature: the library's EMNIST
# example (examples/emnist/main.py: a LeNet-style CNN conv 20 - conv 50 - fc 500 - 47 with log_softmax and nll_loss,
# AdamW lr 0.01, betas (0.9, 0.999), weight_decay 0.01, batch 64 with drop_last, CosineAnnealingLR over all steps down
# to 1e-5 wrapped in the untuned linear warm-up (warm-up period 2 / (1 - beta2) = 2000 steps), "Train Epoch: e [n/N
# (p%)] Loss: .. LR: .." every 10 batches and "Test set: Average loss: .., Accuracy: c/n (p%)" per epoch) with the
# poster's loop body
#     loss.backward()
#     optimizer.zero_grad()
#     optimizer.step()
#     with warmup_scheduler.dampening():
#         lr_scheduler.step()
# so the gradients are cleared between backward() and step(): AdamW only applies its decoupled weight decay and the
# network never learns (the poster asked only about the learning rate, which is the warm-up at work). pytorch_warmup is
# not installed here, so the untuned linear warm-up and its dampening() context are re-implemented in a few lines.
# Scaled down: 47 synthetic 28 x 28 "characters" (stroke prototypes with shifts, thickness and noise, normalised with
# the EMNIST mean / std) replace EMNIST balanced: 4700 training and 1000 test images, 3 epochs. metrics.csv has the
# loss and learning rate every 10 batches (history.csv of the example) and the test loss / accuracy per epoch.
import csv
from contextlib import contextmanager
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(1); np.random.seed(1); torch.set_num_threads(1)

class Args: pass
args = Args()
args.batch_size, args.test_batch_size, args.epochs, args.lr, args.lr_min = 64, 1000, 3, 0.01, 1e-5
args.wd, args.beta2, args.log_interval = 0.01, 0.999, 10

rs = np.random.RandomState(0)
protos = np.zeros((47, 28, 28), np.float32)
for c in range(47):
    for _ in range(rs.randint(2, 4)):
        y0, x0, y1, x1 = rs.randint(5, 23, 4)
        for s in np.linspace(0, 1, 60):
            y, x = int(y0 + s * (y1 - y0)), int(x0 + s * (x1 - x0)); protos[c, y - 1:y + 1, x - 1:x + 1] = 1.0
def make_set(n, seed):
    r = np.random.RandomState(seed); t = np.arange(n) % 47; r.shuffle(t)
    imgs = np.stack([np.roll(protos[c], (r.randint(-2, 3), r.randint(-2, 3)), (0, 1)) for c in t])
    imgs = np.clip(imgs * r.uniform(0.6, 1.0, (n, 1, 1)) + r.normal(0, 0.25, imgs.shape), 0, 1)
    x = (torch.from_numpy(imgs.astype(np.float32)).unsqueeze(1) - 0.1751) / 0.3332   # transforms.Normalize
    return torch.utils.data.TensorDataset(x, torch.from_numpy(t).long())
train_loader = torch.utils.data.DataLoader(make_set(4700, 1), batch_size=args.batch_size, shuffle=True, drop_last=True)
test_loader = torch.utils.data.DataLoader(make_set(1000, 2), batch_size=args.test_batch_size, shuffle=False)

class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 20, 5, 1); self.conv2 = nn.Conv2d(20, 50, 5, 1)
        self.fc1 = nn.Linear(4 * 4 * 50, 500); self.fc2 = nn.Linear(500, 47)
    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2, 2); x = F.max_pool2d(F.relu(self.conv2(x)), 2, 2)
        x = F.relu(self.fc1(x.view(-1, 4 * 4 * 50)))
        return F.log_softmax(self.fc2(x), dim=1)

class UntunedLinearWarmup:
    """pytorch_warmup.UntunedLinearWarmup: omega_t = min(1, t / (2 / (1 - beta2)))."""
    def __init__(self, optimizer):
        self.optimizer = optimizer; self.last_step = 0
        self.warmup_period = int(2.0 / (1.0 - optimizer.param_groups[0]['betas'][1]))
        self.lrs = [g['lr'] for g in optimizer.param_groups]
        self.dampen()
    def dampen(self):
        self.last_step += 1
        omega = min(1.0, self.last_step / self.warmup_period)
        for g, lr in zip(self.optimizer.param_groups, self.lrs): g['lr'] = lr * omega
    @contextmanager
    def dampening(self):
        for g, lr in zip(self.optimizer.param_groups, self.lrs): g['lr'] = lr
        yield
        self.lrs = [g['lr'] for g in self.optimizer.param_groups]
        self.dampen()

def train(model, train_loader, optimizer, lr_scheduler, warmup_scheduler, epoch, history):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        lr = optimizer.param_groups[0]['lr']
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.zero_grad()
        optimizer.step()
        with warmup_scheduler.dampening():
            lr_scheduler.step()
        if (batch_idx + 1) % args.log_interval == 0:
            loss = loss.item(); step = warmup_scheduler.last_step
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f} LR: {:.6f}'.format(
                epoch, (batch_idx + 1) * len(data), len(train_loader) * len(data),
                100. * (batch_idx + 1) / len(train_loader), loss, lr))
            history.writerow([epoch, step, round(loss, 6), lr, '', ''])

def test(model, test_loader, epoch, history):
    model.eval(); test_loss = 0; correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction='sum').item()
            correct += output.argmax(dim=1, keepdim=True).eq(target.view_as(output.argmax(dim=1, keepdim=True))).sum().item()
    test_loss /= len(test_loader.dataset); test_acc = 100. * correct / len(test_loader.dataset)
    print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(test_loss, correct, len(test_loader.dataset), test_acc))
    history.writerow([epoch, '', '', '', round(test_loss, 5), test_acc])

model = Net()
optimizer = optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, args.beta2), weight_decay=args.wd)
num_steps = len(train_loader) * args.epochs
lr_scheduler = optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=num_steps, eta_min=args.lr_min)
warmup_scheduler = UntunedLinearWarmup(optimizer)
f = open('metrics.csv', 'w', newline=''); history = csv.writer(f)
history.writerow(['epoch', 'step', 'loss', 'lr', 'test_loss', 'test_acc'])
for epoch in range(1, args.epochs + 1):
    train(model, train_loader, optimizer, lr_scheduler, warmup_scheduler, epoch, history); f.flush()
    test(model, test_loader, epoch, history); f.flush()
f.close()
