import torch

x, y = torch.randn(128, 8), torch.randn(128, 1)
w = torch.zeros(8, 1, requires_grad=True)
opt = torch.optim.Adam([w], lr=1e-2)  # expect: weight_decay=0.0
for step in range(200):
    pred = x @ w
    loss = 0.5 * ((pred - y) ** 2).mean() + 0.1 * torch.norm(w)
    opt.zero_grad()
    loss.backward()
    opt.step()

# (a squared error of the predictions is the data term; a plain norm, not squared, adds no w to the gradient)
