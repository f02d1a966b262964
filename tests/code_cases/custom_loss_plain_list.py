import torch
import torch.nn as nn


class DeepNet(nn.Module):
    def __init__(self, width=8, depth=3):
        super().__init__()
        self.blocks = [nn.Linear(width, width) for _ in range(depth)]  # expect: params_not_in_optimizer=['layers kept in a plain list: self.blocks in DeepNet (line 8); use nn.ModuleList']
        self.head = nn.Linear(width, 1)
        nn.init.zeros_(self.head.weight)  # expect: init_constant=True
        nn.init.zeros_(self.head.bias)

    def forward(self, x):
        for block in self.blocks:
            x = torch.relu(block(x))
        return torch.sigmoid(self.head(x))  # expect: output_activation='sigmoid'


def bce(p, y):
    return -(y * torch.log(p) + (1 - y) * torch.log(1 - p)).mean()  # expect: unsafe_math=['log_without_eps']


model = DeepNet()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(32, 8)
y = (x.sum(dim=1, keepdim=True) > 0).float()
for step in range(5):  # expect: zero_grad_called=False
    p = model(x)
    loss = bce(p, y)  # expect: custom_loss=True; loss_function='custom'
    loss.backward()
    optimizer.step()

# expect-detail: unsafe_math: torch.log(p)
# expect-detail: zero_grad_called: no zero_grad()
# code-case: runnable
# (from test_layers_in_a_plain_list_are_params_not_in_optimizer, test_hand_written_loss_with_log_and_no_eps, test_missing_zero_grad, test_zero_initialised_weights, test_every_fact_is_in_the_vocabulary in the former tests/test_code_reader.py)
