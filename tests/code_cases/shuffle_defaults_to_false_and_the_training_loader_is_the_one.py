import torch
from torch.utils.data import DataLoader, TensorDataset

ds = TensorDataset(torch.randn(40, 3), torch.randn(40, 1))
val_loader = DataLoader(ds, batch_size=40, shuffle=True)
loader = DataLoader(ds, batch_size=8, num_workers=4)  # expect: shuffle=False; batch_size=8; num_workers=4
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(2):
    for x, y in loader:
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()

# expect-detail: shuffle: default
# (from test_shuffle_defaults_to_false_and_the_training_loader_is_the_one_iterated in the former tests/test_code_reader.py)
