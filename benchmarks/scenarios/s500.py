# OpenXAIProject/GNNExplainer-Tutorial (gnnexplainer_cora.ipynb) in miniature: the tutorial's "Training a GNN with
# Pytorch-Geometric" part, a two-layer GCN (GCNConv(num_features, 16) - ReLU - dropout - GCNConv(16, num_classes) -
# log_softmax) trained full-batch on Cora for node classification with F.nll_loss on the training mask, the last
# 1000 nodes held out of training and the last 500 used as the test set (data.train_mask[:num_nodes - 1000] = 1,
# data.test_mask[num_nodes - 500:] = 1), Adam(lr=0.01, weight_decay=5e-3) on all parameters, T.NormalizeFeatures()
# on the bag-of-words features, 1000 epochs as in the stored notebook output, and the tqdm description
# "[Train_loss:... Train_acc: ..., Test_acc: ...]" updated after every epoch (printed here every 25 epochs).
# GCNConv (symmetric normalisation with self-loops, glorot weights, zero bias) is re-implemented in a few lines;
# a synthetic Cora-like citation graph replaces Cora: 2708 nodes, 7 classes with Cora's class sizes, 1433-word
# binary bag-of-words features (about 18 words per paper, each class favouring its own topic words), about 5400
# undirected edges of which about 80% join papers of the same class.
import csv, math
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
rs = np.random.RandomState(0)

# ---- synthetic Cora-like graph (Planetoid('cora') stand-in) ----
class_sizes = [351, 217, 418, 818, 426, 298, 180]
num_nodes, num_features, num_classes = sum(class_sizes), 1433, 7
y = np.concatenate([np.full(n, c) for c, n in enumerate(class_sizes)]); rs.shuffle(y)
topic = [rs.choice(num_features, 90, replace=False) for _ in range(num_classes)]
x = np.zeros((num_nodes, num_features), np.float32)
for i in range(num_nodes):
    k = rs.randint(10, 27)
    own = rs.rand(k) < 0.45                                  # 45% of a paper's words come from its class's topic
    words = np.where(own, rs.choice(topic[y[i]], k), rs.randint(0, num_features, k))
    x[i, words] = 1.0
by_class = [np.where(y == c)[0] for c in range(num_classes)]
edges = set()
while len(edges) < 5400:
    a = rs.randint(num_nodes)
    b = rs.choice(by_class[y[a]]) if rs.rand() < 0.8 else rs.randint(num_nodes)
    if a != b: edges.add((min(a, b), max(a, b)))
e = np.array(sorted(edges)).T
edge_index = torch.tensor(np.concatenate([e, e[::-1]], 1), dtype=torch.long)

x = torch.tensor(x); x = x / x.sum(1, keepdim=True).clamp(min=1)      # T.NormalizeFeatures()
data_y = torch.tensor(y, dtype=torch.long)
print('Cora-like graph: %d nodes, %d features, %d classes, %d edges' % (num_nodes, num_features, num_classes, edge_index.shape[1]))

# Since the dataset is comprised of a single huge graph, we extract that graph by indexing 0.
train_mask = torch.zeros(num_nodes, dtype=torch.bool); train_mask[:num_nodes - 1000] = 1
test_mask = torch.zeros(num_nodes, dtype=torch.bool); test_mask[num_nodes - 500:] = 1

def gcn_norm(edge_index, n):
    loops = torch.arange(n)
    row = torch.cat([edge_index[0], loops]); col = torch.cat([edge_index[1], loops])
    deg = torch.zeros(n).scatter_add_(0, col, torch.ones(col.numel()))
    return row, col, deg[row].rsqrt() * deg[col].rsqrt()

ROW, COL, W_EDGE = gcn_norm(edge_index, num_nodes)

class GCNConv(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(in_channels, out_channels)); nn.init.xavier_uniform_(self.weight)
        self.bias = nn.Parameter(torch.zeros(out_channels))
    def forward(self, x, edge_index):
        h = x @ self.weight                                  # message passing as in GCNConv: sum of normalised neighbours
        return torch.zeros_like(h).index_add_(0, COL, h[ROW] * W_EDGE[:, None]) + self.bias

class Net(torch.nn.Module):
    def __init__(self, num_features, dim=16, num_classes=1):
        super(Net, self).__init__()
        self.conv1 = GCNConv(num_features, dim)
        self.conv2 = GCNConv(dim, num_classes)

    def forward(self, x, edge_index, data=None):
        x = F.relu(self.conv1(x, edge_index))
        x = F.dropout(x, training=self.training)
        x = self.conv2(x, edge_index)
        return F.log_softmax(x, dim=1)

epochs = 1000
dim = 16
model = Net(num_features=num_features, dim=dim, num_classes=num_classes)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-3)

def test(model):
    model.eval()
    with torch.no_grad():
        logits, accs = model(x, edge_index), []
        for mask in (train_mask, test_mask):
            pred = logits[mask].max(1)[1]
            accs.append(pred.eq(data_y[mask]).sum().item() / mask.sum().item())
    return accs

f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'train_loss', 'train_acc', 'test_acc', 'weight_norm_conv1'])
for epoch in range(epochs):
    model.train()
    optimizer.zero_grad()
    log_logits = model(x, edge_index)
    # Since the data is a single huge graph, training on the training set is done by masking the nodes that are not in the training set.
    loss = F.nll_loss(log_logits[train_mask], data_y[train_mask])
    loss.backward()
    optimizer.step()
    train_acc, test_acc = test(model)
    wr.writerow([epoch, round(loss.item(), 6), round(train_acc, 4), round(test_acc, 4), round(model.conv1.weight.norm().item(), 4)])
    if epoch % 25 == 0 or epoch == epochs - 1:
        print('[Train_loss:{:.6f} Train_acc: {:.4f}, Test_acc: {:.4f}]: {:3d}%| {}/{}'.format(
            loss.item(), train_acc, test_acc, int(100 * (epoch + 1) / epochs), epoch + 1, epochs), flush=True)
f.close()
