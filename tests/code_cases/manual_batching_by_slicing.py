import torch
from torch import nn, optim

torch.manual_seed(1)
X = torch.randn(200, 10)
Y = (X[:, 0] > 0).long()

model = nn.Sequential(
    nn.Linear(10, 32),
    nn.BatchNorm1d(32),
    nn.ReLU(),
    nn.Linear(32, 2),
    nn.LogSoftmax(dim=1),
)
criterion = nn.NLLLoss()
optimizer = optim.Adam(model.parameters())
BATCH = 20

for epoch in range(3):
    perm = torch.arange(len(X))
    model.train()
    for i in range(0, len(X), BATCH):  # expect: shuffle=False
        idx = perm[i:i + BATCH]
        optimizer.zero_grad()
        loss = criterion(model(X[idx]), Y[idx])
        loss.backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        val_loss = criterion(model(X), Y).item()

# (from test_manual_batching_by_slicing in the former tests/test_code_reader.py)
