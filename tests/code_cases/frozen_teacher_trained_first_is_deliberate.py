import torch
import torch.nn as nn
import torch.nn.functional as F

teacher = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 3))
student = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 3))
x, y = torch.randn(64, 8), torch.randint(0, 3, (64,))
t_opt = torch.optim.Adam(teacher.parameters(), lr=1e-3)
for step in range(5):
    t_opt.zero_grad()
    F.cross_entropy(teacher(x), y).backward()
    t_opt.step()
for p in teacher.parameters():
    p.requires_grad_(False)  # expect: frozen_weights='trained_here'
optimizer = torch.optim.Adam(student.parameters(), lr=1e-3)
for step in range(5):
    optimizer.zero_grad()
    loss = F.kl_div(F.log_softmax(student(x), 1), F.softmax(teacher(x), 1), reduction="batchmean")
    loss.backward()
    optimizer.step()

# expect-detail: frozen_weights: an earlier backward pass trained them
