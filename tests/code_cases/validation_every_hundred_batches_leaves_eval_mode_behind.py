import torch
import torch.nn as nn

x = torch.randn(6400, 16)
y = torch.randint(0, 4, (6400,))
val_x, val_y = torch.randn(128, 16), torch.randint(0, 4, (128,))
model = nn.Sequential(nn.Linear(16, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 4))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=32, shuffle=True)

for epoch in range(10):
    model.train()
    for i, (xb, yb) in enumerate(loader):
        loss = criterion(model(xb), yb)  # expect: model_mode_in_training='eval'
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        # an evaluation in the middle of the epoch: the batches after it train in eval mode
        if i % 100 == 99:
            model.eval()
            with torch.no_grad():
                val_loss = criterion(model(val_x), val_y)
            print(f"epoch {epoch} step {i} loss {loss.item():.4f} val_loss {val_loss.item():.4f}")
