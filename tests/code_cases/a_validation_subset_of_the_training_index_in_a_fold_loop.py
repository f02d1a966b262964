import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Subset, TensorDataset

ds = TensorDataset(torch.randn(240, 4), torch.randint(0, 2, (240,)))
folds = torch.arange(240).chunk(4)
for k in range(4):
    va_rows = folds[k]
    tr_rows = torch.cat([f for j, f in enumerate(folds) if j != k])
    tr_set = Subset(ds, tr_rows)
    va_set = Subset(ds, tr_rows)  # expect: held_out_from_train_index=True
    m = nn.Linear(4, 2)
    o = torch.optim.SGD(m.parameters(), lr=0.1)
    for x, y in DataLoader(tr_set, batch_size=16, shuffle=True):
        o.zero_grad()
        nn.functional.cross_entropy(m(x), y).backward()
        o.step()
