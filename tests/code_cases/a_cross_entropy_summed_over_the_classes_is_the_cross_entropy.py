import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 5))
opt = torch.optim.SGD(model.parameters(), lr=1e-2)
eye = torch.eye(5)

for step in range(20):
    x, y = torch.randn(32, 16), torch.randint(0, 5, (32,))
    log_probs = torch.log_softmax(model(x), dim=-1)
    loss = -(log_probs * eye[y]).sum(dim=-1).mean()
    per_class = (log_probs * eye[y]).mean(0)
    opt.zero_grad()
    loss.backward()
    opt.step()
# expect-not: loss_averages_classes
