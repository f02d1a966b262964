# Ultra-Fast-Lane-Detection style row-anchor lane classifier in miniature: a small conv backbone (net.model)
# plus a row-anchor classification head (net.cls) on synthetic 32x64 road images with 2 straight lanes,
# cross-entropy over 16 column cells (+1 "no lane") for 8 row anchors per lane, SGD lr 0.05, batch 16.
# Fine-tuning from a checkpoint: only the backbone ("model.*") weights are copied in, then parameters are
# frozen before the optimizer is built. Prints the set-up lines and a line every 10 steps, writes metrics.csv.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(324)
ROWS, CELLS, LANES = 8, 16, 2


def roads(n):
    x = 0.2 * torch.randn(n, 1, 32, 64, generator=g)
    y = torch.full((n, LANES, ROWS), CELLS, dtype=torch.long)
    for i in range(n):
        for l in range(LANES):
            x0 = float(torch.randint(4, 60, (1,), generator=g)); slope = float(torch.randn(1, generator=g)) * 0.6
            for r in range(32):
                c = int(x0 + slope * (r - 16))
                if 0 <= c < 64:
                    x[i, 0, r, c] += 1.0
                    if r % 4 == 2:
                        y[i, l, r // 4] = c // 4
    return x, y


class ParsingNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                   nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.pool = nn.Conv2d(32, 8, 1)
        self.cls = nn.Sequential(nn.Linear(8 * 8 * 16, 128), nn.ReLU(), nn.Linear(128, LANES * ROWS * (CELLS + 1)))

    def forward(self, x):
        f = self.pool(self.model(x)).flatten(1)
        return self.cls(f).view(-1, CELLS + 1, LANES, ROWS)


# "pretrained" checkpoint
ckpt_net = ParsingNet()
torch.save({'model': ckpt_net.state_dict()}, 'ep049.pth')

net = ParsingNet()
model = net
finetune = 'ep049.pth'
if finetune is not None:
    print('finetune from ', finetune)
    state_all = torch.load(finetune)['model']
    state_clip = {k: v for k, v in state_all.items() if 'model' in k}   # only use backbone parameters
    net.load_state_dict(state_clip, strict=False)
    for param in model.parameters():
        param.requires_grad = False
optimizer = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
print('loaded', len(state_clip), 'backbone tensors; parameters:', sum(p.numel() for p in net.parameters()))

rows = []
for step in range(1, 101):
    x, y = roads(16)
    out = net(x)
    loss = F.cross_entropy(out, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    rows.append(dict(step=step, loss=loss.item()))
    if step % 10 == 0:
        print(f'step {step:4d} loss {loss.item():.4f}')
        with open('metrics.csv', 'w', newline='') as f:
            w = csv.DictWriter(f, fieldnames=['step', 'loss']); w.writeheader(); w.writerows(rows)
