# CIFAR-style image classification in miniature with the regularisation recipe of the reference
# training script: mixup (alpha = 1.0) and label smoothing (0.1) on the training batches; the
# logged training accuracy is measured on the mixed images against the mixed targets. Small CNN,
# SGD lr 0.05 momentum 0.9 nesterov, wd 1e-4, cosine schedule, batch 64, 12 epochs.
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
beta = torch.distributions.Beta(torch.tensor(1.0), torch.tensor(1.0))

g = torch.Generator().manual_seed(21)
protos = torch.rand(10, 3, 8, 8, generator=g)
def make(n):
    y = torch.randint(0, 10, (n,), generator=g)
    x = F.interpolate(protos[y], size=16, mode="bilinear", align_corners=False) + 0.9 * torch.randn(n, 3, 16, 16, generator=g)
    return x, y
Xtr, ytr = make(3200)
Xte, yte = make(1000)

net = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
                    nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
                    nn.Flatten(), nn.Linear(64 * 16, 10))
EPOCHS = 12
optimizer = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-4)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=EPOCHS)
criterion = nn.CrossEntropyLoss(label_smoothing=0.1)

for epoch in range(EPOCHS):
    net.train()
    train_loss = correct = total = 0.0
    perm = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr), 64):
        idx = perm[i:i + 64]
        inputs, targets = Xtr[idx], ytr[idx]
        lam = beta.sample().item()
        index = torch.randperm(inputs.size(0))
        mixed = lam * inputs + (1 - lam) * inputs[index]
        targets_a, targets_b = targets, targets[index]
        outputs = net(mixed)
        loss = lam * criterion(outputs, targets_a) + (1 - lam) * criterion(outputs, targets_b)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        train_loss += loss.item() * len(idx)
        _, predicted = outputs.max(1)
        total += targets.size(0)
        correct += (lam * predicted.eq(targets_a).sum().float() + (1 - lam) * predicted.eq(targets_b).sum().float()).item()
    scheduler.step()
    net.eval()
    with torch.no_grad():
        out = net(Xte)
        test_loss = F.cross_entropy(out, yte).item()
        test_acc = out.argmax(1).eq(yte).float().mean().item()
    print('Epoch:{}\t lr:{:.4f}\t duration:-\ttrain_loss:{:.4f}\ttrain_acc:{:.2f}%\ttest_loss:{:.4f}\ttest_acc:{:.2f}%'.format(
        epoch, optimizer.param_groups[0]['lr'], train_loss / total, 100 * correct / total, test_loss, 100 * test_acc))
