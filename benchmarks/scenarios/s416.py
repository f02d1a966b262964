# keras-gat (danielegrattarola) examples/gat.py on Citeseer in miniature, ported from Keras to
# PyTorch: a synthetic citation graph (900 nodes, 6 classes, homophilous edges + self loops,
# 400-word binary bag-of-words features, row-normalised), 120 labelled training nodes (20 per class),
# 300 validation nodes; GAT with 8 heads x 8 features (ELU, concat) and a 1-head output layer,
# dropout 0.6 on inputs and attention, L2 5e-4 on the first layer, Adam 5e-3, full-batch training,
# 100 epochs, Keras-style "Epoch n/100 ... loss: ... - acc: ... - val_loss: ... - val_acc: ..." lines.
# As with Citeseer in the report, some nodes have no feature vector in the raw files, and the loader
# leaves their rows as NaN (here 12 nodes); the model is trained on X as loaded.
import csv
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(14); torch.manual_seed(14); torch.set_num_threads(1)
N, Fdim, C = 900, 400, 6
y = np.random.randint(0, C, N)
words = [np.random.choice(Fdim, 30, replace=False) for _ in range(C)]
X = np.zeros((N, Fdim), np.float32)
for i in range(N):
    X[i, np.random.choice(words[y[i]], 6)] = 1; X[i, np.random.randint(0, Fdim, 10)] = 1
X = X / X.sum(1, keepdims=True)
A = np.eye(N, dtype=bool)
for i in range(N):
    same = np.where(y == y[i])[0]; other = np.random.randint(0, N, 1)
    for j in list(np.random.choice(same, 2)) + list(other): A[i, j] = A[j, i] = True
missing = np.random.choice(N, 12, replace=False)
X[missing] = np.nan                                   # nodes without features in the raw data
idx_train = np.concatenate([np.where(y == c)[0][:20] for c in range(C)])
idx_val = np.setdiff1d(np.arange(N), idx_train)[:300]
X, Y, A = torch.tensor(X), torch.tensor(y), torch.tensor(A)
print('Data loaded: %d nodes, %d features, %d classes, %d edges' % (N, Fdim, C, int(A.sum()) // 2))

class GraphAttention(nn.Module):
    def __init__(self, fin, fout, heads, concat):
        super().__init__()
        self.W = nn.Parameter(nn.init.xavier_uniform_(torch.empty(heads, fin, fout)))
        self.a_self = nn.Parameter(nn.init.xavier_uniform_(torch.empty(heads, fout, 1)))
        self.a_neigh = nn.Parameter(nn.init.xavier_uniform_(torch.empty(heads, fout, 1)))
        self.concat = concat
    def forward(self, x):
        h = torch.einsum('nf,hfo->hno', x, self.W)
        e = F.leaky_relu(h @ self.a_self + (h @ self.a_neigh).transpose(1, 2), 0.2)
        e = e.masked_fill(~A, -1e9)
        att = F.dropout(torch.softmax(e, -1), 0.6, self.training)
        out = att @ F.dropout(h, 0.6, self.training)
        return F.elu(out.permute(1, 0, 2).reshape(len(x), -1)) if self.concat else out.mean(0)

class GAT(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = GraphAttention(Fdim, 8, 8, True); self.l2 = GraphAttention(64, C, 1, False)
    def forward(self, x):
        return self.l2(F.dropout(self.l1(F.dropout(x, 0.6, self.training)), 0.6, self.training))

model = GAT(); opt = torch.optim.Adam(model.parameters(), lr=5e-3)
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['epoch', 'loss', 'acc', 'val_loss', 'val_acc'])
for epoch in range(1, 101):
    model.train(); out = model(X)
    loss = F.cross_entropy(out[idx_train], Y[idx_train]) + 5e-4 * (model.l1.W ** 2).sum()
    opt.zero_grad(); loss.backward(); opt.step()
    acc = (out[idx_train].argmax(1) == Y[idx_train]).float().mean().item()
    model.eval()
    with torch.no_grad():
        o = model(X); vl = F.cross_entropy(o[idx_val], Y[idx_val]).item(); va = (o[idx_val].argmax(1) == Y[idx_val]).float().mean().item()
    print('Epoch %d/100\n1/1 [==============================] - 0s - loss: %.4f - acc: %.4f - val_loss: %.4f - val_acc: %.4f' % (epoch, loss.item(), acc, vl, va))
    wr.writerow([epoch, loss.item(), acc, vl, va])
