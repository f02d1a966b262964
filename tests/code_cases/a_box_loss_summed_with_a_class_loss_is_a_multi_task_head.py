import torch
import torch.nn as nn
import torch.nn.functional as F

head = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 9))
optimizer = torch.optim.SGD(head.parameters(), lr=1e-3, momentum=0.9)
x, boxes, classes = torch.randn(256, 64), torch.randn(256, 4), torch.randint(0, 5, (256,))
for step in range(100):
    out = head(x)
    loc = F.smooth_l1_loss(out[:, :4], boxes)  # expect: loss_mixes_tasks=True
    cls = F.cross_entropy(out[:, 4:], classes)
    optimizer.zero_grad()
    (loc + cls).backward()
    optimizer.step()
    acc = (out[:, 4:].argmax(1) == classes).float().mean()

# expect-detail: loss_mixes_tasks: a classification term
