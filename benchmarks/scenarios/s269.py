# Session-based recommendation in miniature (COTREC-style): item embeddings are refined by two
# graph-convolution layers ("ItemConv") over an item-transition graph, a session is the mean of its
# refined item embeddings, and the next item is scored against all items (cross-entropy over 300
# items). As in the report, the ItemConv layer keeps its per-layer weight matrices in a plain Python
# dict instead of an nn.ModuleDict, so model.parameters() (and the Adam optimizer) never see them.
# Adam lr 1e-3, batch 100, 10 epochs; Recall@20 / MRR@20 on held-out sessions.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(11)

n_items, dim, n_topics = 300, 64, 12
topic = torch.randint(0, n_topics, (n_items,), generator=g)
members = [torch.nonzero(topic == k).flatten() for k in range(n_topics)]
succ = torch.randint(0, n_items, (n_items, 3), generator=g)      # each item has 3 typical successors
def session():
    cur = int(torch.randint(0, n_items, (1,), generator=g))
    s = [cur]
    for _ in range(int(torch.randint(3, 7, (1,), generator=g))):
        cur = int(succ[cur, int(torch.randint(0, 3, (1,), generator=g))]) if torch.rand(1, generator=g) < 0.8 \
            else int(members[int(topic[cur])][int(torch.randint(0, len(members[int(topic[cur])]), (1,), generator=g))])
        s.append(cur)
    return s
sessions = [session() for _ in range(6000)]
A = torch.zeros(n_items, n_items)
for s in sessions[:5000]:
    for a, b in zip(s[:-1], s[1:]):
        A[a, b] += 1; A[b, a] += 1
A = A + torch.eye(n_items)
A = A / A.sum(1, keepdim=True)

def batchify(ss):
    L = max(len(s) - 1 for s in ss)
    x = torch.full((len(ss), L), -1, dtype=torch.long)
    for i, s in enumerate(ss):
        x[i, :len(s) - 1] = torch.tensor(s[:-1])
    return x, torch.tensor([s[-1] for s in ss])
Xtr, ytr = batchify(sessions[:5000]); Xte, yte = batchify(sessions[5000:])

class ItemConv(nn.Module):
    def __init__(self, layers, dim):
        super().__init__()
        self.layers = layers
        self.w_item = {}
        for i in range(layers):
            self.w_item['weight_item%d' % i] = nn.Linear(dim, dim, bias=False)
    def forward(self, adjacency, embedding):
        item_embeddings = embedding
        final = [item_embeddings]
        for i in range(self.layers):
            item_embeddings = self.w_item['weight_item%d' % i](item_embeddings)
            item_embeddings = torch.mm(adjacency, item_embeddings)
            final.append(F.normalize(item_embeddings, dim=-1, p=2))
        return torch.stack(final).sum(0) / (self.layers + 1)

class COTREC(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(n_items, dim)
        nn.init.uniform_(self.embedding.weight, -0.1, 0.1)
        self.ItemGraph = ItemConv(2, dim)
    def forward(self, x):
        item_emb = self.ItemGraph(A, self.embedding.weight)
        mask = (x >= 0).float().unsqueeze(-1)
        sess = (item_emb[x.clamp(min=0)] * mask).sum(1) / mask.sum(1)
        return 10.0 * sess @ F.normalize(item_emb, dim=-1).t()

model = COTREC()
print('parameters seen by the optimizer:', [n for n, _ in model.named_parameters()])
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(10):
    model.train()
    perm = torch.randperm(len(Xtr)); total = 0.0
    for i in range(0, len(Xtr), 100):
        idx = perm[i:i + 100]
        loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        total += loss.item()
    model.eval()
    with torch.no_grad():
        scores = model(Xte)
        top = scores.topk(20, dim=1).indices
        hit = (top == yte[:, None])
        recall = hit.any(1).float().mean().item() * 100
        rank = hit.float().argmax(1) + 1
        mrr = (hit.any(1).float() / rank.float()).mean().item() * 100
    print('epoch: {}\tLoss:\t{:.3f}\tRecall@20: {:.4f}\tMMR@20: {:.4f}'.format(epoch, total, recall, mrr))
