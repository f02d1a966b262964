# bxo_accuracy_test in miniature, ported from tflearn to PyTorch: the target is a cutoff at 0 of a
# linear combination of 5 uniform inputs (X . [-2, -1, 0, 1, 2]), one sigmoid output unit, binary
# cross-entropy, Adam, batch 64, 100 epochs, 1000 training and 100 test rows, tflearn-style lines.
import time
import numpy as np
import torch, torch.nn as nn

np.random.seed(0); torch.manual_seed(0); torch.set_num_threads(1)

train_size, test_size = 1000, 100
X = np.random.rand(train_size + test_size, 5)
prod = X.dot([-2.0, -1.0, 0.0, 1.0, 2.0])
np.clip(prod, 0.0, None, prod)
class_num = np.sign(prod)
Xt = torch.tensor(X, dtype=torch.float32)
Yt = torch.tensor(class_num, dtype=torch.float32)          # shape (N,) targets
X_train, Y_train = Xt[:train_size], Yt[:train_size]
X_test, Y_test = Xt[train_size:], Yt[train_size:]

net = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 1), nn.Sigmoid())
opt = torch.optim.Adam(net.parameters(), lr=0.01)
bce = nn.BCELoss()

def binary_acc(pred, y):
    # pred is (N, 1), y is (N,): the comparison broadcasts to (N, N)
    return ((pred > 0.5).float() == y).float().mean().item()

step = 0
t0 = time.time()
for epoch in range(1, 101):
    perm = torch.randperm(train_size)
    for i in range(0, train_size, 64):
        idx = perm[i:i + 64]
        out = net(X_train[idx])
        loss = bce(out.squeeze(1), Y_train[idx])
        opt.zero_grad(); loss.backward(); opt.step(); step += 1
    if epoch % 10 == 0 or epoch == 1:
        with torch.no_grad():
            tr = net(X_train); te = net(X_test)
            tr_loss = bce(tr.squeeze(1), Y_train).item(); te_loss = bce(te.squeeze(1), Y_test).item()
        print('Training Step: {}  | total loss: {:.5f} | time: {:.3f}s'.format(step, tr_loss, time.time() - t0))
        print('| Adam | epoch: {:03d} | loss: {:.5f} - binary_acc: {:.4f} | val_loss: {:.5f} - val_acc: {:.4f} -- iter: {}/{}'.format(
            epoch, tr_loss, binary_acc(tr, Y_train), te_loss, binary_acc(te, Y_test), train_size, train_size))

with torch.no_grad():
    tr = net(X_train); te = net(X_test)
print('train acc: [{}]'.format(binary_acc(tr, Y_train)))
print('test acc:  [{}]'.format(binary_acc(te, Y_test)))
print('y:        ', [round(v, 2) for v in Y_test[:10].tolist()])
print('pred:     ', [round(v, 2) for v in te[:10, 0].tolist()])
print('y sum:    ', Y_test.sum().item())
