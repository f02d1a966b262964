import numpy as np
import torch
import torch.nn as nn

net = nn.Sequential(nn.Flatten(), nn.Linear(3 * 8 * 8, 64), nn.ReLU(), nn.Linear(64, 5))
crit = nn.CrossEntropyLoss()
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
images, labels = torch.randn(512, 3, 8, 8), torch.randint(0, 5, (512,))


def cut_and_paste(a, b, ratio):
    side = int(8 * np.sqrt(1 - ratio))
    a = a.clone()
    a[:, :, :side, :side] = b[:, :, :side, :side]
    return a


for epoch in range(3):
    for start in range(0, 512, 32):
        xb, yb = images[start:start + 32], labels[start:start + 32]
        partner = torch.randperm(xb.size(0))
        ratio = np.random.beta(1.0, 1.0)
        logits = net(cut_and_paste(xb, xb[partner], ratio))
        loss = ratio * crit(logits, yb) + (1 - ratio) * crit(logits, yb[partner])  # expect: loss_mixes_targets=True
        opt.zero_grad()
        loss.backward()
        opt.step()

# expect-detail: loss_mixes_targets: two targets
