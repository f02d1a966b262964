import torch
import torch.nn as nn

net = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 4))
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30, gamma=0.1)  # expect: lr_final_ratio=0.001; lr_collapse_fraction=0.6
x, y = torch.randn(256, 10), torch.randint(0, 4, (256,))
for epoch in range(100):
    for i in range(0, 256, 32):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(net(x[i:i + 32]), y[i:i + 32])
        loss.backward()
        opt.step()
    sched.step()
