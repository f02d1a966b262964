"""Two-layer graph convolutional network (Kipf & Welling style) for semi-supervised node
classification on a synthetic stochastic-block-model graph: 4 communities, noisy node features,
dense symmetric-normalised adjacency, full-batch training on a labelled subset of nodes."""
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

SEED = 0
LR = 0.01
WEIGHT_DECAY = 5e-4
EPOCHS = 150
LOG_EVERY = 10
N_NODES = 800
N_CLASSES = 4
N_FEAT = 64
HIDDEN = 32
DROPOUT = 0.8
P_IN = 0.02
P_OUT = 0.002

torch.set_num_threads(1)
torch.manual_seed(SEED)
def wrap_epoch(it, epoch):
    return it


def on_step(epoch, step, n_steps, loss, metrics, lr, gstep):
    if step % LOG_EVERY == 0:
        extra = " | ".join(f"{k} {v:.3f}" for k, v in metrics.items())
        print(f"| epoch {epoch:03d} | {step:5d}/{n_steps:5d} batches | lr {lr:.2e} | loss {loss:7.4f} | {extra} |")


def on_epoch(epoch, n_steps, train, val, elapsed, lr):
    print("-" * 89)
    tr = " | ".join(f"train {k} {v:.4f}" for k, v in train.items())
    va = " | ".join(f"valid {k} {v:.4f}" for k, v in val.items())
    print(f"| end of epoch {epoch:3d} | time: {elapsed:5.2f}s | {tr} | {va} |")
    print("-" * 89)


def on_end(total_time, train):
    pass


def make_graph(seed):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, N_CLASSES, (N_NODES,), generator=g)
    same = (y[:, None] == y[None, :]).float()
    prob = same * P_IN + (1 - same) * P_OUT
    upper = torch.triu((torch.rand(N_NODES, N_NODES, generator=g) < prob).float(), diagonal=1)
    adj = upper + upper.t()
    centers = torch.randn(N_CLASSES, N_FEAT, generator=g)
    x = 0.2 * centers[y] + torch.randn(N_NODES, N_FEAT, generator=g)
    return x, y, adj


def normalize_adj(adj):
    a = adj + torch.eye(adj.size(0))
    d = a.sum(1).pow(-0.5)
    return d[:, None] * a * d[None, :]


x, y, adj = make_graph(SEED + 1)
a_hat = normalize_adj(adj)
perm = torch.randperm(N_NODES, generator=torch.Generator().manual_seed(SEED + 2))
train_idx, val_idx, test_idx = perm[:160], perm[160:400], perm[400:]
print(f"graph: {N_NODES} nodes, {int(adj.sum().item()) // 2} edges, avg degree {adj.sum(1).mean():.2f}, "
      f"features {N_FEAT}, classes {N_CLASSES}")
print(f"split: train {len(train_idx)} / val {len(val_idx)} / test {len(test_idx)}")


class GraphConv(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.lin = nn.Linear(d_in, d_out)

    def forward(self, h, a):
        return a @ self.lin(h)


class GCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = GraphConv(N_FEAT, HIDDEN)
        self.conv2 = GraphConv(HIDDEN, N_CLASSES)

    def forward(self, h, a):
        h = F.dropout(h, DROPOUT, self.training)
        h = F.relu(self.conv1(h, a))
        h = F.dropout(h, DROPOUT, self.training)
        return self.conv2(h, a)


model = GCN()
print(model)
print(f"trainable params: {sum(p.numel() for p in model.parameters() if p.requires_grad)}")
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
criterion = nn.CrossEntropyLoss()


def metrics_on(logits, idx):
    loss = criterion(logits[idx], y[idx]).item()
    acc = (logits[idx].argmax(1) == y[idx]).float().mean().item()
    return {"loss": loss, "acc": acc}


t0 = time.time()
t_ep = time.time()
for epoch in range(1, EPOCHS + 1):
    model.train()
    optimizer.zero_grad()
    out = model(x, a_hat)
    loss = criterion(out[train_idx], y[train_idx])
    loss.backward()
    optimizer.step()
    train_acc = (out[train_idx].argmax(1) == y[train_idx]).float().mean().item()
    if epoch % LOG_EVERY == 0 or epoch == 1:
        model.eval()
        with torch.no_grad():
            val = metrics_on(model(x, a_hat), val_idx)
        on_epoch(epoch, 1, {"loss": loss.item(), "acc": train_acc}, val, time.time() - t_ep, optimizer.param_groups[0]["lr"])
        t_ep = time.time()

model.eval()
with torch.no_grad():
    test = metrics_on(model(x, a_hat), test_idx)
print(f"test loss {test['loss']:.4f} test acc {test['acc']:.4f}")
on_end(time.time() - t0, {})
