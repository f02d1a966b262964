import json

import torch
import torch.nn as nn

with open("config.json") as f:
    cfg = json.load(f)
LR_STEP = cfg["lr_step"]
model = nn.Linear(4, 2)
opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
scheduler = torch.optim.lr_scheduler.StepLR(opt, step_size=LR_STEP, gamma=cfg["lr_gamma"])  # expect: scheduler_designed_per_batch=False
x, y = torch.randn(64, 4), torch.randint(0, 2, (64,))
for epoch in range(cfg["epochs"]):
    for i in range(0, 64, 16):
        opt.zero_grad()
        nn.functional.cross_entropy(model(x[i:i + 16]), y[i:i + 16]).backward()
        opt.step()
        scheduler.step()  # expect: scheduler_step_per_batch=True

# expect-detail: scheduler_designed_per_batch: = 5 is the per-epoch pattern
