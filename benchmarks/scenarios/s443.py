# tiny-dnn/tiny-dnn issue "Cannot train 'simple' neural net" in miniature, the library's MNIST example
# (examples/mnist/train.cpp: adagrad optimizer with optimizer.alpha *= min(4, sqrt(n_minibatch) *
# learning_rate), n_minibatch 16, learning_rate 1, mse loss with targets -1/+1 for tan_h outputs, images
# scaled to [-1, 1] and padded to 32 x 32, "x/10000" test accuracy after each epoch) ported to PyTorch,
# with the network replaced as in the report by the simpler one from the library's README:
#     nn << fully_connected_layer<tan_h>(32 * 32, 128) << fully_connected_layer<tan_h>(128, 10);
# MNIST is replaced by 6000 training and 2000 test synthetic 28 x 28 images of 10 classes (three random
# strokes per class on a black background, randomly shifted, random stroke intensity), padded to 32 x 32.
# tiny-dnn's default initialisation (xavier for weights, constant 0 for biases), 6 epochs.
import csv, time
import numpy as np
import torch

np.random.seed(318); torch.manual_seed(318); torch.set_num_threads(1)
S, K = 28, 10
protos = np.zeros((K, S + 4, S + 4), np.float32)
for k in range(K):
    for _ in range(3):
        y0, x0, y1, x1 = np.random.randint(6, S - 2, 4)
        for t in np.linspace(0, 1, 40):
            protos[k, int(y0 + t * (y1 - y0)), int(x0 + t * (x1 - x0))] = 1.0
def parse_mnist(n):
    X = np.full((n, 32, 32), -1.0, np.float32); y = np.random.randint(0, K, n)
    for i in range(n):
        dy, dx = np.random.randint(0, 5, 2)
        img = protos[y[i], dy:dy + S, dx:dx + S] * np.random.uniform(0.5, 1.0, (S, S))
        X[i, 2:30, 2:30] = img * 2.0 - 1.0                       # scale to [-1, 1], 2 px padding
    return torch.tensor(X.reshape(n, -1)), torch.tensor(y)
train_images, train_labels = parse_mnist(6000); test_images, test_labels = parse_mnist(2000)

class FullyConnectedTanh:
    def __init__(self, in_dim, out_dim):
        bound = np.sqrt(6.0 / (in_dim + out_dim))                 # xavier
        self.W = (torch.rand(in_dim, out_dim) * 2 - 1) * bound
        self.b = torch.zeros(out_dim)
        self.W.requires_grad_(); self.b.requires_grad_()
    def __call__(self, x):
        return torch.tanh(x @ self.W + self.b)

nn_layers = [FullyConnectedTanh(32 * 32, 128), FullyConnectedTanh(128, 10)]
params = [p for l in nn_layers for p in (l.W, l.b)]
def predict(x):
    for l in nn_layers: x = l(x)
    return x

class adagrad:
    def __init__(self, params):
        self.alpha, self.eps = 0.01, 1e-8
        self.g = [torch.zeros_like(p) for p in params]
    def update(self, params):
        with torch.no_grad():
            for p, g in zip(params, self.g):
                g += p.grad * p.grad
                p -= self.alpha * p.grad / (torch.sqrt(g) + self.eps)
                p.grad = None

n_minibatch, n_train_epochs, learning_rate = 16, 6, 1.0
optimizer = adagrad(params)
optimizer.alpha *= min(4.0, np.sqrt(n_minibatch) * learning_rate)
print('start training')
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['epoch', 'step', 'loss', 'test_correct'])
step = 0
for epoch in range(1, n_train_epochs + 1):
    t0 = time.time(); perm = torch.randperm(len(train_images)); total = 0.0
    for b in range(0, len(train_images), n_minibatch):
        idx = perm[b:b + n_minibatch]
        target = -torch.ones(len(idx), 10); target[torch.arange(len(idx)), train_labels[idx]] = 1.0
        loss = ((predict(train_images[idx]) - target) ** 2).sum(1).mean()     # mse
        loss.backward(); optimizer.update(params); step += 1; total += loss.item() * len(idx)
        if step % 25 == 0: wr.writerow([epoch, step, loss.item(), ''])
    with torch.no_grad():
        correct = (predict(test_images).argmax(1) == test_labels).sum().item()
    print('%.3fs elapsed.' % (time.time() - t0))
    print('%d/%d' % (correct, len(test_images)))
    wr.writerow([epoch, step, total / len(train_images), correct])
print('end training.')
