import torch

model = torch.nn.Linear(3, 1)
opt = torch.optim.Adam(model.parameters())
for step in range(5):
    x, y = torch.randn(4, 3), torch.randn(4, 1)
    with torch.no_grad():  # expect: graph_cut=True
        pred = model(x)
    loss = torch.nn.functional.mse_loss(pred, y)
    loss.requires_grad_(True)
    opt.zero_grad()
    loss.backward()
    opt.step()

# (from test_no_grad_forward_with_requires_grad_hack_is_a_graph_cut in the former tests/test_code_reader.py)
