import torch
import torch.nn as nn


class ContrastiveLoss(nn.Module):
    def forward(self, a, b):
        a = a / a.norm(dim=1, keepdim=True)  # expect: unsafe_math=['division_without_eps', 'sqrt_of_zero', 'exp_overflow']
        dist = torch.sqrt(((a - b) ** 2).sum(dim=1))
        return torch.exp(dist).mean()


encoder = nn.Linear(6, 4)
loss_fn = ContrastiveLoss()
opt = torch.optim.SGD(encoder.parameters(), lr=0.01)
x1, x2 = torch.randn(8, 6), torch.randn(8, 6)
for _ in range(2):
    loss = loss_fn(encoder(x1), encoder(x2))  # expect: custom_loss=True; loss_function='custom'
    opt.zero_grad()
    loss.backward()
    opt.step()

# expect-detail: loss_function: ContrastiveLoss
# (from test_unsafe_exp_division_and_sqrt_in_a_loss_module in the former tests/test_code_reader.py)
