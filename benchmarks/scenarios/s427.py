# DLMatFramework (leonardoaraujosantos) "Add Regularization" toy example in miniature, ported from MATLAB to
# PyTorch: the cs231n spiral data set (3 classes x 100 points in 2-D, arms of a spiral with noise) and a
# fully connected network (2 -> 100 ReLU -> 3) with softmax cross-entropy, full-batch gradient descent with
# step size 1.0, 10000 iterations, "iteration i: loss ..." every 500 iterations and the training accuracy
# at the end; a held-out spiral of the same kind (3 x 100 points) is scored alongside.
# The L2 term is added to the loss as in DeepLearningModel::Loss, 0.5 * reg * sum(W .^ 2) over both weight
# matrices, with reg = 0.1.
import csv
import numpy as np
import torch, torch.nn.functional as F

np.random.seed(1); torch.manual_seed(1); torch.set_num_threads(1)
N, D, K = 100, 2, 3
def spiral():
    X = np.zeros((N * K, D), np.float32); y = np.zeros(N * K, np.int64)
    for j in range(K):
        ix = range(N * j, N * (j + 1)); r = np.linspace(0.0, 1, N)
        t = np.linspace(j * 4, (j + 1) * 4, N) + np.random.randn(N) * 0.2
        X[ix] = np.c_[r * np.sin(t), r * np.cos(t)]; y[ix] = j
    return torch.tensor(X), torch.tensor(y)
X, y = spiral(); Xv, yv = spiral()
h = 100
W = (0.01 * torch.randn(D, h)).requires_grad_(); b = torch.zeros(1, h, requires_grad=True)
W2 = (0.01 * torch.randn(h, K)).requires_grad_(); b2 = torch.zeros(1, K, requires_grad=True)
step_size, reg = 1.0, 0.1
def scores(x): return F.relu(x @ W + b) @ W2 + b2
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['iteration', 'loss', 'data_loss', 'reg_loss', 'train_acc', 'val_acc'])
for i in range(10000):
    s = scores(X)
    data_loss = F.cross_entropy(s, y)
    reg_loss = 0.5 * reg * (W * W).sum() + 0.5 * reg * (W2 * W2).sum()
    loss = data_loss + reg_loss
    for p in (W, b, W2, b2): p.grad = None
    loss.backward()
    with torch.no_grad():
        for p in (W, b, W2, b2): p -= step_size * p.grad
    if i % 500 == 0:
        with torch.no_grad():
            tacc = (s.argmax(1) == y).float().mean().item(); vacc = (scores(Xv).argmax(1) == yv).float().mean().item()
        print('iteration %d: loss %f (data %f, reg %f), training accuracy: %.2f, validation accuracy: %.2f' % (i, loss.item(), data_loss.item(), reg_loss.item(), tacc, vacc))
        wr.writerow([i, loss.item(), data_loss.item(), reg_loss.item(), tacc, vacc])
with torch.no_grad():
    print('training accuracy: %.2f' % (scores(X).argmax(1) == y).float().mean().item())
    print('validation accuracy: %.2f' % (scores(Xv).argmax(1) == yv).float().mean().item())
