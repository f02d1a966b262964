# skorch-dev/skorch issue "Issue with LBGFS optimizer: `optimizer_.zero_grad` no longer called inside of
# `train_step_single`" (636) in miniature, settled by pull request 639 ("Call zero grad on each train step",
# commit abc0ec53). In skorch 0.8.0 (skorch/net.py at tag v0.8.0) the gradient is no longer reset inside the
# closure that the optimizer calls:
#     def train_step(self, Xi, yi, **fit_params):
#         step_accumulator = self.get_train_step_accumulator()
#         def step_fn():
#             step = self.train_step_single(Xi, yi, **fit_params)   # forward, loss.backward()
#             step_accumulator.store_step(step)
#             return step['loss']
#         self.optimizer_.step(step_fn)
#         self.optimizer_.zero_grad()
# torch.optim.LBFGS calls the closure up to max_iter (20) times inside one step(), so every evaluation after the
# first adds its gradient to the ones before it and L-BFGS builds its curvature pairs and steps from summed,
# stale gradients. The setting is the one of the pull request's test (test_fit_lbfgs_optimizer):
# NeuralNetClassifier(classifier_module, optimizer=torch.optim.LBFGS, lr=1.0, batch_size=-1) on
# make_classification(1000, 20, n_informative=10, random_state=0), the module from skorch.toy.make_classifier
# (input_units=20, hidden_units=10, num_hidden=2, dropout=0.5, a softmax output), NLLLoss on log(y_pred + eps),
# the default CVSplit(5) (a stratified 80/20 split), max_epochs 10, the PrintLog table with epoch, train_loss,
# valid_acc, valid_loss and dur. Written out in plain PyTorch (no skorch, no scikit-learn): the data is a
# make_classification-style set drawn here (two classes, 10 informative of 20 features, clusters on hypercube
# vertices, a random linear mixing); metrics.csv has one row per epoch and one per closure evaluation (its loss,
# the norm of the .grad buffers the optimizer sees and the parameter norm).
import csv
import time

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)

# ---- make_classification(1000, 20, n_informative=10, random_state=0), written out ----
rng = np.random.RandomState(0)
N, F, INF = 1000, 20, 10
n_clusters = 4  # 2 classes x 2 clusters per class
centroids = (2 * rng.randint(0, 2, size=(n_clusters, INF)) - 1).astype(np.float64)
centroids *= 1.0  # class_sep
y = np.zeros(N, dtype=np.int64)
X = np.zeros((N, F))
per = N // n_clusters
for k in range(n_clusters):
    sl = slice(k * per, (k + 1) * per)
    y[sl] = k % 2
    Xk = rng.normal(size=(per, INF))
    A = 2 * rng.rand(INF, INF) - 1
    X[sl, :INF] = Xk @ A + centroids[k]
B = 2 * rng.rand(INF, 2) - 1
X[:, INF:INF + 2] = X[:, :INF] @ B  # redundant features
X[:, INF + 2:] = rng.normal(size=(N, F - INF - 2))  # noise features
flip = rng.rand(N) < 0.01
y[flip] = rng.randint(2, size=flip.sum())
perm = rng.permutation(N)
X, y = X[perm].astype(np.float32), y[perm]

# ---- CVSplit(5): stratified, 80 % train / 20 % valid ----
idx_valid = np.concatenate([np.where(y == c)[0][: int(0.2 * (y == c).sum())] for c in (0, 1)])
mask = np.zeros(N, dtype=bool)
mask[idx_valid] = True
Xtr, ytr = torch.from_numpy(X[~mask]), torch.from_numpy(y[~mask])
Xva, yva = torch.from_numpy(X[mask]), torch.from_numpy(y[mask])


class MLPModule(nn.Module):
    def __init__(self, input_units=20, output_units=2, hidden_units=10, num_hidden=2, dropout=0.5):
        super().__init__()
        units = [input_units] + [hidden_units] * num_hidden + [output_units]
        seq = []
        for u0, u1 in zip(units, units[1:]):
            seq += [nn.Linear(u0, u1), nn.ReLU(), nn.Dropout(dropout)]
        seq = seq[:-2] + [nn.Softmax(dim=-1)]
        self.sequential = nn.Sequential(*seq)

    def forward(self, X):
        return self.sequential(X)


module = MLPModule()
criterion = nn.NLLLoss()
optimizer = torch.optim.LBFGS(module.parameters(), lr=1.0)


def get_loss(y_pred, y_true):
    eps = torch.finfo(y_pred.dtype).eps
    return criterion(torch.log(y_pred + eps), y_true)


f = open('metrics.csv', 'w', newline='')
wr = csv.writer(f)
wr.writerow(['epoch', 'closure_eval', 'closure_loss', 'grad_norm', 'param_norm',
             'train_loss', 'valid_loss', 'valid_acc'])
n_eval = [0]


def train_step(epoch, Xi, yi):
    first = {}

    def step_fn():
        # train_step_single of skorch 0.8.0: no zero_grad here
        module.train()
        y_pred = module(Xi)
        loss = get_loss(y_pred, yi)
        loss.backward()
        n_eval[0] += 1
        gn = torch.sqrt(sum((p.grad ** 2).sum() for p in module.parameters() if p.grad is not None)).item()
        pn = torch.sqrt(sum((p.detach() ** 2).sum() for p in module.parameters())).item()
        wr.writerow([epoch, n_eval[0], '%.6g' % loss.item(), '%.6g' % gn, '%.6g' % pn, '', '', ''])
        if 'loss' not in first:
            first['loss'] = loss
        return loss

    optimizer.step(step_fn)
    optimizer.zero_grad()
    return first['loss']


header_printed = False
best_vl = float('inf')
best_acc = -1.0
for epoch in range(1, 11):
    t0 = time.time()
    loss = train_step(epoch, Xtr, ytr)  # batch_size=-1: one batch
    train_loss = loss.item()
    module.eval()
    with torch.no_grad():
        p = module(Xva)
        valid_loss = get_loss(p, yva).item()
        valid_acc = (p.argmax(1) == yva).float().mean().item()
    dur = time.time() - t0
    wr.writerow([epoch, '', '', '', '', '%.6g' % train_loss, '%.6g' % valid_loss, '%.4f' % valid_acc])
    if not header_printed:
        print('  epoch    train_loss    valid_acc    valid_loss     dur')
        print('-------  ------------  -----------  ------------  ------')
        header_printed = True
    print('%7d  %12.4f  %11.4f  %12.4f  %.4f' % (epoch, train_loss, valid_acc, valid_loss, dur))
f.close()
