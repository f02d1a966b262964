# A Keras-style CIFAR-10 CNN (Conv-Conv-MaxPool-Dropout(0.25) twice, Flatten, Dense(128)-Dropout(0.5), Dense(10)
# softmax), categorical cross entropy, Adam 1e-3, batch 64, model.fit(..., validation_split=0.2) and a final
# model.evaluate on a held-out test set, ported to PyTorch with Keras-style epoch lines. The "acc" Keras prints
# is the running mean over the epoch's batches with dropout active; val_acc and the test accuracy are computed
# afterwards with dropout off. Synthetic 10-class 16 x 16 RGB images stand in for CIFAR-10.
import time
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(7); np.random.seed(7); torch.set_num_threads(1)

NUM_CLASSES = 10
rng = np.random.RandomState(3)
# class templates: a coloured blob at a class-specific place on a textured background
def make_set(n):
    X = np.zeros((n, 3, 16, 16), np.float32); y = rng.randint(0, NUM_CLASSES, n)
    yy, xx = np.mgrid[0:16, 0:16]
    centers = [(4, 4), (4, 11), (11, 4), (11, 11), (8, 8), (3, 8), (12, 8), (8, 3), (8, 12), (6, 6)]
    colors = np.random.RandomState(0).rand(NUM_CLASSES, 3)
    for i in range(n):
        c = y[i]
        cy, cx = centers[c]
        cy += rng.randint(-2, 3); cx += rng.randint(-2, 3)
        blob = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * rng.uniform(1.5, 3.0) ** 2))
        img = colors[c][:, None, None] * blob[None] * rng.uniform(0.5, 1.0)
        img += 0.7 * rng.rand(3, 16, 16)                       # background clutter
        X[i] = img
    return X, y

x_all, y_all = make_set(1500)
x_test, y_test = make_set(500)
print('x_train shape:', (x_all.shape[0],) + x_all.shape[1:])
print(x_all.shape[0], 'train samples')
print(x_test.shape[0], 'test samples')
# Keras validation_split takes the last fraction of the arrays (before shuffling)
split_at = int(len(x_all) * (1 - 0.2))
x_train, y_train = torch.from_numpy(x_all[:split_at]), torch.from_numpy(y_all[:split_at])
x_val, y_val = torch.from_numpy(x_all[split_at:]), torch.from_numpy(y_all[split_at:])
x_te, y_te = torch.from_numpy(x_test), torch.from_numpy(y_test)
# Keras-style normalisation: x.astype('float32') / max
mx = x_train.max()
x_train, x_val, x_te = x_train / mx, x_val / mx, x_te / mx

model = nn.Sequential(
    nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 16, 3), nn.ReLU(),
    nn.MaxPool2d(2), nn.Dropout(0.25),
    nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 32, 3), nn.ReLU(),
    nn.MaxPool2d(2), nn.Dropout(0.25),
    nn.Flatten(), nn.Linear(32 * 2 * 2, 128), nn.ReLU(), nn.Dropout(0.5),
    nn.Linear(128, NUM_CLASSES))
print(model)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

def evaluate(x, y):
    model.eval()
    with torch.no_grad():
        out = model(x)
        return F.cross_entropy(out, y).item(), (out.argmax(1) == y).float().mean().item()

EPOCHS = 12; BS = 64
n = len(x_train)
print('Train on %d samples, validate on %d samples' % (n, len(x_val)))
for epoch in range(EPOCHS):
    t0 = time.time()
    model.train()
    perm = torch.randperm(n)
    seen = 0; loss_sum = 0.; acc_sum = 0.
    for i in range(0, n, BS):
        idx = perm[i:i + BS]
        out = model(x_train[idx])
        loss = F.cross_entropy(out, y_train[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        b = len(idx); seen += b
        loss_sum += loss.item() * b
        acc_sum += (out.argmax(1) == y_train[idx]).float().sum().item()
    val_loss, val_acc = evaluate(x_val, y_val)
    print('Epoch %d/%d' % (epoch + 1, EPOCHS))
    print('%d/%d [==============================] - %ds - loss: %.4f - acc: %.4f - val_loss: %.4f - val_acc: %.4f' % (
        n, n, max(1, int(time.time() - t0)), loss_sum / seen, acc_sum / seen, val_loss, val_acc))

test_loss, test_acc = evaluate(x_te, y_te)
print('Test loss:', round(test_loss, 4))
print('Test accuracy:', round(test_acc, 4))
tr_loss, tr_acc = evaluate(x_train, y_train)
print('Train accuracy (dropout off):', round(tr_acc, 4))
