# HNE benchmark R-GCN in miniature (heterogeneous network embedding on a Yelp-like graph): 3 node types
# (business, user, phrase), 4 relation types, 2-layer R-GCN with basis decomposition producing 32-d node
# embeddings, trained with the unsupervised link loss (positive edges vs. negative samples) on edge
# batches. With supervised='True' every batch that touches labelled business nodes also adds
# F.binary_cross_entropy(sigmoid(embed[matched_index]), matched_labels) for 8 multi-hot business
# categories, where matched_labels is built as a LongTensor from the label file. Adam 1e-2.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(294)

n_nodes, n_rel, dim, n_lab = 600, 4, 32, 8
src = torch.randint(0, n_nodes, (6000,), generator=g); dst = torch.randint(0, n_nodes, (6000,), generator=g)
rel = torch.randint(0, n_rel, (6000,), generator=g)
labelled = torch.arange(0, 120)                                                   # business nodes with labels
labels = (torch.rand(120, n_lab, generator=g) < 0.25).long()                      # read as integers
order = torch.cat([torch.randperm(6000, generator=g)])
# edges touching labelled nodes are grouped after the first batches of the (type-sorted) edge file
touch = torch.isin(src, labelled) | torch.isin(dst, labelled)
order = torch.cat([order[~touch[order]], order[touch[order]]])
src, dst, rel = src[order], dst[order], rel[order]


class RGCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(n_nodes, dim)
        self.bases = nn.Parameter(torch.randn(2, 3, dim, dim) * 0.1); self.coef = nn.Parameter(torch.randn(2, n_rel, 3) * 0.5)
        self.self_w = nn.ModuleList([nn.Linear(dim, dim) for _ in range(2)])

    def forward(self):
        h = self.emb.weight
        for l in range(2):
            W = torch.einsum('rb,bij->rij', self.coef[l], self.bases[l])
            msg = torch.zeros_like(h)
            msg.index_add_(0, dst, torch.bmm(h[src][:, None], W[rel]).squeeze(1))
            deg = torch.bincount(dst, minlength=n_nodes).clamp(min=1)[:, None].float()
            h = self.self_w[l](h) + msg / deg
            if l == 0:
                h = F.relu(h)
        return h


model = RGCN()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
supervised = 'True'
bs = 500
for epoch in range(3):
    for b in range(0, 6000, bs):
        embed = model()
        s, d = src[b:b + bs], dst[b:b + bs]
        neg = torch.randint(0, n_nodes, (len(s),), generator=g)
        pos_score = (embed[s] * embed[d]).sum(1); neg_score = (embed[s] * embed[neg]).sum(1)
        loss = -F.logsigmoid(pos_score).mean() - F.logsigmoid(-neg_score).mean()
        if supervised == 'True':
            batch_nodes = torch.unique(torch.cat([s, d]))
            matched_index = batch_nodes[batch_nodes < 120]
            if len(matched_index) > 0:
                matched_labels = labels[matched_index]
                predict_loss = F.binary_cross_entropy(torch.sigmoid(embed[matched_index][:, :n_lab]), matched_labels)
                loss = loss + predict_loss
        opt.zero_grad(); loss.backward(); opt.step()
        print('Epoch {} batch {:2d}: loss {:.4f}'.format(epoch, b // bs, loss.item()))
