import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(512, 8)
y = (x[:, 0] + 0.5 * torch.randn(512) > 0).float()


def binary_auroc(p, t):
    order = torch.argsort(p)
    ranks = torch.empty_like(p)
    ranks[order] = torch.arange(1, len(p) + 1, dtype=p.dtype)
    n_pos = t.sum()
    n_neg = len(t) - n_pos
    return ((ranks[t == 1].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)).item()


model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.BCEWithLogitsLoss()
for epoch in range(5):
    perm = torch.randperm(512)
    for i in range(0, 512, 64):
        idx = perm[i:i + 64]
        logits = model(x[idx]).squeeze(1)
        loss = criterion(logits, y[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(epoch, loss.item(), binary_auroc(model(x).squeeze(1).detach(), y))
# expect-not: data_sorted
