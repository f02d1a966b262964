# kmkolasinski/deep-learning-notes max-normed-optimizer/notebooks/Keras_CNN_CIFAR10_test.ipynb (June 2018),
# momentum baseline, in miniature, ported from Keras to PyTorch: keras_cifar_cnn.get_cnn() (Conv 32 same -
# ReLU - Conv 32 - ReLU - MaxPool - Dropout 0.25, Conv 64 same - ReLU - Conv 64 - ReLU - MaxPool - Dropout
# 0.25, Flatten, Dense 512 - ReLU - Dropout 0.5, Dense 10 softmax; widths halved here), categorical cross
# entropy, batch_size 32, and the notebook's momentum run: for lr in [0.001, 0.0005, 0.0001]:
# optimizer = SGD(lr=lr, momentum=0.9); model.compile(...); model.fit(..., epochs=15, validation_data=...)
# (3 epochs per learning rate here instead of 15), with Keras-style epoch lines. 10 classes of synthetic
# 3 x 16 x 16 images scaled to [0, 1] (3000 training, 1000 validation) replace CIFAR-10.
import time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)

def make(n, rs):
    y = rs.randint(0, 10, n); x = 0.4 + 0.2 * rs.randn(n, 3, 16, 16).astype(np.float32)
    g = np.linspace(-1, 1, 16)
    for i in range(n):
        c = y[i]; cx, cy = (c % 5) / 2 - 1 + 0.3 * rs.randn(), (c // 5) - 0.5 + 0.3 * rs.randn()
        blob = np.exp(-((g[None] - cx) ** 2 + (g[:, None] - cy) ** 2) * 6)
        x[i, c % 3] += 0.6 * blob; x[i, (c + 1) % 3] += 0.25 * np.sin(g * (2 + c))[None]
    return torch.tensor(np.clip(x, 0, 1)), torch.tensor(y)
rs = np.random.RandomState(1)
x_train, y_train = make(3000, rs); x_test, y_test = make(1000, rs)

def get_cnn():
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 16, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Dropout(0.25),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 32, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Dropout(0.25),
        nn.Flatten(), nn.Linear(32 * 2 * 2, 256), nn.ReLU(), nn.Dropout(0.5), nn.Linear(256, 10))

model = get_cnn()
for m in model.modules():                      # Keras defaults: glorot_uniform kernels, zero biases
    if isinstance(m, (nn.Conv2d, nn.Linear)):
        nn.init.xavier_uniform_(m.weight); nn.init.zeros_(m.bias)
batch_size = 32
for lr in [0.001, 0.0005, 0.0001]:
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    print('SGD(lr=%g, momentum=0.9)' % lr, flush=True)
    for epoch in range(1, 4):
        t0 = time.time(); model.train(); perm = torch.randperm(len(y_train)); tl = tc = 0
        for i in range(0, len(y_train), batch_size):
            idx = perm[i:i + batch_size]; out = model(x_train[idx]); loss = F.cross_entropy(out, y_train[idx])
            optimizer.zero_grad(); loss.backward(); optimizer.step()
            tl += loss.item() * len(idx); tc += (out.argmax(1) == y_train[idx]).sum().item()
        model.eval()
        with torch.no_grad():
            out = model(x_test); vl = F.cross_entropy(out, y_test).item(); va = (out.argmax(1) == y_test).float().mean().item()
        print('Epoch %d/3' % epoch)
        print('3000/3000 [==============================] - %ds - loss: %.4f - acc: %.4f - val_loss: %.4f - val_acc: %.4f'
              % (time.time() - t0, tl / len(y_train), tc / len(y_train), vl, va), flush=True)
