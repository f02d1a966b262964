import torch
import torch.nn as nn
import torch.nn.functional as F

backbone = nn.Sequential(nn.Linear(16, 32), nn.BatchNorm1d(32), nn.ReLU())
for p in backbone.parameters():
    p.requires_grad = False
backbone.eval()
head = nn.ModuleDict(dict(fc1=nn.Linear(32, 32), out=nn.Linear(32, 4)))
opt = torch.optim.SGD(head.parameters(), lr=0.01)
X, Y = torch.randn(128, 16), torch.randint(0, 4, (128,))
Xv, Yv = torch.randn(64, 16), torch.randint(0, 4, (64,))
with torch.no_grad():
    F_tr, F_va = backbone(X), backbone(Xv)


def forward(f, train):
    a = F.relu(head['fc1'](f))  # expect: model_mode_in_validation=train; validation_mode_free=True
    if train:
        a = F.dropout(a, 0.5)
    return head['out'](a)


for epoch in range(3):
    for s in range(0, 128, 16):
        loss = F.cross_entropy(forward(F_tr[s:s + 16], True), Y[s:s + 16])
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        acc = (forward(F_va, False).argmax(1) == Yv).float().mean()

# expect-detail: validation_mode_free: its mode changes nothing
