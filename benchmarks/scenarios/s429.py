# Cross Validated question "Do neural networks usually take a while to "kick in" during training?" in
# miniature, ported from TensorFlow to PyTorch: a convolutional network with 8 layers (5 convolutional,
# 3 fully-connected, ReLU, two max-pools) for image classification, all weights and biases initialised at
# small random numbers (normal, std 0.01 for weights and biases), Adam lr 3e-4, mini-batches of 50,
# on 2500 training and 500 test synthetic 1 x 16 x 16 images of 5 classes (oriented stripe/blob patterns
# with noise), 20 passes ("loops") through the training data, old TensorFlow-example lines
# "Iter n, Minibatch Loss= ..., Training Accuracy= ..." every 10 mini-batches and an epoch line with the
# mean training loss/accuracy and the test accuracy.
import csv
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(205709); torch.manual_seed(205709); torch.set_num_threads(1)
C = 5
yy, xx = np.mgrid[0:16, 0:16].astype(np.float32)
def pattern(c):
    a = c * np.pi / C + np.random.uniform(-0.2, 0.2); f = 0.6 + 0.05 * c
    p = np.sin(f * (np.cos(a) * xx + np.sin(a) * yy) + np.random.uniform(0, 2 * np.pi))
    return p + 1.5 * np.random.randn(16, 16)
def make(n):
    Y = np.random.randint(C, size=n)
    return torch.tensor(np.stack([pattern(c) for c in Y])[:, None].astype(np.float32)), torch.tensor(Y)
Xtr, Ytr = make(2500); Xte, Yte = make(500)

def conv(ci, co): return nn.Conv2d(ci, co, 3, padding=1)
model = nn.Sequential(conv(1, 16), nn.ReLU(), conv(16, 16), nn.ReLU(), nn.MaxPool2d(2),
                      conv(16, 32), nn.ReLU(), conv(32, 32), nn.ReLU(), nn.MaxPool2d(2),
                      conv(32, 32), nn.ReLU(), nn.Flatten(),
                      nn.Linear(32 * 4 * 4, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, C))
for m in model.modules():
    if isinstance(m, (nn.Conv2d, nn.Linear)):
        nn.init.normal_(m.weight, 0, 0.01); nn.init.normal_(m.bias, 0, 0.01)
opt = torch.optim.Adam(model.parameters(), lr=3e-4)
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['epoch', 'step', 'minibatch_loss', 'minibatch_acc', 'train_loss', 'train_acc', 'test_acc'])
step, BS = 0, 50
for epoch in range(1, 21):
    perm = torch.randperm(len(Xtr)); tl = tc = 0.0
    for i in range(0, len(Xtr), BS):
        idx = perm[i:i + BS]; out = model(Xtr[idx]); loss = F.cross_entropy(out, Ytr[idx])
        opt.zero_grad(); loss.backward(); opt.step(); step += 1
        acc = (out.argmax(1) == Ytr[idx]).float().mean().item(); tl += loss.item() * len(idx); tc += acc * len(idx)
        if step % 10 == 0:
            print('Iter ' + str(step * BS) + ', Minibatch Loss= ' + '{:.6f}'.format(loss.item()) + ', Training Accuracy= ' + '{:.5f}'.format(acc))
            wr.writerow([epoch, step, loss.item(), acc, '', '', ''])
    with torch.no_grad():
        te = (model(Xte).argmax(1) == Yte).float().mean().item()
    print('Epoch %d: mean training loss %.4f, training accuracy %.4f, test accuracy %.4f' % (epoch, tl / len(Xtr), tc / len(Xtr), te))
    wr.writerow([epoch, step, '', '', tl / len(Xtr), tc / len(Xtr), te])
print('Optimization Finished!')
