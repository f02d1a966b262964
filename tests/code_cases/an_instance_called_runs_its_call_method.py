import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(256, 10)
y = torch.randint(0, 3, (256,))
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=32, shuffle=True)


class Step:
    def __init__(self, model, optimizer):
        self.model, self.optimizer = model, optimizer
        self.criterion = nn.CrossEntropyLoss()

    def __call__(self, inputs, targets):
        loss = self.criterion(self.model(inputs), targets)
        loss.backward()
        self.optimizer.step()
        return loss.item()


model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3))
step = Step(model, torch.optim.Adam(model.parameters(), lr=1e-3))
for epoch in range(5):
    for inputs, targets in loader:  # expect: zero_grad_called=False
        print(step(inputs, targets))
