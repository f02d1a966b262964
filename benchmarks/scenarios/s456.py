# yizt/numpy_neural_network "1_1_2 fully connected network for mnist" in miniature (plain numpy, as in the
# repository): hand-written fc / relu / softmax cross-entropy forward and backward passes, weights drawn as
# weights_scale * randn with weights_scale = 1e-3 and zero biases, mini-batch SGD (batch 32, lr 0.01),
# on 10 classes of synthetic 28 x 28 "digit" images in [0, 1] (6000 training, 1000 validation).
# As in the report, one extra fully connected layer was added to the network: 784 -> 128 -> 128 -> 10.
# Log lines in the repository's format: " epoch:E step:S ; loss:L" and " train_acc:A;  val_acc:V".
import os
os.environ["OMP_NUM_THREADS"] = "1"; os.environ["OPENBLAS_NUM_THREADS"] = "1"; os.environ["MKL_NUM_THREADS"] = "1"
import csv
import numpy as np

rng = np.random.RandomState(0)
K, N_TR, N_VA = 10, 6000, 1000
templates = (rng.rand(K, 28, 28) < 0.25).astype(np.float64)
def make(n):
    y = rng.randint(0, K, n)
    x = templates[y] * rng.uniform(0.6, 1.0, (n, 1, 1)) + rng.rand(n, 28, 28) * 0.3
    return np.clip(x, 0, 1).reshape(n, 784), y
x_train, y_train = make(N_TR); x_val, y_val = make(N_VA)

weights_scale = 1e-3
sizes = [784, 128, 128, 10]                       # the added fc layer is the second 128
weights = [weights_scale * rng.randn(a, b) for a, b in zip(sizes[:-1], sizes[1:])]
biases = [np.zeros(b) for b in sizes[1:]]
lr, batch_size, epochs = 0.01, 32, 40

def forward(x):
    acts = [x]
    for i, (w, b) in enumerate(zip(weights, biases)):
        z = acts[-1] @ w + b
        acts.append(np.maximum(z, 0) if i < len(weights) - 1 else z)
    return acts

def cross_entropy_loss(logits, y):
    z = logits - logits.max(1, keepdims=True); p = np.exp(z); p /= p.sum(1, keepdims=True)
    loss = -np.log(p[np.arange(len(y)), y] + 1e-12).mean()
    dz = p.copy(); dz[np.arange(len(y)), y] -= 1
    return loss, dz / len(y)

f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f); wr.writerow(['epoch', 'step', 'loss', 'train_acc', 'val_acc'])
steps_per_epoch = N_TR // batch_size
for epoch in range(epochs):
    perm = rng.permutation(N_TR)
    for step in range(steps_per_epoch):
        idx = perm[step * batch_size:(step + 1) * batch_size]
        x, y = x_train[idx], y_train[idx]
        acts = forward(x)
        loss, grad = cross_entropy_loss(acts[-1], y)
        for i in range(len(weights) - 1, -1, -1):
            dw = acts[i].T @ grad; db = grad.sum(0)
            if i > 0:
                grad = (grad @ weights[i].T) * (acts[i] > 0)
            weights[i] -= lr * dw; biases[i] -= lr * db
        if step % 50 == 0:
            train_acc = float((acts[-1].argmax(1) == y).mean())
            val_acc = float((forward(x_val)[-1].argmax(1) == y_val).mean())
            print(f'\n epoch:{epoch} step:{step} ; loss:{loss}')
            print(f' train_acc:{train_acc};  val_acc:{val_acc}', flush=True)
            wr.writerow([epoch, step, loss, train_acc, val_acc]); f.flush()
