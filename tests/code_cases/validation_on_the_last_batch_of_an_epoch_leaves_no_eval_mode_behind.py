import torch
import torch.nn as nn

x = torch.randn(640, 16)
y = torch.randint(0, 4, (640,))
val_x, val_y = torch.randn(128, 16), torch.randint(0, 4, (128,))
model = nn.Sequential(nn.Linear(16, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 4))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()
batch_size = 32
n_batches = len(x) // batch_size

for epoch in range(10):
    model.train()
    perm = torch.randperm(len(x))
    for i in range(n_batches):
        idx = perm[i * batch_size:(i + 1) * batch_size]
        loss = criterion(model(x[idx]), y[idx])  # expect: model_mode_in_training='train'
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        # the evaluation runs after the epoch's last batch: the next epoch starts with model.train()
        if i == n_batches - 1:
            model.eval()
            with torch.no_grad():
                val_loss = criterion(model(val_x), val_y)  # expect: model_mode_in_validation='eval'
            print(f"epoch {epoch} loss {loss.item():.4f} val_loss {val_loss.item():.4f}")
