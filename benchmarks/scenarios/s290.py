# From-scratch dense network in miniature (dnns-from-scratch-style MNIST MLP): 784 -> 5 hidden ReLU layers
# of 100 units -> 10, on MNIST-like 28x28 synthetic digits (10 classes, 4000 training images). Weights
# are drawn from N(0, 0.01^2) (a "small random" init, not He/Kaiming scaled to the fan-in), biases zero.
# Softmax cross-entropy, plain SGD lr 0.05, batch 50, 8 epochs; per-layer gradient norms are logged.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(290)

protos = (torch.rand(10, 784, generator=g) < 0.3).float()


def make(n):
    y = torch.randint(0, 10, (n,), generator=g)
    x = 0.6 * protos[y] + 0.4 * torch.rand(n, 784, generator=g)
    return x, y


xtr, ytr = make(4000); xte, yte = make(1000)
sizes = [784, 100, 100, 100, 100, 100, 10]
layers = []
for a, b in zip(sizes[:-1], sizes[1:]):
    lin = nn.Linear(a, b)
    nn.init.normal_(lin.weight, 0.0, 0.01); nn.init.zeros_(lin.bias)
    layers.append(lin)
net = nn.ModuleList(layers)


def forward(x):
    for i, l in enumerate(net):
        x = l(x)
        if i < len(net) - 1:
            x = F.relu(x)
    return x


opt = torch.optim.SGD(net.parameters(), lr=0.05)
for epoch in range(1, 9):
    perm = torch.randperm(4000); tot = 0.0; correct = 0
    for i in range(0, 4000, 50):
        idx = perm[i:i + 50]
        out = forward(xtr[idx]); loss = F.cross_entropy(out, ytr[idx])
        opt.zero_grad(); loss.backward()
        gn = [l.weight.grad.norm().item() for l in net]
        opt.step()
        tot += loss.item() * 50; correct += (out.argmax(1) == ytr[idx]).sum().item()
    with torch.no_grad():
        out = forward(xte); tl = F.cross_entropy(out, yte).item(); ta = (out.argmax(1) == yte).float().mean().item()
    print('epoch {} | train loss {:.4f} acc {:.3f} | test loss {:.4f} acc {:.3f} | grad norm layer1 {:.2e} layer3 {:.2e} layer6 {:.2e}'.format(
        epoch, tot / 4000, correct / 4000, tl, ta, gn[0], gn[2], gn[5]))
