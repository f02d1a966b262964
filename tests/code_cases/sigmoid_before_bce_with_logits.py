import torch
import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.out = nn.Linear(12, 6)

    def forward(self, x):
        return torch.sigmoid(self.out(x))  # expect: output_activation='sigmoid'


model = Tagger()
criterion = nn.BCEWithLogitsLoss()  # expect: loss_function='bce_with_logits'
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
x, y = torch.randn(16, 12), (torch.rand(16, 6) > 0.5).float()
for _ in range(3):
    optimizer.zero_grad()
    criterion(model(x), y).backward()
    optimizer.step()

# (from test_sigmoid_before_bce_with_logits in the former tests/test_code_reader.py)
