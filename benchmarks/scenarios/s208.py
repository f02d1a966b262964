# E-ResGAT-style edge classifier for intrusion detection: GAT-like message passing over a host graph, edge (flow) labels, batches of edges
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(5)
torch.set_num_threads(1)

n_nodes, n_edges, fdim = 300, 6000, 16
g = torch.Generator().manual_seed(2)
src = torch.randint(0, n_nodes, (n_edges,), generator=g)
dst = torch.randint(0, n_nodes, (n_edges,), generator=g)
edge_feat = torch.randn(n_edges, fdim, generator=g)
node_feat = torch.randn(n_nodes, fdim, generator=g)
y = (edge_feat[:, 0] + 0.5 * edge_feat[:, 1] > 0.8).long()
label = y.clone()
label_onehot = F.one_hot(y, 2)                       # kept for the evaluation report
perm = torch.randperm(n_edges, generator=g)
train, val = perm[:5000], perm[5000:]


class EResGAT(nn.Module):
    def __init__(self, h=32):
        super().__init__()
        self.node = nn.Linear(fdim, h)
        self.att = nn.Linear(2 * h, 1)
        self.edge = nn.Linear(fdim, h)
        self.out = nn.Sequential(nn.Linear(3 * h, h), nn.ELU(), nn.Linear(h, 2))

    def forward(self, edges):
        hn = self.node(node_feat)
        a = torch.sigmoid(self.att(torch.cat([hn[src], hn[dst]], 1)))
        agg = torch.zeros_like(hn).index_add_(0, dst, a * hn[src])
        h = torch.cat([agg[src[edges]] + hn[src[edges]], agg[dst[edges]] + hn[dst[edges]], self.edge(edge_feat[edges])], 1)
        return self.out(F.elu(h))


def predict_(model, label, loss_fn, idx):
    model.eval()
    with torch.no_grad():
        accs, losses = [], []
        for i in range(0, len(idx), 256):
            batch_edges = idx[i:i + 256]
            batch_output = model(batch_edges)
            batch_loss = loss_fn(batch_output, label[batch_edges])
            losses.append(batch_loss.item())
        return sum(losses) / len(losses)


model = EResGAT()
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
loss_fn = nn.CrossEntropyLoss()
for batch in range(1, 61):
    t = time.time()
    model.train()
    batch_edges = train[torch.randint(0, len(train), (256,))]
    output = model(batch_edges)
    loss_train = loss_fn(output, label[batch_edges])
    optimizer.zero_grad()
    loss_train.backward()
    optimizer.step()
    acc_train = (output.argmax(1) == label[batch_edges]).float().mean().item()
    print(f"batch: {batch} loss_train: {loss_train.item():.4f} acc_train: {acc_train:.4f} time: {time.time() - t:.4f}s")
loss_val = predict_(model, label_onehot, loss_fn, val)
print(f"loss_val: {loss_val:.4f}")
