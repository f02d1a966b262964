# VGG-style CNN (8 conv layers, no batch norm, two FC layers with dropout) trained on small
# CIFAR-like images the way the MXNet image-classification example does it: pixels in 0..255 with
# only the RGB mean subtracted, weights initialised with Xavier(rnd_type='gaussian',
# factor_type='in', magnitude=2), biases 0. SGD lr 0.01, momentum 0.9, wd 5e-4, batch 64.
import math, time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)

g = torch.Generator().manual_seed(9)
protos = torch.rand(10, 3, 16, 16, generator=g) * 255
def make(n):
    y = torch.randint(0, 10, (n,), generator=g)
    x = 0.5 * protos[y] + 0.5 * torch.rand(n, 3, 16, 16, generator=g) * 255
    return x, y
Xtr, ytr = make(2560)
Xva, yva = make(512)
rgb_mean = torch.tensor([123.68, 116.779, 103.939]).view(1, 3, 1, 1)
Xtr, Xva = Xtr - rgb_mean, Xva - rgb_mean

def conv(i, o):
    return [nn.Conv2d(i, o, 3, padding=1), nn.ReLU()]
net = nn.Sequential(*conv(3, 32), *conv(32, 32), nn.MaxPool2d(2), *conv(32, 64), *conv(64, 64), nn.MaxPool2d(2),
                    *conv(64, 128), *conv(128, 128), *conv(128, 128), *conv(128, 128), nn.MaxPool2d(2),
                    nn.Flatten(), nn.Linear(128 * 4, 256), nn.ReLU(), nn.Dropout(0.5),
                    nn.Linear(256, 256), nn.ReLU(), nn.Dropout(0.5), nn.Linear(256, 10))

def xavier_gaussian_in(m, magnitude=2.0):
    if isinstance(m, (nn.Conv2d, nn.Linear)):
        fan_in = m.weight[0].numel()
        nn.init.normal_(m.weight, 0.0, math.sqrt(magnitude / fan_in))
        nn.init.zeros_(m.bias)
net.apply(xavier_gaussian_in)

opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9, weight_decay=5e-4)
batch_size, frequent = 64, 10
for epoch in range(4):
    net.train()
    perm = torch.randperm(len(Xtr))
    tic = time.time(); acc_sum = ce_sum = n_seen = 0
    for nbatch in range(len(Xtr) // batch_size):
        idx = perm[nbatch * batch_size:(nbatch + 1) * batch_size]
        out = net(Xtr[idx])
        loss = F.cross_entropy(out, ytr[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        acc_sum += (out.argmax(1) == ytr[idx]).sum().item(); ce_sum += loss.item() * len(idx); n_seen += len(idx)
        if (nbatch + 1) % frequent == 0:
            speed = n_seen / (time.time() - tic)
            print("Epoch[%d] Batch [%d]\tSpeed: %.2f samples/sec\taccuracy=%f\tcross-entropy=%f" % (
                epoch, nbatch + 1, speed, acc_sum / n_seen, ce_sum / n_seen))
            tic = time.time(); acc_sum = ce_sum = n_seen = 0
    net.eval()
    with torch.no_grad():
        vo = net(Xva)
        print("Epoch[%d] Validation-accuracy=%f" % (epoch, (vo.argmax(1) == yva).float().mean().item()))
        print("Epoch[%d] Validation-cross-entropy=%f" % (epoch, F.cross_entropy(vo, yva).item()))
