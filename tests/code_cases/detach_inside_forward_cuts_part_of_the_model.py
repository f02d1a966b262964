import torch
import torch.nn as nn


class TwoStage(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(16, 16)
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        h = self.encoder(x).detach()  # expect: graph_cut=True
        return self.head(h)


net = TwoStage()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
x, y = torch.randn(8, 16), torch.randint(0, 3, (8,))
for _ in range(3):
    opt.zero_grad()
    nn.functional.cross_entropy(net(x), y).backward()
    opt.step()

# expect-detail: graph_cut: .detach()
# (from test_detach_inside_forward_cuts_part_of_the_model in the former tests/test_code_reader.py)
