# MNIST-style MLP classifier in miniature, after the JAX examples/mnist_classifier.py (stax Dense(1024)-Relu-
# Dense(1024)-Relu-Dense(10)-LogSoftmax, SGD momentum 0.9, step size 1e-3, batch 128): synthetic 8x8 "digit"
# images (10 stroke prototypes with random shifts, stroke-intensity jitter and pixel noise, 64 inputs in [0, 1]),
# MLP 64-512-512-10 with log-softmax output, 30000 training and 2000 test images, 10 epochs. The loss is written as
# in the example: the mean of -(log-probabilities * one-hot targets) over the whole batch x class array.
# Prints the training loss, train and test accuracy per epoch, writes metrics.csv.
import csv
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(334)
protos = (torch.rand(10, 10, 10, generator=g) < 0.3).float()  # 10x10 canvases, cropped to 8x8 after a shift


def digits(n):
    y = torch.randint(0, 10, (n,), generator=g)
    dx, dy = torch.randint(0, 3, (n,), generator=g), torch.randint(0, 3, (n,), generator=g)
    x = torch.stack([protos[y[k], dy[k]:dy[k] + 8, dx[k]:dx[k] + 8] for k in range(n)])
    x = x * (0.5 + 0.5 * torch.rand(n, 1, 1, generator=g)) + 0.25 * torch.rand(n, 8, 8, generator=g)
    return x.flatten(1).clamp(0, 1), y


Xtr, Ytr = digits(30000)
Xte, Yte = digits(2000)
model = nn.Sequential(nn.Linear(64, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10), nn.LogSoftmax(-1))
opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)


def loss_fn(preds, targets):
    return -(preds * targets).mean()


rows = []
for epoch in range(1, 11):
    perm = torch.randperm(len(Xtr), generator=g)
    tl = []
    for k in range(0, len(Xtr), 128):
        i = perm[k:k + 128]
        loss = loss_fn(model(Xtr[i]), nn.functional.one_hot(Ytr[i], 10).float())
        opt.zero_grad(); loss.backward(); opt.step()
        tl.append(loss.item())
    with torch.no_grad():
        tra = (model(Xtr).argmax(1) == Ytr).float().mean().item()
        tea = (model(Xte).argmax(1) == Yte).float().mean().item()
    r = dict(epoch=epoch, train_loss=sum(tl) / len(tl), train_acc=tra, test_acc=tea)
    rows.append(r)
    print(f"epoch {epoch:2d} train loss {r['train_loss']:.4f} | train acc {tra:.3f} | test acc {tea:.3f}")
with open('metrics.csv', 'w', newline='') as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
