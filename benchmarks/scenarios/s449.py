# stellargraph GraphSAGE node classification on a very small graph, in miniature (PyTorch port): 65
# nodes of 3 classes (synthetic: a community graph, homophilous edges, 20-d noisy class-dependent
# features), 30 training nodes and 5 held-out nodes used as validation_data, GraphSAGE with
# layer_sizes [32, 32], mean aggregators over num_samples [5, 2] sampled neighbours, bias, dropout 0.5,
# a softmax Dense head, Adam lr 0.005, categorical cross entropy, batch_size 10 (shuffle), balanced
# class weights, 200 epochs with EarlyStopping(monitor="val_acc", patience=50,
# restore_best_weights=True), Keras-style lines (loss/acc/val_loss/val_acc) per epoch.
import csv
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(8); torch.manual_seed(8); torch.set_num_threads(1)
N, K, D = 65, 3, 20
labels = np.random.randint(0, K, N)
adj = [[] for _ in range(N)]
for i in range(N):
    for j in range(i + 1, N):
        if np.random.rand() < (0.15 if labels[i] == labels[j] else 0.02):
            adj[i].append(j); adj[j].append(i)
for i in range(N):
    if not adj[i]: adj[i].append(i)
centres = np.random.randn(K, D)
feats = torch.tensor(0.6 * centres[labels] + np.random.randn(N, D), dtype=torch.float32)
y = torch.tensor(labels)
order = np.random.permutation(N); train_idx, val_idx = order[:30], order[30:35]

def sample(nodes, k):
    return [np.random.choice(adj[n], k, replace=True) for n in nodes]

class SAGELayer(nn.Module):
    def __init__(self, din, dout, act=True):
        super().__init__()
        self.self_w = nn.Linear(din, dout // 2); self.neigh_w = nn.Linear(din, dout // 2, bias=False); self.act = act
    def forward(self, h_self, h_neigh):
        out = torch.cat([self.self_w(h_self), self.neigh_w(h_neigh.mean(-2))], -1)
        return F.relu(out) if self.act else out

class GraphSAGE(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = SAGELayer(D, 32); self.l2 = SAGELayer(32, 32, act=False); self.head = nn.Linear(32, K)
    def forward(self, nodes, num_samples=(5, 2)):
        h1n = sample(nodes, num_samples[0])                                   # 1-hop
        h2n = [sample(list(s), num_samples[1]) for s in h1n]                   # 2-hop
        drop = lambda t: F.dropout(t, 0.5, self.training)
        x0 = drop(feats[nodes]); x1 = drop(feats[np.array(h1n)])              # [B, D], [B, 5, D]
        x2 = drop(feats[np.array(h2n)])                                        # [B, 5, 2, D]
        x1_self = drop(self.l1(x0, x1))                                        # layer 1 on targets
        x1_neigh = drop(self.l1(x1, x2))                                       # layer 1 on 1-hop nodes
        h = self.l2(x1_self, x1_neigh)
        h = F.normalize(h, dim=-1)
        return self.head(h)

model = GraphSAGE(); opt = torch.optim.Adam(model.parameters(), lr=0.005)
counts = np.bincount(labels[train_idx], minlength=K); class_weights = torch.tensor(len(train_idx) / (K * np.maximum(counts, 1)), dtype=torch.float32)
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f); wr.writerow(['epoch', 'loss', 'acc', 'val_loss', 'val_acc'])
best, best_state, wait = -1, None, 0
for epoch in range(200):
    model.train(); perm = np.random.permutation(train_idx); tl = tc = 0.0
    for b in range(0, len(perm), 10):
        nodes = perm[b:b + 10]
        out = model(nodes); loss = F.cross_entropy(out, y[nodes], weight=class_weights)
        opt.zero_grad(); loss.backward(); opt.step()
        tl += loss.item() * len(nodes); tc += (out.argmax(1) == y[nodes]).sum().item()
    model.eval()
    with torch.no_grad():
        vo = model(val_idx); vl = F.cross_entropy(vo, y[val_idx]).item(); va = (vo.argmax(1) == y[val_idx]).float().mean().item()
    print(f'Epoch {epoch + 1}/200\n3/3 - 0s - loss: {tl / 30:.4f} - acc: {tc / 30:.4f} - val_loss: {vl:.4f} - val_acc: {va:.4f}')
    wr.writerow([epoch + 1, tl / 30, tc / 30, vl, va]); f.flush()
    if va > best: best, wait, best_state = va, 0, {k: v.clone() for k, v in model.state_dict().items()}
    else:
        wait += 1
        if wait >= 50:
            print(f'Restoring model weights from the end of the best epoch.\nEpoch {epoch + 1:05d}: early stopping'); break
