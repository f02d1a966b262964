import torch
import torch.nn as nn

# a 3D box regressor's orientation term (after a KITTI Deep3DBox port): the negated mean cosine
# between predicted and true angles, divided by a batch size unpacked from .size() — a value that
# can be below zero, added to stock losses
model = nn.Linear(4, 6)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
mse = nn.MSELoss()


def orientation_loss(orient, angle_diff):
    [batch, bins] = orient.size()
    total = torch.sum(torch.cos(angle_diff) * orient, dim=1)
    return -torch.sum(total) / batch


for step in range(10):
    x, y, a = torch.randn(8, 4), torch.randn(8, 6), torch.randn(8, 6)
    out = model(x)
    loss = mse(out, y) + 0.5 * orientation_loss(out, a)  # expect: loss_own_terms_signed=True
    opt.zero_grad()
    loss.backward()
    opt.step()
