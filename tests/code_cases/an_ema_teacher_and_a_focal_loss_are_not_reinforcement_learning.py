import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.randn(512, 10)
y = torch.randint(0, 4, (512,))
student = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 4))
teacher = copy.deepcopy(student)
opt = torch.optim.Adam(student.parameters(), lr=1e-3)
gamma = 2.0
decay = 0.99


def focal(logits, target):
    ce = F.cross_entropy(logits, target, reduction="none")
    pt = torch.exp(-ce)
    return (0.25 * (1 - pt) ** gamma * ce).mean()


class Trainer:
    def step(self, xb, yb):
        out = student(xb)
        loss = focal(out, yb) + 0.1 * F.mse_loss(out, teacher(xb).detach())
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item(), (out.argmax(1) == yb).float().mean().item(), len(yb)


trainer = Trainer()
ema_out = torch.zeros(64, 4)
for epoch in range(5):
    for i in range(0, 512, 64):
        loss, acc, n = trainer.step(x[i:i + 64], y[i:i + 64])
        with torch.no_grad():
            for pt_, ps in zip(teacher.parameters(), student.parameters()):
                pt_.mul_(decay).add_((1 - decay) * ps)
        ema_out = decay * ema_out + (1 - decay) * student(x[i:i + 64]).detach()
    print(f"epoch {epoch} loss {loss:.4f} acc {acc:.3f}")
# expect-not: rl_training
