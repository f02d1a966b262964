# keras-team/keras issue "If training data and validation data is the same, how come the losses differ?" in
# miniature, ported from Keras to PyTorch: a Sequential classifier fitted with model.fit(X, Y, validation_data=(X, Y))
# so that the validation set IS the training set, and the Keras progress line per epoch ("loss: .. - acc: .. -
# val_loss: .. - val_acc: .."). As the Keras FAQ quoted in the thread explains, "loss" is the running average of the
# mini-batch losses while the weights change during the epoch (and with dropout active), whereas "val_loss" is one
# evaluation of the end-of-epoch model in inference mode, so the reported training loss sits above the validation
# loss on identical data.
# Scaled down for the scenario: 2000 samples of 20 standardised features, 5 classes given by a fixed random
# two-layer teacher network with 10 % of the labels replaced at random (a natural floor for both losses),
# Dense(128, relu) -> Dropout(0.3) -> Dense(128, relu) -> Dropout(0.3) -> Dense(5, softmax), Adam (Keras defaults),
# batch_size 32, shuffle, 30 epochs; metrics.csv has every batch loss and the per-epoch numbers.
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
rng = np.random.RandomState(0)

N, D, C = 2000, 20, 5
X = rng.normal(0, 1, (N, D)).astype(np.float32)
W1 = rng.normal(0, 1, (D, 32)) / np.sqrt(D)
W2 = rng.normal(0, 1, (32, C)) / np.sqrt(32)
y = np.argmax(np.tanh(X @ W1) @ W2 * 3.0, axis=1)
flip = rng.rand(N) < 0.10
y[flip] = rng.randint(0, C, flip.sum())
Xt, yt = torch.from_numpy(X), torch.from_numpy(y).long()

model = nn.Sequential(nn.Linear(D, 128), nn.ReLU(), nn.Dropout(0.3),
                      nn.Linear(128, 128), nn.ReLU(), nn.Dropout(0.3),
                      nn.Linear(128, C))
opt = torch.optim.Adam(model.parameters(), lr=0.001, betas=(0.9, 0.999), eps=1e-7)

print('Train on %d samples, validate on %d samples' % (N, N))
out = open('metrics.csv', 'w', newline='')
w = csv.writer(out)
w.writerow(['epoch', 'batch', 'batch_loss', 'loss', 'acc', 'val_loss', 'val_acc'])
EPOCHS = 30
for epoch in range(EPOCHS):
    print('Epoch %d/%d' % (epoch + 1, EPOCHS))
    model.train()
    perm = torch.randperm(N)
    tot_loss, tot_acc, seen = 0.0, 0.0, 0
    for b, i in enumerate(range(0, N, 32)):
        idx = perm[i:i + 32]
        out_b = model(Xt[idx])
        loss = F.cross_entropy(out_b, yt[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        n = len(idx)
        tot_loss += loss.item() * n
        tot_acc += (out_b.argmax(1) == yt[idx]).float().sum().item()
        seen += n
        w.writerow([epoch + 1, b, loss.item(), '', '', '', ''])
    model.eval()
    with torch.no_grad():
        vo = model(Xt)
        vl = F.cross_entropy(vo, yt).item()
        va = (vo.argmax(1) == yt).float().mean().item()
    print('%d/%d [==============================] - 0s - loss: %.4f - acc: %.4f - val_loss: %.4f - val_acc: %.4f'
          % (N, N, tot_loss / seen, tot_acc / seen, vl, va))
    w.writerow([epoch + 1, '', '', tot_loss / seen, tot_acc / seen, vl, va])
out.close()
