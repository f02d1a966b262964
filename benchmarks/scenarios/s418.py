# Cross Validated question "Explanation of Spikes in training loss vs. iterations with Adam Optimizer"
# in miniature: the posted model, 14 input nodes -> 2 hidden layers (100 -> 40 units, ReLU) -> 4 output
# units, softmax cross entropy, Adam with the default parameters (lr 1e-3, beta_1 0.9, beta_2 0.999,
# epsilon 1e-8) and batch_size 32, on synthetic tabular data (14 standardised features, 4 classes from a
# noisy nonlinear rule, 12000 training / 1500 validation rows), 12 epochs; the training loss of the
# current mini-batch is printed every 25 iterations, and the epoch mean with the validation loss and
# accuracy at the end of each epoch.
import csv
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(303857 % 2**31); torch.manual_seed(7); torch.set_num_threads(1)
def make(n):
    x = np.random.randn(n, 14).astype(np.float32)
    s1 = x[:, 0] * x[:, 1] + np.sin(2 * x[:, 2]) + 0.5 * x[:, 3] + 0.25 * np.random.randn(n)
    s2 = x[:, 4] - x[:, 5] ** 2 + 0.7 * x[:, 6] * x[:, 7] + 0.25 * np.random.randn(n)
    y = (s1 > 0).astype(np.int64) * 2 + (s2 > -0.5).astype(np.int64)
    return torch.tensor(x), torch.tensor(y)
Xtr, ytr = make(12000); Xva, yva = make(1500)
model = nn.Sequential(nn.Linear(14, 100), nn.ReLU(), nn.Linear(100, 40), nn.ReLU(), nn.Linear(40, 4))
opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8)
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['iteration', 'train_loss', 'val_loss', 'val_acc'])
it = 0
for epoch in range(1, 13):
    perm = torch.randperm(len(ytr)); tot = 0.0
    for i in range(0, len(ytr), 32):
        j = perm[i:i + 32]; loss = F.cross_entropy(model(Xtr[j]), ytr[j])
        opt.zero_grad(); loss.backward(); opt.step(); it += 1; tot += loss.item() * len(j)
        if it % 25 == 0: print('iteration %d, training loss: %.4f' % (it, loss.item()))
        wr.writerow([it, loss.item(), '', ''])
    with torch.no_grad():
        o = model(Xva); vl = F.cross_entropy(o, yva).item(); va = (o.argmax(1) == yva).float().mean().item()
    print('epoch %d: mean training loss %.4f, validation loss %.4f, validation accuracy %.4f' % (epoch, tot / len(ytr), vl, va))
    wr.writerow([it, '', vl, va])
