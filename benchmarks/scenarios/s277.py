# CIFAR-100-style classification in miniature with the reference's multi-step schedule: a small
# wide-ish CNN on 20-class 16x16 images, SGD lr 0.2, momentum 0.9, weight decay 5e-4, batch 64,
# 15 epochs with the learning rate divided by 10 at epochs 10 and 13 (--schedule 10 13), log lines
# in the reference's format (Train/Test Prec@1, best accuracy).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(61)

C = 20
protos = torch.rand(C, 3, 6, 6, generator=g)
def make(n):
    y = torch.randint(0, C, (n,), generator=g)
    x = F.interpolate(protos[y], size=16, mode='bilinear', align_corners=False) + 0.6 * torch.randn(n, 3, 16, 16, generator=g)
    shift = torch.randint(-2, 3, (2,), generator=g)
    return torch.roll(x, shifts=(int(shift[0]), int(shift[1])), dims=(2, 3)), y
Xtr, ytr = make(2400); Xte, yte = make(1000)

net = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
                    nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
                    nn.Flatten(), nn.Dropout(0.3), nn.Linear(64 * 16, C))
opt = torch.optim.SGD(net.parameters(), lr=0.2, momentum=0.9, weight_decay=5e-4)
sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[10, 13], gamma=0.1)
best = 0.0
for epoch in range(15):
    net.train(); correct = 0
    perm = torch.randperm(2400)
    lr = opt.param_groups[0]['lr']
    for i in range(0, 2400, 64):
        idx = perm[i:i + 64]
        xb = Xtr[idx]
        if torch.rand(1).item() < 0.5:
            xb = xb.flip(3)
        out = net(xb)
        loss = F.cross_entropy(out, ytr[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        correct += (out.argmax(1) == ytr[idx]).sum().item()
    sched.step()
    net.eval()
    with torch.no_grad():
        out = net(Xte); tl = F.cross_entropy(out, yte).item(); acc = (out.argmax(1) == yte).float().mean().item() * 100
    print('==>>[Epoch={:03d}/015] [learning_rate={:.4f}] [Best : Accuracy={:.2f}, Error={:.2f}]'.format(epoch, lr, best, 100 - best))
    print('  **Train** Prec@1 {:.3f} Error@1 {:.3f}'.format(100 * correct / 2400, 100 - 100 * correct / 2400))
    print('  **Test** Prec@1 {:.3f} Error@1 {:.3f} Loss: {:.3f}'.format(acc, 100 - acc, tl))
    best = max(best, acc)
