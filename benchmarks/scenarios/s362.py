# MIMO-style multi-input multi-output training in miniature, after a "training of mixmo is very slow / accuracy only
# ~82% at epoch 158" question: a shared MLP trunk (2 x 512) with 2 input encoders and 2 output heads (M = 2
# subnetworks), inputs of two samples mixed with a random ratio (linear mixing, kappa from Beta(2, 2)), mixed
# targets, synthetic 20-class data (10000 train / 2000 test, 32-dim Gaussian inputs labelled by a fixed random two-layer
# tanh teacher network, 5% label noise), SGD lr 0.1 momentum 0.9 weight decay 5e-4, batch 128, 40 epochs with the
# step schedule of the original config scaled down (x0.1 at epochs 14, 27 and 31, i.e. 100/200/225 of 300).
# Prints a CSV log like the repository's (epoch, test accuracy, top-5, ensemble members, train accuracy, lr).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(362)
C, D = 20, 32
A1 = torch.randn(D, 96, generator=g) * 0.3
A2 = torch.randn(96, 96, generator=g) / 96 ** 0.5
W = torch.randn(96, C, generator=g)


def data(n):
    x = torch.randn(n, D, generator=g)
    y = (torch.tanh(torch.tanh(x @ A1) @ A2) @ W).argmax(1)  # labels from a random teacher network
    noisy = torch.rand(n, generator=g) < 0.05
    y = torch.where(noisy, torch.randint(0, C, (n,), generator=g), y)
    return x, y


xtr, ytr = data(10000)
xte, yte = data(2000)


class MIMO(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.ModuleList([nn.Linear(D, 512) for _ in range(2)])
        self.trunk = nn.Sequential(nn.ReLU(), nn.Linear(512, 512), nn.ReLU())
        self.heads = nn.ModuleList([nn.Linear(512, C) for _ in range(2)])

    def forward(self, x0, x1, k):
        h = 2 * (k[:, None] * self.enc[0](x0) + (1 - k[:, None]) * self.enc[1](x1))
        h = self.trunk(h)
        return self.heads[0](h), self.heads[1](h)


model = MIMO()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[14, 27, 31], gamma=0.1)
beta = torch.distributions.Beta(torch.tensor(2.0), torch.tensor(2.0))
print("epoch,test/accuracy,test/accuracytop5,test/accuracy_0,test/accuracy_1,train/accuracy,lr")
for epoch in range(1, 41):
    model.train()
    perm = torch.randperm(10000, generator=g)
    perm2 = torch.randperm(10000, generator=g)
    correct = 0
    for b in range(0, 10000, 128):
        i0, i1 = perm[b:b + 128], perm2[b:b + 128]
        k = beta.sample((len(i0),))
        o0, o1 = model(xtr[i0], xtr[i1], k)
        loss = (k * F.cross_entropy(o0, ytr[i0], reduction='none') + (1 - k) * F.cross_entropy(o0, ytr[i1], reduction='none')).mean() \
            + ((1 - k) * F.cross_entropy(o1, ytr[i1], reduction='none') + k * F.cross_entropy(o1, ytr[i0], reduction='none')).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        correct += (o0.argmax(1) == ytr[i0]).sum().item()
    lr = opt.param_groups[0]['lr']
    sched.step()
    model.eval()
    with torch.no_grad():
        half = torch.full((2000,), 0.5)
        o0, o1 = model(xte, xte, half)
        p = (F.softmax(o0, 1) + F.softmax(o1, 1)) / 2
        acc = (p.argmax(1) == yte).float().mean().item() * 100
        top5 = (p.topk(5, 1).indices == yte[:, None]).any(1).float().mean().item() * 100
        a0 = (o0.argmax(1) == yte).float().mean().item() * 100
        a1 = (o1.argmax(1) == yte).float().mean().item() * 100
    print(f"{epoch},{acc:.2f},{top5:.2f},{a0:.2f},{a1:.2f},{correct / 100:.2f},{lr:g}")
