# FluxML/model-zoo issue 8 ("MNIST is using MSE loss") in miniature: mnist/mlp.jl as it was before the fix
# (parent of commit 1b6e8723, "mlp updates"): the MNIST.jl training images as raw Float64 pixel values
# (traindata(): 0-255, not rescaled), one-hot labels, m = Chain(Dense(28^2, 32, relu), Dense(32, 10), softmax),
# loss(x, y) = mse(m(x), y) with Flux's mse of the time, sum((yhat .- y).^2) / length(y), the whole training set
# as one batch repeated 200 times (dataset = repeated((x, y), 200)), opt = SGD(params(m), 0.1), and
# evalcb = () -> @show(loss(x, y)) throttled; then the training and test accuracy. Written out in PyTorch
# (float64 like MNIST.jl, Flux's Dense initialisation of the time: glorot_uniform weights, zero biases).
# Scaled down / changed: synthetic 28 x 28 stroke "digits" with MNIST's 0-255 pixel range (6000 training,
# 1000 test images) instead of MNIST, the loss shown every 10 steps instead of every 5 seconds; metrics.csv
# has the loss and training accuracy of every step.
import csv
import math

import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)

N_TRAIN, N_TEST = 6000, 1000


def make_prototypes(g):
    protos = torch.zeros(10, 28, 28)
    for c in range(10):
        for _ in range(3):  # three strokes per class
            x0, y0, x1, y1 = (torch.randint(5, 23, (4,), generator=g)).tolist()
            n = 40
            for t in range(n + 1):
                px = round(x0 + (x1 - x0) * t / n)
                py = round(y0 + (y1 - y0) * t / n)
                protos[c, py - 1:py + 1, px - 1:px + 1] = 255.0
    return protos


def make_set(n, protos, g):
    labels = torch.randint(0, 10, (n,), generator=g)
    imgs = torch.zeros(n, 28, 28)
    shifts = torch.randint(-2, 3, (n, 2), generator=g)
    for i in range(n):
        img = torch.roll(protos[labels[i]], shifts=(int(shifts[i, 0]), int(shifts[i, 1])), dims=(0, 1))
        imgs[i] = img
    # stroke intensity varies, a few stray pixels, clipped to the 0-255 range of the raw files
    scale = 0.6 + 0.4 * torch.rand(n, 1, 1, generator=g)
    noise = (torch.rand(n, 28, 28, generator=g) < 0.03).double() * 255 * torch.rand(n, 28, 28, generator=g)
    imgs = (imgs * scale + noise).clamp(0, 255).round()
    return imgs.reshape(n, 784), labels


g = torch.Generator().manual_seed(8)
protos = make_prototypes(g)
x, labels = make_set(N_TRAIN, protos, g)
tx, tlabels = make_set(N_TEST, protos, g)


def onehotbatch(l):
    return torch.nn.functional.one_hot(l, 10).double()


y, ty = onehotbatch(labels), onehotbatch(tlabels)


def dense(n_in, n_out):
    layer = nn.Linear(n_in, n_out)
    bound = math.sqrt(6.0 / (n_in + n_out))  # glorot_uniform
    with torch.no_grad():
        layer.weight.uniform_(-bound, bound)
        layer.bias.zero_()
    return layer


m = nn.Sequential(dense(28 ** 2, 32), nn.ReLU(), dense(32, 10), nn.Softmax(dim=1))


def mse(yhat, y):
    return ((yhat - y) ** 2).sum() / y.numel()


def loss(x, y):
    return mse(m(x), y)


def accuracy(x, y):
    with torch.no_grad():
        return (m(x).argmax(1) == y.argmax(1)).double().mean().item()


opt = torch.optim.SGD(m.parameters(), lr=0.1)

f = open('metrics.csv', 'w', newline='')
wr = csv.writer(f)
wr.writerow(['step', 'loss', 'train_acc'])
for step in range(200):
    l = loss(x, y)
    opt.zero_grad()
    l.backward()
    opt.step()
    wr.writerow([step, '%.6f' % l.item(), '%.4f' % accuracy(x, y)])
    if step % 10 == 0:
        print('loss(x, y) = %s' % repr(loss(x, y).item()))
f.close()
print('loss(x, y) = %s' % repr(loss(x, y).item()))
print('accuracy(x, y) = %s' % repr(accuracy(x, y)))
print('accuracy(tx, ty) = %s' % repr(accuracy(tx, ty)))
