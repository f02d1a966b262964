import torch
import torch.nn as nn

torch.manual_seed(0)
x = torch.randn(256, 10)
y = torch.randint(0, 3, (256,))
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=32, shuffle=True)


class Trainer:
    def __init__(self, model, optimizer, scheduler, criterion):
        self.model, self.optimizer, self.scheduler, self.criterion = model, optimizer, scheduler, criterion

    def train(self, dataloader, epoch):
        self.model.train()
        total = 0.0
        for inputs, targets in dataloader:
            loss = self.criterion(self.model(inputs), targets)
            loss.backward()
            self.optimizer.step()
            self.scheduler.step()  # expect: scheduler_step_per_batch=True
            self.optimizer.zero_grad()
            total += loss.item()
        return total / len(dataloader)

    __call__ = train


model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.5)
trainer = Trainer(model, optimizer, scheduler, nn.CrossEntropyLoss())
for epoch in range(10):
    print("epoch", epoch, "loss", trainer(loader, epoch))
