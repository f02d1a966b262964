# microsoft/nni examples/model_compress/pruning/basic_pruners_torch.py flow in miniature, without nni:
# a small VGG-style CIFAR network (conv-BN-ReLU blocks with max pooling, classifier
# = a single Linear after global average pooling) pretrained with SGD lr 0.01 momentum 0.9 weight decay 5e-4, an L1-norm filter
# pruner with sparsity 0.5 on every Conv2d (masks from the filters' L1 norms), then a ModelSpeedup-like
# step that replaces each pruned Conv2d / BatchNorm2d and the Linear with smaller modules holding the
# kept weights, then fine-tuning. nni-example-style "Train Epoch: ... Loss:" and "Test set: Average loss:
# ..., Accuracy: ..." lines. 10 classes of synthetic 3 x 16 x 16 images. The fine-tuning loop keeps using
# the optimizer that was built before the speedup.
import csv
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(7); torch.manual_seed(7); torch.set_num_threads(1)

# ---- data: per-class smooth colour templates, random shifts, noise
base = F.interpolate(torch.randn(10, 3, 4, 4), size=16, mode='bilinear', align_corners=False)
def make(n):
    y = torch.randint(0, 10, (n,))
    x = torch.stack([torch.roll(base[c], (np.random.randint(-2, 3), np.random.randint(-2, 3)), (1, 2)) for c in y])
    return x + 1.6 * torch.randn(n, 3, 16, 16), y
train_x, train_y = make(3000)
test_x, test_y = make(1000)
def train_loader(bs=64):
    perm = torch.randperm(len(train_x))
    for b in range(0, len(perm), bs):
        idx = perm[b:b + bs]; yield train_x[idx], train_y[idx]

cfg = [32, 'M', 64, 'M', 128, 128]
class VGG(nn.Module):
    def __init__(self):
        super().__init__()
        layers, cin = [], 3
        for v in cfg:
            if v == 'M': layers.append(nn.MaxPool2d(2))
            else: layers += [nn.Conv2d(cin, v, 3, padding=1, bias=False), nn.BatchNorm2d(v), nn.ReLU(inplace=True)]; cin = v
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Linear(cfg[-1], 10))
    def forward(self, x):
        x = F.adaptive_avg_pool2d(self.features(x), 1).flatten(1)
        return self.classifier(x)

def trainer(model, optimizer, criterion, epoch, wr):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader()):
        optimizer.zero_grad()
        output = model(data)
        loss = criterion(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % 10 == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_x), 100. * batch_idx * 64 / len(train_x), loss.item()), flush=True)
        wr.writerow([stage, epoch, batch_idx, round(loss.item(), 6), '', '']); f.flush()

def evaluator(model):
    model.eval()
    with torch.no_grad():
        output = model(test_x)
        test_loss = F.cross_entropy(output, test_y).item()
        correct = (output.argmax(1) == test_y).sum().item()
    acc = 100 * correct / len(test_x)
    print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(test_loss, correct, len(test_x), acc), flush=True)
    wr.writerow([stage, epoch, '', '', round(test_loss, 5), acc]); f.flush()
    return acc

f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['stage', 'epoch', 'batch', 'train_loss', 'test_loss', 'test_acc'])
model = VGG()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=5e-4)

print('start pre-training...', flush=True)
stage = 'pretrain'
for epoch in range(3):
    trainer(model, optimizer, criterion, epoch, wr)
    evaluator(model)

# ---- L1FilterPruner, sparsity 0.5 on all Conv2d: keep the half of the filters with the largest L1 norm
masks = {}
for i, m in enumerate(model.features):
    if isinstance(m, nn.Conv2d):
        norms = m.weight.detach().abs().sum((1, 2, 3))
        keep = norms.argsort(descending=True)[:m.out_channels // 2].sort().values
        masks[i] = keep
stage = 'masked'; epoch = 0
with torch.no_grad():
    saved = {i: model.features[i].weight.clone() for i in masks}
    for i, keep in masks.items():
        w = model.features[i].weight; mk = torch.zeros(w.size(0), dtype=torch.bool); mk[keep] = True; w[~mk] = 0
print('Evaluation result (masked model): ', flush=True)
evaluator(model)

# ---- ModelSpeedup: replace the pruned layers with smaller ones that hold the kept weights
print('start speedup...', flush=True)
prev_keep = torch.arange(3)
with torch.no_grad():
    for i, keep in masks.items():
        conv, bn = model.features[i], model.features[i + 1]
        new_conv = nn.Conv2d(len(prev_keep), len(keep), 3, padding=1, bias=False)
        new_conv.weight.copy_(conv.weight[keep][:, prev_keep])
        new_bn = nn.BatchNorm2d(len(keep))
        for name in ['weight', 'bias', 'running_mean', 'running_var']:
            getattr(new_bn, name).copy_(getattr(bn, name)[keep])
        model.features[i], model.features[i + 1] = new_conv, new_bn
        prev_keep = keep
    fc = model.classifier[0]; new_fc = nn.Linear(len(prev_keep), fc.out_features)
    new_fc.weight.copy_(fc.weight[:, prev_keep]); new_fc.bias.copy_(fc.bias)
    model.classifier[0] = new_fc
print('Evaluation result (speedup model): ', flush=True)
stage = 'speedup'
evaluator(model)

print('start finetuning...', flush=True)
stage = 'finetune'
best_acc = 0
for epoch in range(5):
    trainer(model, optimizer, criterion, epoch, wr)
    acc = evaluator(model)
    best_acc = max(best_acc, acc)
print('Best accuracy after finetuning: {:.2f}%'.format(best_acc), flush=True)
