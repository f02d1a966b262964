import torch

model = torch.nn.Sequential(torch.nn.Linear(4, 1), torch.nn.Sigmoid())
opt = torch.optim.Adam(model.parameters())
eps = 1e-7
x, y = torch.randn(8, 4), torch.rand(8, 1).round()
for _ in range(3):
    p = model(x).clamp(eps, 1 - eps)
    loss = -(y * torch.log(p) + (1 - y) * torch.log(1 - p + eps)).mean()
    opt.zero_grad()
    loss.backward()  # expect: custom_loss=True; unsafe_math=[]
    opt.step()

# (from test_guarded_log_is_safe in the former tests/test_code_reader.py)
