# lightaime/deep_gcns_torch issue "Model cannot converge problem" in miniature: image classification with a
# GCN on top of CNN features. 800 images of 10 classes are given as 64-d ResNet-18-like feature vectors
# (non-negative, post-ReLU, synthetic: a class centre plus strong per-image noise), one node per image,
# a static k-nearest-neighbour graph (k = 10, on the features, symmetrised, self-loops, symmetric
# normalisation); 600 labelled training nodes and 200 validation nodes, full-batch training. The network
# is a stack of graph-convolution layers (h = ReLU(A_hat h W + b), 64 channels) of depth n_blocks = 7,
# a linear classifier, cross entropy, Adam lr
# 1e-3, 300 epochs, a log line every 20 epochs.
import csv
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(10); torch.manual_seed(10); torch.set_num_threads(1)
N, D, C, k = 800, 64, 10, 10
centres = np.random.randn(C, D)
labels = np.random.randint(0, C, N)
feats = np.maximum(centres[labels] + 1.6 * np.random.randn(N, D), 0).astype(np.float32)
x = torch.tensor(feats); y = torch.tensor(labels)
train_mask = torch.arange(N) < 600; val_mask = ~train_mask
nbrs = torch.cdist(x, x).topk(k + 1, largest=False).indices                  # includes the node itself
A = torch.zeros(N, N); A.scatter_(1, nbrs, 1.0); A = ((A + A.t()) > 0).float()
deg = A.sum(1); A_hat = A / torch.sqrt(deg[:, None] * deg[None, :])

class GCNConv(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.lin = nn.Linear(in_channels, out_channels)
    def forward(self, x, adj):
        return F.relu(adj @ self.lin(x))

class DeepGCN(nn.Module):
    def __init__(self, in_channels, channels=64, n_blocks=7, n_classes=10):
        super().__init__()
        self.head = GCNConv(in_channels, channels)
        self.backbone = nn.ModuleList([GCNConv(channels, channels) for _ in range(n_blocks - 1)])
        self.prediction = nn.Linear(channels, n_classes)
    def forward(self, x, adj):
        h = self.head(x, adj)
        for layer in self.backbone:
            h = layer(h, adj)
        return self.prediction(h)

model = DeepGCN(D, channels=64, n_blocks=7, n_classes=C)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
print(model)
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['epoch', 'train_loss', 'train_acc', 'val_loss', 'val_acc'])
for epoch in range(1, 301):
    model.train()
    out = model(x, A_hat)
    loss = F.cross_entropy(out[train_mask], y[train_mask])
    optimizer.zero_grad(); loss.backward(); optimizer.step()
    if epoch == 1 or epoch % 20 == 0:
        model.eval()
        with torch.no_grad():
            out = model(x, A_hat)
            val_loss = F.cross_entropy(out[val_mask], y[val_mask]).item()
            pred = out.argmax(1)
            train_acc = (pred[train_mask] == y[train_mask]).float().mean().item()
            val_acc = (pred[val_mask] == y[val_mask]).float().mean().item()
        print('Epoch: {:03d}, Loss: {:.4f}, Train Acc: {:.4f}, Val Loss: {:.4f}, Val Acc: {:.4f}'.format(
            epoch, loss.item(), train_acc, val_loss, val_acc))
        wr.writerow([epoch, loss.item(), train_acc, val_loss, val_acc])
