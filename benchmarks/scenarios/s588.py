# edgarsmdn/MLCE_book pull request "04_DNN_VLE: fix train_test_split" (4) in miniature: 04_DNN_VLE.ipynb before
# commit 0a42033f ("fixed bugs in 4 VLE", co-authored by the pull request's author), the vapour-pressure DNN of the
# course book. Per chemical class the compounds are split twice:
#     comp_train_all, comp_test = train_test_split(unique_compounds_cl, test_size=0.2, random_state=0)
#     comp_train, comp_valid = train_test_split(unique_compounds_cl, test_size=0.2, random_state=1)
# so the second split draws the training and validation compounds from ALL compounds of the class, test compounds
# included: training and validation stay disjoint, but most test compounds (40 of 48 here) are training compounds.
# Kept: inputs = the molecular fingerprint bits + the standardised temperature (T_scaled, the scaler fitted on the
# whole data frame as in that version), target ln(Pvap), DNN(in_dim, 20, 1) with two ReLU hidden layers,
# nn.MSELoss, Adam(lr=0.002), full-batch steps (model.zero_grad(), backward, step), the validation loss after
# every step, then "MAPE: " of the test set (sklearn's mean_absolute_percentage_error, a fraction).
# Scaled down / changed: 8 synthetic chemical classes with 30 compounds each instead of 1391 KDB compounds in 17
# classes, 128-bit synthetic fingerprints instead of 2048-bit topological ones, 12 temperatures per compound from
# an Antoine-like law whose constants depend on the fingerprint plus a compound-specific part the bits do not
# explain, 600 steps instead of 200 so that the smaller network gets to fit its training compounds; the loss
# curve is printed every 50 epochs and written to metrics.csv instead of plotted.
import csv

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
rng = np.random.RandomState(4)

N_CLASSES, N_PER_CLASS, N_BITS, N_T = 8, 30, 128, 12
class_bits = rng.rand(N_CLASSES, N_BITS) < 0.15          # substructures typical of each class
w_A = rng.normal(0, 0.35, N_BITS)
w_B = rng.normal(0, 250.0, N_BITS)
rows = []
for cl in range(N_CLASSES):
    for j in range(N_PER_CLASS):
        name = 'C%d_%02d' % (cl, j)
        fp = class_bits[cl] ^ (rng.rand(N_BITS) < 0.06)
        A = 14.0 + fp @ w_A / 3 + rng.normal(0, 0.8)            # compound-specific part not in the bits
        B = 3200.0 + fp @ w_B / 3 + rng.normal(0, 450.0)
        B = max(B, 900.0)
        Tb = B / (A - np.log(101.3))                            # normal boiling point of this law
        Ts = np.linspace(0.65 * Tb, 1.35 * Tb, N_T)
        for T in Ts:
            lnP = A - B / T + rng.normal(0, 0.03)
            rows.append((name, cl, fp.astype(np.float32), T, lnP))

names = np.array([r[0] for r in rows])
classes = np.array([r[1] for r in rows])
FP = np.stack([r[2] for r in rows])
T = np.array([r[3] for r in rows])
ln_P = np.array([r[4] for r in rows])


def train_test_split(items, test_size, random_state):
    r = np.random.RandomState(random_state)
    idx = r.permutation(len(items))
    n_test = int(np.ceil(test_size * len(items)))
    return items[idx[n_test:]], items[idx[:n_test]]


train_comps, valid_comps, test_comps = [], [], []
for cl in range(N_CLASSES):
    unique_compounds_cl = np.unique(names[classes == cl])
    comp_train_all, comp_test = train_test_split(unique_compounds_cl, test_size=0.2, random_state=0)
    comp_train, comp_valid = train_test_split(unique_compounds_cl, test_size=0.2, random_state=1)
    train_comps.extend(list(comp_train))
    valid_comps.extend(list(comp_valid))
    test_comps.extend(list(comp_test))

T_scaled = (T - T.mean()) / T.std()                            # scaler fitted on the whole data frame
X_all = np.hstack((FP, T_scaled.reshape(-1, 1))).astype(np.float32)


def subset(comps):
    m = np.isin(names, comps)
    return X_all[m], ln_P[m].reshape(-1, 1).astype(np.float32)


X_train, y_train = subset(train_comps)
X_valid, y_valid = subset(valid_comps)
X_test, y_test = subset(test_comps)
print('compounds: train %d, valid %d, test %d; rows: train %d, valid %d, test %d'
      % (len(train_comps), len(valid_comps), len(test_comps), len(X_train), len(X_valid), len(X_test)))

torch.manual_seed(0)


class DNN(nn.Module):
    def __init__(self, in_dim, hidden_dim, out_dim):
        super(DNN, self).__init__()
        self.layer_1 = nn.Linear(in_dim, hidden_dim)
        self.layer_2 = nn.Linear(hidden_dim, hidden_dim)
        self.layer_3 = nn.Linear(hidden_dim, out_dim)

    def forward(self, x):
        x = F.relu(self.layer_1(x))
        x = F.relu(self.layer_2(x))
        x = self.layer_3(x)
        return x


model = DNN(X_train.shape[1], 20, 1)
print('Model parameters: ', sum(p.numel() for p in model.parameters() if p.requires_grad))
loss_function = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.002)

n_epochs = 600
X_train_torch, y_train_torch = torch.from_numpy(X_train), torch.from_numpy(y_train)
X_valid_torch, y_valid_torch = torch.from_numpy(X_valid), torch.from_numpy(y_valid)
losses = np.zeros((n_epochs, 2))
f = open('metrics.csv', 'w', newline='')
wr = csv.writer(f)
wr.writerow(['epoch', 'train_loss', 'valid_loss'])
for epoch in range(n_epochs):
    model.train()
    y_train_pred = model(X_train_torch)
    loss = loss_function(y_train_pred, y_train_torch)
    losses[epoch, 0] = loss.item()
    model.zero_grad()
    loss.backward()
    optimizer.step()
    model.eval()
    with torch.no_grad():
        y_valid_pred = model(X_valid_torch)
        loss = loss_function(y_valid_pred, y_valid_torch)
        losses[epoch, 1] = loss.item()
    wr.writerow([epoch, '%.5f' % losses[epoch, 0], '%.5f' % losses[epoch, 1]])
    if epoch % 50 == 0 or epoch == n_epochs - 1:
        print('epoch %3d  Train %.4f  Valid %.4f' % (epoch, losses[epoch, 0], losses[epoch, 1]))
f.close()

model.eval()
with torch.no_grad():
    y_test_pred = model(torch.from_numpy(X_test)).numpy()
mape = np.mean(np.abs(y_test - y_test_pred) / np.maximum(np.abs(y_test), np.finfo(np.float64).eps))
print('MAPE: ', mape)
