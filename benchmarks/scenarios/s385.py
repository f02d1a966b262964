"""Deeplearning4j MultiLayerNetwork in miniature (after a "network outputs are the same as the bias" report).

Iris-like synthetic data (4 features, 3 classes, 150 training rows split 70/50/30 from a
custom DataFetcher, 60 test rows), 4-10-3 network (sigmoid hidden layer,
softmax output, MCXENT loss), SGD lr 0.1, full-batch, 1500 iterations with a
ScoreIterationListener(100).  The configuration sets .useDropConnect(true)
without .dropOut(p): DL4J reads the dropout coefficient as the probability
of retaining a weight, and it defaults to 0.0, so every weight is masked to
zero in the forward pass.  As in the report the network outputs are then
checked with net.output(features).
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
rng = np.random.RandomState(827)
torch.manual_seed(827)
centers = np.array([[5.0, 3.4, 1.5, 0.2], [5.9, 2.8, 4.3, 1.3], [6.6, 3.0, 5.6, 2.0]])
spread = np.array([0.35, 0.35, 0.3, 0.15])


def fetch(counts):
    X = np.concatenate([c + spread * rng.randn(k, 4) for c, k in zip(centers, counts)]).astype(np.float32)
    y = np.repeat(np.arange(3), counts)
    return torch.from_numpy(X), torch.from_numpy(y)


Xtr, ytr = fetch([70, 50, 30])
Xte, yte = fetch([20, 20, 20])


class DenseLayer(nn.Module):
    def __init__(self, n_in, n_out, use_drop_connect=False, drop_out=0.0):
        super().__init__()
        self.W = nn.Parameter(torch.randn(n_in, n_out) * np.sqrt(2.0 / (n_in + n_out)))   # XAVIER
        self.b = nn.Parameter(torch.zeros(n_out))
        self.use_drop_connect, self.drop_out = use_drop_connect, drop_out

    def forward(self, x):
        W = self.W
        if self.use_drop_connect:
            # dropOut coefficient = probability of retaining each weight
            mask = (torch.rand_like(W) < self.drop_out).float()
            W = W * mask
        return x @ W + self.b


class MultiLayerNetwork(nn.Module):
    def __init__(self, use_drop_connect, drop_out=0.0):
        super().__init__()
        self.l0 = DenseLayer(4, 10, use_drop_connect, drop_out)
        self.l1 = DenseLayer(10, 3, use_drop_connect, drop_out)

    def forward(self, x):
        return self.l1(torch.sigmoid(self.l0(x)))

    def output(self, x):
        with torch.no_grad():
            return F.softmax(self(x), 1)


net = MultiLayerNetwork(use_drop_connect=True)          # .useDropConnect(true), no .dropOut(...)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for it in range(1500):
    loss = F.cross_entropy(net(Xtr), ytr)
    opt.zero_grad(); loss.backward(); opt.step()
    if it % 100 == 0:
        print('o.d.o.l.ScoreIterationListener - Score at iteration %d is %.6f' % (it, loss.item()))

out = net.output(Xte)
pred = out.argmax(1)
print('net.output for 3 test rows (one of each class):')
for i in (0, 20, 40):
    print('   [%s]' % ', '.join('%.4f' % v for v in out[i].tolist()))
print('softmax(output layer bias): [%s]' % ', '.join('%.4f' % v for v in F.softmax(net.l1.b.detach(), 0).tolist()))
acc = (pred == yte).float().mean().item()
print('==========================Scores========================================')
print(' Accuracy:  %.4f' % acc)
print(' Predicted class counts on test:', np.bincount(pred.numpy(), minlength=3).tolist())
print('========================================================================')
