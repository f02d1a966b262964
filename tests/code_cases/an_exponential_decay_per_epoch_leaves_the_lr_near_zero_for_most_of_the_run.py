import torch
import torch.nn as nn

settings = {"lr": 0.01, "decay": 0.6, "epochs": 25}
net = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 4))
opt = torch.optim.SGD(net.parameters(), lr=settings["lr"], momentum=0.9)
sched = torch.optim.lr_scheduler.ExponentialLR(opt, settings["decay"])  # expect: lr_collapse_fraction=0.4
x, y = torch.randn(256, 10), torch.randint(0, 4, (256,))
for epoch in range(settings["epochs"]):
    for i in range(0, 256, 32):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(net(x[i:i + 32]), y[i:i + 32])
        loss.backward()
        opt.step()
    sched.step()

# expect-detail: lr_collapse_fraction: at or below 1% of its start from pass 11 on
# expect-detail: lr_final_ratio: once in each of 25 passes: the last pass runs at
