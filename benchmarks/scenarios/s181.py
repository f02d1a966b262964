# Graph classification with a home-made graph DataLoader: graphs kept as Python lists
import csv
import random
import time
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(802)
torch.set_num_threads(1)
random.seed(802)


def make_graph(label):
    n = random.randint(30, 60)
    edges = []
    for i in range(n):                     # ring + random chords; class 1 has many more chords
        edges.append((i, (i + 1) % n))
        for _ in range(1 + 2 * label):
            edges.append((i, random.randrange(n)))
    x = [[random.gauss(0.3 * label, 1.0) for _ in range(7)] for _ in range(n)]
    return {"x": x, "edges": edges, "y": label}


class GraphList(Dataset):
    def __init__(self, graphs):
        self.graphs = graphs

    def __len__(self):
        return len(self.graphs)

    def __getitem__(self, i):
        g = self.graphs[i]
        n = len(g["x"])
        deg = [0] * n
        for s, d in g["edges"]:
            deg[s] += 1
            deg[d] += 1
        w = [1.0 / ((deg[s] * deg[d]) ** 0.5) for s, d in g["edges"]]
        nbrs = [set() for _ in range(n)]   # structural features: local clustering, 3-hop reach
        for s, d in g["edges"]:
            nbrs[s].add(d)
            nbrs[d].add(s)
        x = []
        for i in range(n):
            tri = sum(1 for a in nbrs[i] for b in nbrs[i] if a < b and b in nbrs[a])
            k = len(nbrs[i])
            two_hop = set()
            for a in nbrs[i]:
                for b in nbrs[a]:
                    two_hop |= nbrs[b]
            x.append(g["x"][i] + [2.0 * tri / (k * (k - 1)) if k > 1 else 0.0, len(two_hop) / n])
        return x, g["edges"], w, g["y"]


def collate(items):
    xs, src, dst, ws, ys, batch = [], [], [], [], [], []
    offset = 0
    for gi, (x, edges, w, y) in enumerate(items):
        for row in x:
            xs.append(row)
            batch.append(gi)
        for (s, d), wi in zip(edges, w):
            src += [s + offset, d + offset]
            dst += [d + offset, s + offset]
            ws += [wi, wi]
        offset += len(x)
        ys.append(y)
    return (torch.tensor(xs), torch.tensor([src, dst]), torch.tensor(ws), torch.tensor(batch), torch.tensor(ys))


class GCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2 = nn.Linear(9, 64), nn.Linear(64, 64)
        self.out = nn.Linear(64, 2)

    def prop(self, h, ei, w):
        agg = torch.zeros_like(h).index_add_(0, ei[1], h[ei[0]] * w.unsqueeze(1))
        return agg + h

    def forward(self, x, ei, w, batch, n_graphs):
        h = torch.relu(self.l1(self.prop(x, ei, w)))
        h = torch.relu(self.l2(self.prop(h, ei, w)))
        pooled = torch.zeros(n_graphs, 64).index_add_(0, batch, h)
        return self.out(pooled / torch.bincount(batch, minlength=n_graphs).unsqueeze(1))


graphs = [make_graph(i % 2) for i in range(1200)]
loader = DataLoader(GraphList(graphs), batch_size=32, shuffle=True, collate_fn=collate, num_workers=0)
model = GCN()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()

with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["step", "epoch", "train_loss", "train_acc", "data_time", "compute_time", "step_time"])
    step = 0
    for epoch in range(4):
        t_end = time.perf_counter()
        for x, ei, w, batch, y in loader:
            t_data = time.perf_counter()
            out = model(x, ei, w, batch, len(y))
            loss = crit(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            t_done = time.perf_counter()
            step += 1
            acc = (out.argmax(1) == y).float().mean().item()
            wr.writerow([step, epoch, f"{loss.item():.4f}", f"{acc:.4f}", f"{t_data - t_end:.5f}",
                         f"{t_done - t_data:.5f}", f"{t_done - t_end:.5f}"])
            if step % 10 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} data {1000 * (t_data - t_end):.1f} ms "
                      f"compute {1000 * (t_done - t_data):.1f} ms")
            t_end = time.perf_counter()
