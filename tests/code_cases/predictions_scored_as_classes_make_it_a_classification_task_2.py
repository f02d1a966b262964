import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.MSELoss()
x, y = torch.randn(64, 2), torch.randint(0, 7, (64,)).float()
for step in range(100):
    optimizer.zero_grad()
    pred = model(x).squeeze(1)
    loss = criterion(pred, y)
    loss.backward()
    optimizer.step()
    mae = (pred - y).abs().mean()

# expect-not: task_type
# (from test_predictions_scored_as_classes_make_it_a_classification_task in the former tests/test_code_reader.py)
