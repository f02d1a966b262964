"""Graph isomorphism network (GIN) graph classifier on synthetic graphs of 14 nodes, dense adjacency batches.
Three classes: Erdos-Renyi (p drawn in 0.14-0.24), a two-block stochastic block model (p_in 0.6-0.75, p_out
0.02-0.05) and a Watts-Strogatz ring (k=4, rewiring 0.1-0.3); node features are [1, degree/13]; 5% of labels are
resampled at random. Three GIN layers (sum aggregation, learnable eps, 2-layer MLP), sum readout of every layer,
dropout, linear head, cross-entropy; accuracy on a held-out set of graphs."""
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
LR, DROPOUT, BATCH, EPOCHS = 0.005, 0.3, 32, 14

def log_start(n_params, n_tr, n_va):
    print(f"### GIN training ({n_params} params, {n_tr} train / {n_va} val graphs)\n")
    print("| epoch | train loss | train acc | val loss | val acc |")
    print("|------:|-----------:|----------:|---------:|--------:|")


def log_step(epoch, i, n, loss, gstep):
    pass


def log_epoch(epoch, tl, ta, vl, va, el):
    print(f"| {epoch:5d} | {tl:10.4f} | {ta:9.4f} | {vl:8.4f} | {va:7.4f} |")


def log_end(vl, va, el):
    print(f"\n**final val acc: {va:.4f}** ({el:.1f} s)")


N_NODES = 14


def er_graph(gen):
    p = 0.14 + 0.10 * torch.rand(1, generator=gen).item()
    a = (torch.rand(N_NODES, N_NODES, generator=gen) < p).float()
    return a


def sbm_graph(gen):
    pin = 0.6 + 0.15 * torch.rand(1, generator=gen).item()
    pout = 0.02 + 0.03 * torch.rand(1, generator=gen).item()
    block = torch.arange(N_NODES) < N_NODES // 2
    same = block.unsqueeze(0) == block.unsqueeze(1)
    prob = torch.where(same, torch.tensor(pin), torch.tensor(pout))
    return (torch.rand(N_NODES, N_NODES, generator=gen) < prob).float()


def ws_graph(gen):
    beta = 0.1 + 0.2 * torch.rand(1, generator=gen).item()
    a = torch.zeros(N_NODES, N_NODES)
    for i in range(N_NODES):
        for d in (1, 2):
            j = (i + d) % N_NODES
            if torch.rand(1, generator=gen).item() < beta:
                j = int(torch.randint(0, N_NODES, (1,), generator=gen))
            a[i, j] = 1.0
    return a


def make_data(n, gen):
    ys, adjs = [], []
    for _ in range(n):
        c = int(torch.randint(0, 3, (1,), generator=gen))
        a = (er_graph, sbm_graph, ws_graph)[c](gen)
        a = torch.triu(a, 1)
        a = a + a.t()
        adjs.append(a)
        ys.append(c)
    adj = torch.stack(adjs)
    y = torch.tensor(ys)
    flip = torch.rand(n, generator=gen) < 0.05
    y = torch.where(flip, torch.randint(0, 3, (n,), generator=gen), y)
    deg = adj.sum(-1, keepdim=True)
    x = torch.cat([torch.ones_like(deg), deg / (N_NODES - 1)], dim=-1)
    return adj, x, y


gen = torch.Generator().manual_seed(5)
adj_train, x_train, y_train = make_data(1200, gen)
adj_val, x_val, y_val = make_data(300, gen)


class GINLayer(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.eps = nn.Parameter(torch.zeros(1))
        self.mlp = nn.Sequential(nn.Linear(d_in, d_out), nn.ReLU(), nn.Linear(d_out, d_out), nn.ReLU())

    def forward(self, x, adj):
        return self.mlp((1 + self.eps) * x + adj @ x)


class GIN(nn.Module):
    def __init__(self, hidden=32, layers=3, p=0.3):
        super().__init__()
        dims = [2] + [hidden] * layers
        self.layers = nn.ModuleList([GINLayer(dims[i], dims[i + 1]) for i in range(layers)])
        self.drop = nn.Dropout(p)
        self.head = nn.Linear(2 + hidden * layers, 3)

    def forward(self, x, adj):
        pooled = [x.sum(1)]
        for layer in self.layers:
            x = layer(x, adj)
            pooled.append(x.sum(1))
        return self.head(self.drop(torch.cat(pooled, dim=-1) / N_NODES))


model = GIN(p=DROPOUT)
optimizer = torch.optim.Adam(model.parameters(), lr=LR)
criterion = nn.NLLLoss()
n_params = sum(p.numel() for p in model.parameters())
steps_per_epoch = (len(y_train) + BATCH - 1) // BATCH
log_start(n_params, len(y_train), len(y_val))


def evaluate():
    model.eval()
    with torch.no_grad():
        logits = model(x_val, adj_val)
        loss = criterion(logits, y_val).item()
        acc = (logits.argmax(1) == y_val).float().mean().item()
    model.train()
    return loss, acc


gstep = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    model.train()
    perm = torch.randperm(len(y_train))
    tot, correct, seen = 0.0, 0, 0
    for i in range(steps_per_epoch):
        idx = perm[i * BATCH:(i + 1) * BATCH]
        logits = model(x_train[idx], adj_train[idx])
        loss = criterion(logits, y_train[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        gstep += 1
        tot += loss.item() * len(idx)
        correct += (logits.argmax(1) == y_train[idx]).sum().item()
        seen += len(idx)
        log_step(epoch, i + 1, steps_per_epoch, loss.item(), gstep)
    val_loss, val_acc = evaluate()
    log_epoch(epoch, tot / seen, correct / seen, val_loss, val_acc, time.time() - t0)
log_end(val_loss, val_acc, time.time() - t0)
