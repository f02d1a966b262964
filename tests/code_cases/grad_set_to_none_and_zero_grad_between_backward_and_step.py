import torch

model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(10):
    x, y = torch.randn(4, 3), torch.randn(4, 1)
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.zero_grad()  # expect: zero_grad_called=True
    opt.step()  # expect: grads_cleared_before_step=True

# expect-detail: grads_cleared_before_step: opt.zero_grad()
# (from test_grad_set_to_none_and_zero_grad_between_backward_and_step in the former tests/test_code_reader.py)
