# Omics phenotype classification in miniature (AutoXAI4Omics-style tabular pipeline): 600 samples x 500
# gene-expression features, binary condition. The pipeline shuffles and splits the samples, then the
# target column is re-attached positionally from the metadata frame, whose rows are still in the
# original (unshuffled) order, so after the split the labels no longer belong to their feature rows.
# A Keras-like MLP (256-64-2, dropout 0.2), Adam 1e-3, batch 32, 25 epochs.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(23)

n, p = 600, 500
condition = torch.randint(0, 2, (n,), generator=g)                       # metadata (original order)
X = torch.randn(n, p, generator=g)
X[:, :40] += 0.9 * (2 * condition[:, None].float() - 1)                 # 40 marker genes
sample_ids = torch.arange(n)

perm = torch.randperm(n, generator=g)                                    # shuffle + split (features)
X_shuf = X[perm]
n_tr = 480
x_train, x_test = X_shuf[:n_tr], X_shuf[n_tr:]
y_all = condition.clone()                                                # target taken from metadata...
y_train, y_test = y_all[:n_tr], y_all[n_tr:]                             # ...positionally, not re-indexed by perm
mu, sd = x_train.mean(0), x_train.std(0)
x_train, x_test = (x_train - mu) / sd, (x_test - mu) / sd
print('train class balance: {:.3f}, test class balance: {:.3f}'.format(y_train.float().mean().item(), y_test.float().mean().item()))

model = nn.Sequential(nn.Linear(p, 256), nn.ReLU(), nn.Dropout(0.2), nn.Linear(256, 64), nn.ReLU(),
                      nn.Dropout(0.2), nn.Linear(64, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(1, 26):
    model.train()
    order = torch.randperm(n_tr); tl, tc = 0.0, 0
    for i in range(0, n_tr, 32):
        idx = order[i:i + 32]
        out = model(x_train[idx])
        loss = F.cross_entropy(out, y_train[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        tl += loss.item() * len(idx); tc += (out.argmax(1) == y_train[idx]).sum().item()
    model.eval()
    with torch.no_grad():
        vo = model(x_test)
        vl = F.cross_entropy(vo, y_test).item(); va = (vo.argmax(1) == y_test).float().mean().item()
    print('Epoch {}/25 - loss: {:.4f} - accuracy: {:.4f} - val_loss: {:.4f} - val_accuracy: {:.4f}'.format(
        epoch, tl / n_tr, tc / n_tr, vl, va))
