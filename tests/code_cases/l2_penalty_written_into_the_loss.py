import torch
import torch.nn.functional as F

X, y = torch.randn(300, 2), torch.randint(0, 3, (300,))
W = (0.01 * torch.randn(2, 100)).requires_grad_()
b = torch.zeros(1, 100, requires_grad=True)
W2 = (0.01 * torch.randn(100, 3)).requires_grad_()
b2 = torch.zeros(1, 3, requires_grad=True)
step_size, reg = 1.0, 0.1
for i in range(1000):
    scores = F.relu(X @ W + b) @ W2 + b2
    data_loss = F.cross_entropy(scores, y)
    reg_loss = 0.5 * reg * (W * W).sum() + 0.5 * reg * (W2 * W2).sum()  # expect: weight_decay=0.1
    loss = data_loss + reg_loss
    for p in (W, b, W2, b2):
        p.grad = None
    loss.backward()
    with torch.no_grad():
        for p in (W, b, W2, b2):
            p -= step_size * p.grad

# (cs231n's "0.5 * reg * sum(W^2)" with a hand-written update: no optimizer keyword shows the decay)
# expect-detail: weight_decay: L2 penalty
