import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(4, 3), nn.Softmax(dim=1))  # expect: output_activation='softmax'
crit = nn.CrossEntropyLoss(label_smoothing=0.1)  # expect: label_smoothing=0.1; regularization=['label_smoothing']
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
for _ in range(3):
    opt.zero_grad()
    crit(model(x), y).backward()
    opt.step()

# expect-detail: output_activation: nn.Softmax(dim=1)
# (from test_softmax_layer_at_the_end_of_sequential_and_in_the_loop in the former tests/test_code_reader.py)
