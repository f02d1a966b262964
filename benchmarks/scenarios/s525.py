# keiserlab/keras-neural-graph-fingerprint in miniature, ported from Keras to PyTorch: the neural graph fingerprint of
# Duvenaud et al. (2015) as in NGF/layers.py. NeuralGraphHidden sums each atom's own and neighbour features with its
# bond features and sends them through one inner Dense layer per degree (the degree mask picks the right one);
# NeuralGraphOutput turns every atom into a softmax fingerprint through an inner Dense layer and sums over atoms; the
# fingerprints of all layers are added and a linear Dense(1) gives the prediction (examples/ style regression model,
# MSE, Adam 1e-3, batch 32, Keras-like "Epoch e/E - loss: ... - val_loss: ..." lines). As in the repository before
# the fix, the inner Dense layers are created in plain Python lists inside the graph layers, so they are initialised
# and used in the forward pass but never registered as weights of the model: model.parameters() (Keras:
# trainable_weights) holds only the final Dense(1). Scaled down: 2000 training and 400 validation synthetic
# "molecules" (6-14 atoms of 5 element types, 3 bond types, at most 4 neighbours) with a property made of local
# substructure contributions plus noise (standardised), two hidden graph layers of width 32, fingerprint length 64,
# 40 epochs. metrics.csv has the loss and val_loss per epoch and the norm of the weight change of an inner layer.
import csv
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
MAX_ATOMS, MAX_DEGREE, N_ATOM_F, N_BOND_F = 14, 4, 5, 3
CONV_WIDTH, FP_LENGTH, EPOCHS, BATCH = 32, 64, 40, 32

rs = np.random.RandomState(1)
pair_table = rs.normal(0, 1, (N_ATOM_F, N_ATOM_F, N_BOND_F)); atom_table = rs.normal(0, 1, (N_ATOM_F, MAX_DEGREE + 1))
def molecule(r):
    n = r.randint(6, MAX_ATOMS + 1)
    types = r.choice(N_ATOM_F, n, p=[0.45, 0.2, 0.15, 0.12, 0.08])
    edges = -np.ones((MAX_ATOMS, MAX_DEGREE), np.int64); bonds = np.zeros((MAX_ATOMS, MAX_DEGREE, N_BOND_F), np.float32)
    deg = np.zeros(MAX_ATOMS, np.int64); pairs = []
    for i in range(1, n):                       # a random tree, then a few ring closures
        cand = [j for j in range(i) if deg[j] < MAX_DEGREE]; j = cand[r.randint(len(cand))]; pairs.append((i, j))
        deg[i] += 1; deg[j] += 1
    for _ in range(r.randint(0, 3)):
        i, j = r.choice(n, 2, replace=False)
        if deg[i] < MAX_DEGREE and deg[j] < MAX_DEGREE and (i, j) not in pairs and (j, i) not in pairs:
            pairs.append((i, j)); deg[i] += 1; deg[j] += 1
    deg[:] = 0; y = 0.0
    for i, j in pairs:
        b = r.choice(N_BOND_F, p=[0.7, 0.2, 0.1])
        for a, c in ((i, j), (j, i)):
            edges[a, deg[a]] = c; bonds[a, deg[a], b] = 1; deg[a] += 1
        y += pair_table[types[i], types[j], b] + pair_table[types[j], types[i], b]
    y += sum(atom_table[types[a], deg[a]] for a in range(n))
    atoms = np.zeros((MAX_ATOMS, N_ATOM_F), np.float32); atoms[np.arange(n), types] = 1
    return atoms, bonds, edges, y + r.normal(0, 0.5)
def dataset(n, seed):
    r = np.random.RandomState(seed); mols = [molecule(r) for _ in range(n)]
    return [torch.tensor(np.stack([m[k] for m in mols])) for k in range(3)] + [torch.tensor([m[3] for m in mols], dtype=torch.float32)]
train, val = dataset(2000, 2), dataset(400, 3)
mu, sd = train[3].mean(), train[3].std(); train[3] = (train[3] - mu) / sd; val[3] = (val[3] - mu) / sd

def neighbour_sum(atoms, edges):
    lookup = F.pad(atoms, (0, 0, 1, 0))                                   # zero row for the -1 (masked) edges
    idx = (edges + 1).flatten(1)
    neigh = torch.gather(lookup, 1, idx.unsqueeze(-1).expand(-1, -1, atoms.shape[-1]))
    return neigh.view(*edges.shape, atoms.shape[-1]).sum(-2)

class NeuralGraphHidden(nn.Module):
    def __init__(self, in_features, conv_width):
        super().__init__()
        self.inner_3D_layers = []
        for degree in range(MAX_DEGREE + 1):
            self.inner_3D_layers.append(nn.Linear(in_features + N_BOND_F, conv_width))
    def forward(self, atoms, bonds, edges):
        atom_degrees = (edges != -1).sum(-1, keepdim=True)
        summed = torch.cat([neighbour_sum(atoms, edges) + atoms, bonds.sum(-2)], -1)
        new = 0
        for degree in range(MAX_DEGREE + 1):
            new = new + F.relu(self.inner_3D_layers[degree](summed)) * (atom_degrees == degree).float()
        return new

class NeuralGraphOutput(nn.Module):
    def __init__(self, in_features, fp_length):
        super().__init__()
        self.inner_3D_layers = [nn.Linear(in_features + N_BOND_F, fp_length)]
    def forward(self, atoms, bonds, edges):
        atom_mask = ((edges != -1).sum(-1, keepdim=True) > 0).float()
        fp = F.softmax(self.inner_3D_layers[0](torch.cat([atoms, bonds.sum(-2)], -1)), -1) * atom_mask
        return fp.sum(1)

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fp_out0 = NeuralGraphOutput(N_ATOM_F, FP_LENGTH)
        self.conv1 = NeuralGraphHidden(N_ATOM_F, CONV_WIDTH); self.fp_out1 = NeuralGraphOutput(CONV_WIDTH, FP_LENGTH)
        self.conv2 = NeuralGraphHidden(CONV_WIDTH, CONV_WIDTH); self.fp_out2 = NeuralGraphOutput(CONV_WIDTH, FP_LENGTH)
        self.main_prediction = nn.Linear(FP_LENGTH, 1)
    def forward(self, atoms, bonds, edges):
        fp = self.fp_out0(atoms, bonds, edges)
        a1 = self.conv1(atoms, bonds, edges); fp = fp + self.fp_out1(a1, bonds, edges)
        a2 = self.conv2(a1, bonds, edges); fp = fp + self.fp_out2(a2, bonds, edges)
        return self.main_prediction(fp).squeeze(-1)

model = Model()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
n_train = sum(p.numel() for p in model.parameters())
print('Total params: %d' % n_train); print('Trainable params: %d' % n_train)
probe = model.conv1.inner_3D_layers[1].weight; probe0 = probe.detach().clone()
f = open('metrics.csv', 'w', newline=''); w = csv.writer(f)
w.writerow(['epoch', 'loss', 'val_loss', 'inner_weight_change'])
N = len(train[3])
for epoch in range(1, EPOCHS + 1):
    perm = torch.randperm(N); tot = 0.0
    model.train()
    for s in range(0, N, BATCH):
        b = perm[s:s + BATCH]
        loss = F.mse_loss(model(train[0][b], train[1][b], train[2][b]), train[3][b])
        optimizer.zero_grad(); loss.backward(); optimizer.step(); tot += loss.item() * len(b)
    model.eval()
    with torch.no_grad():
        vl = F.mse_loss(model(val[0], val[1], val[2]), val[3]).item()
    dw = (probe.detach() - probe0).norm().item()
    w.writerow([epoch, round(tot / N, 5), round(vl, 5), round(dw, 6)]); f.flush()
    print('Epoch %d/%d' % (epoch, EPOCHS)); print('%d/%d [==============================] - loss: %.4f - val_loss: %.4f' % (N, N, tot / N, vl))
f.close()
