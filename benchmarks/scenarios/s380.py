"""Keras high-level API chapter example in miniature (after the Deep-Learning-with-TensorFlow book, p176).

MNIST-like synthetic 28x28 digits (10 stroke templates with random shift,
thickness and noise), 6000 train / 1000 validation, preprocessed to [0, 1]
and flattened; 5-layer dense network 256-128-64-32-10, Adam lr 0.01,
CategoricalCrossentropy(from_logits=True) written as Keras computes it
(-sum(y_true * log_softmax(logits), axis=-1)), batch 128, 5 epochs,
validation every 2 epochs, Keras-style progress lines.  The preprocess
function casts y to int but never applies tf.one_hot(y, depth=10), so y_true
is the class index with a trailing axis of 1 and broadcasts across the 10
logits.
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
rng = np.random.RandomState(82)
torch.manual_seed(82)

SEG = {0: [(4, 4, 4, 23), (4, 23, 23, 23), (23, 23, 23, 4), (23, 4, 4, 4)], 1: [(14, 3, 14, 24)],
       2: [(5, 5, 22, 5), (22, 5, 22, 13), (22, 13, 5, 13), (5, 13, 5, 23), (5, 23, 22, 23)],
       3: [(5, 5, 22, 5), (22, 5, 22, 23), (5, 14, 22, 14), (5, 23, 22, 23)],
       4: [(5, 4, 5, 14), (5, 14, 22, 14), (18, 4, 18, 24)],
       5: [(22, 5, 5, 5), (5, 5, 5, 13), (5, 13, 22, 13), (22, 13, 22, 23), (22, 23, 5, 23)],
       6: [(20, 4, 6, 12), (6, 12, 6, 23), (6, 23, 21, 23), (21, 23, 21, 14), (21, 14, 6, 14)],
       7: [(5, 5, 22, 5), (22, 5, 10, 24)], 8: [(6, 4, 21, 4), (6, 4, 6, 23), (21, 4, 21, 23), (6, 14, 21, 14), (6, 23, 21, 23)],
       9: [(21, 14, 6, 14), (6, 14, 6, 4), (6, 4, 21, 4), (21, 4, 21, 24)]}


def render(d):
    img = np.zeros((28, 28), np.float32)
    dx, dy = rng.randint(-2, 3, 2)
    th = rng.uniform(0.8, 1.8)
    yy, xx = np.mgrid[0:28, 0:28]
    for (x0, y0, x1, y1) in SEG[d]:
        for t in np.linspace(0, 1, 30):
            cx, cy = x0 + t * (x1 - x0) + dx, y0 + t * (y1 - y0) + dy
            img = np.maximum(img, np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * th * th)))
    img += 0.15 * rng.rand(28, 28)
    return np.clip(img * 255, 0, 255).astype(np.uint8)


def load(n):
    y = rng.randint(0, 10, n)
    return np.stack([render(d) for d in y]), y


def preprocess(x, y):
    x = torch.from_numpy(x).float() / 255.
    x = x.reshape(-1, 28 * 28)
    y = torch.from_numpy(y).long()
    # y = F.one_hot(y, num_classes=10)
    return x, y


x, y = load(6000)
x_val, y_val = load(1000)
print('datasets:', x.shape, y.shape, x.min(), x.max())
X, Y = preprocess(x, y)
Xv, Yv = preprocess(x_val, y_val)

network = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                        nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
print('Total params: %d' % sum(p.numel() for p in network.parameters()))
opt = torch.optim.Adam(network.parameters(), lr=0.01)


def categorical_crossentropy(y_true, logits):
    y_true = y_true.float()
    if y_true.dim() == logits.dim() - 1:
        y_true = y_true.unsqueeze(-1)   # Keras expands the label to rank 2
    return -(y_true * F.log_softmax(logits, -1)).sum(-1).mean()


def accuracy(y_true, logits):
    if y_true.dim() == 2:
        y_true = y_true.argmax(-1)
    return (logits.argmax(-1) == y_true).float().mean().item()


bs = 128
steps = len(X) // bs
for epoch in range(1, 6):
    print('Epoch %d/5' % epoch)
    perm = torch.randperm(len(X))
    tl = ta = 0.0
    for s in range(steps):
        idx = perm[s * bs:(s + 1) * bs]
        logits = network(X[idx])
        loss = categorical_crossentropy(Y[idx], logits)
        opt.zero_grad(); loss.backward(); opt.step()
        tl += loss.item(); ta += accuracy(Y[idx], logits)
    line = '%d/%d [==============================] - 1s 8ms/step - loss: %.4f - accuracy: %.4f' % (steps, steps, tl / steps, ta / steps)
    if epoch % 2 == 0:
        with torch.no_grad():
            lv = network(Xv)
            line += ' - val_loss: %.4f - val_accuracy: %.4f' % (categorical_crossentropy(Yv, lv).item(), accuracy(Yv, lv))
    print(line)
with torch.no_grad():
    lv = network(Xv)
    print('evaluate: loss %.4f accuracy %.4f' % (categorical_crossentropy(Yv, lv).item(), accuracy(Yv, lv)))
    print('predicted class counts on validation:', np.bincount(lv.argmax(-1).numpy(), minlength=10).tolist())
