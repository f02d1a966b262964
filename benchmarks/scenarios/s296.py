# Transfer-learning tutorial in miniature (ants vs bees style): a small conv net whose final fc layer is replaced
# by a 2-class head, all layers fine-tuned with SGD lr 0.001 momentum 0.9, StepLR(step_size=7, gamma=0.1),
# batch 4, 15 epochs. As in the tutorial before its fix, scheduler.step() is called inside the batch loop,
# right after optimizer.step(), so the "every 7 epochs" decay happens every 7 batches.
# Synthetic 3x32x32 images (244 train / 153 val); writes metrics.csv and prints progress.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(296)


def make(n):
    y = torch.randint(0, 2, (n,), generator=g)
    x = torch.randn(n, 3, 32, 32, generator=g) * 0.8
    xs = torch.linspace(-1, 1, 32)
    yy, xx = torch.meshgrid(xs, xs, indexing='ij')
    stripes = torch.sin(6 * xx + 2 * yy)          # "ants": stripes, "bees": blobs
    blob = torch.exp(-((xx - 0.2) ** 2 + (yy + 0.1) ** 2) * 6) * 2 - 0.5
    for i in range(n):
        a = 0.6 + 0.6 * torch.rand(1, generator=g)
        x[i] += a * (stripes if y[i] == 0 else blob)
    return x, y


xtr, ytr = make(244)
xva, yva = make(153)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 3, padding=1); self.b1 = nn.BatchNorm2d(16)
        self.c2 = nn.Conv2d(16, 32, 3, padding=1); self.b2 = nn.BatchNorm2d(32)
        self.c3 = nn.Conv2d(32, 64, 3, padding=1); self.b3 = nn.BatchNorm2d(64)
        self.fc = nn.Linear(64, 1000)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.b1(self.c1(x))), 2)
        x = F.max_pool2d(F.relu(self.b2(self.c2(x))), 2)
        x = F.relu(self.b3(self.c3(x))).mean((2, 3))
        return self.fc(x)


model = Net()
model.fc = nn.Linear(model.fc.in_features, 2)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=7, gamma=0.1)

rows = []
for epoch in range(15):
    print(f'Epoch {epoch}/14'); print('-' * 10)
    model.train()
    perm = torch.randperm(len(xtr), generator=g)
    run_loss, run_correct = 0.0, 0
    for i in range(0, len(xtr), 4):
        idx = perm[i:i + 4]
        inputs, labels = xtr[idx], ytr[idx]
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        scheduler.step()
        run_loss += loss.item() * len(idx)
        run_correct += (outputs.argmax(1) == labels).sum().item()
    tr_loss, tr_acc = run_loss / len(xtr), run_correct / len(xtr)
    model.eval()
    with torch.no_grad():
        out = model(xva)
        va_loss = criterion(out, yva).item()
        va_acc = (out.argmax(1) == yva).float().mean().item()
    lr = optimizer.param_groups[0]['lr']
    print(f'train Loss: {tr_loss:.4f} Acc: {tr_acc:.4f}')
    print(f'val Loss: {va_loss:.4f} Acc: {va_acc:.4f}  (lr {lr:.3e})')
    rows.append(dict(epoch=epoch, train_loss=round(tr_loss, 5), train_acc=round(tr_acc, 4),
                     val_loss=round(va_loss, 5), val_acc=round(va_acc, 4), lr=lr))

with open('metrics.csv', 'w', newline='') as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
print('Best val Acc: {:.4f}'.format(max(r['val_acc'] for r in rows)))
