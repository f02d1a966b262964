# joncox123/Cortexsys issue "Learning Rate for Gradientdescent" in miniature, the toolbox's MNIST MLP
# example ported from MATLAB to PyTorch: MNIST is replaced by 6000 training and 1000 test synthetic
# 14 x 14 images of 10 classes (three random strokes per class on a black background, randomly
# shifted, random stroke intensity), a fully-connected net 196-100-100-10 (ReLU, softmax output,
# cross-entropy cost), weights N(0, 1/fan_in), minibatches of 100, trained with the toolbox's plain
# gradientdescent() optimiser (learning rate alpha decayed with time constant alphatau, momentum),
# printing "Iteration: ..., Cost: ..." and the test error every 100 iterations. The settings follow
# the report: the plain gradientdescent function with alpha set to zero ("as your comment in that line
# implies that this will lead to a variable learning rate").
import csv
import numpy as np
import torch, torch.nn.functional as F

np.random.seed(10); torch.manual_seed(10); torch.set_num_threads(1)
S, K = 14, 10
protos = np.zeros((K, S + 4, S + 4), np.float32)
for k in range(K):
    for _ in range(3):
        y0, x0, y1, x1 = np.random.randint(4, S, 4)
        for t in np.linspace(0, 1, 25):
            protos[k, int(y0 + t * (y1 - y0)), int(x0 + t * (x1 - x0))] = 1.0
def load(n):
    X = np.zeros((n, S * S), np.float32); y = np.random.randint(0, K, n)
    for i in range(n):
        dy, dx = np.random.randint(0, 5, 2)
        X[i] = (protos[y[i], dy:dy + S, dx:dx + S] * np.random.uniform(0.5, 1.0, (S, S))).ravel()
    return torch.tensor(X), torch.tensor(y)
X_train, y_train = load(6000); X_test, y_test = load(1000)

layers = [S * S, 100, 100, K]
W = [torch.randn(layers[i + 1], layers[i]) / np.sqrt(layers[i]) for i in range(len(layers) - 1)]
b = [torch.zeros(layers[i + 1]) for i in range(len(layers) - 1)]
params = [p.requires_grad_() for p in W + b]

def forward(X):
    a = X
    for i in range(len(W) - 1):
        a = F.relu(a @ W[i].t() + b[i])
    return a @ W[-1].t() + b[-1]

def cost(X, y):
    return F.cross_entropy(forward(X), y)

def test_error():
    with torch.no_grad():
        return (forward(X_test).argmax(1) != y_test).float().mean().item()

# optimisation parameters
params_opt = {'maxIter': 1500, 'miniBatchSize': 100, 'momentum': 0.8,
              'alpha': 0,          # learning rate (0: variable learning rate)
              'alphatau': 500}

def gradientdescent(params, p, wr):
    v = [torch.zeros_like(q) for q in params]
    m = X_train.shape[0]
    for k in range(1, p['maxIter'] + 1):
        idx = torch.randint(0, m, (p['miniBatchSize'],))
        J = cost(X_train[idx], y_train[idx])
        grads = torch.autograd.grad(J, params)
        alpha = p['alpha'] * p['alphatau'] / (p['alphatau'] + k)
        with torch.no_grad():
            for q, g, vq in zip(params, grads, v):
                vq.mul_(p['momentum']).add_(-alpha * g)
                q.add_(vq)
        if k % 100 == 0:
            err = test_error()
            print('Iteration: %d, Cost: %f, Test error: %.2f%%' % (k, J.item(), 100 * err))
            wr.writerow([k, J.item(), err])
        elif k % 10 == 0:
            wr.writerow([k, J.item(), ''])

wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['iteration', 'cost', 'test_error'])
gradientdescent(params, params_opt, wr)
print('Final test error: %.2f%%' % (100 * test_error()))
