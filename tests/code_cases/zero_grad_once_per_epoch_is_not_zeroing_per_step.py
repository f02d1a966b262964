import torch

model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
batches = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(5)]
for epoch in range(3):
    opt.zero_grad()
    for x, y in batches:  # expect: zero_grad_called=False
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()

# expect-detail: zero_grad_called: outside the loop
# (from test_zero_grad_once_per_epoch_is_not_zeroing_per_step in the former tests/test_code_reader.py)
