# corr_based_prediction style run in miniature: a small CNN classifier on synthetic "colored digits"
# (10 class templates on 3x12x12 images, colour correlated with the label on the training split and random on
# the test split), cross-entropy + beta * a class-conditional hidden-variance regulariser, Adam lr 1e-3,
# batch 64, 40 iterations per epoch drawn with next(iter(loader)). optimizer.zero_grad() is called once before
# the epoch's loop and never inside it. Prints the same status line per epoch; writes metrics.csv.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(310)

templates = (torch.rand(10, 1, 12, 12, generator=g) > 0.6).float()
palette = torch.rand(10, 3, 1, 1, generator=g) * 0.8 + 0.2


def make(n, p_corr):
    y = torch.randint(0, 10, (n,), generator=g)
    shift = torch.randint(-1, 2, (n, 2), generator=g)
    x = torch.stack([torch.roll(templates[c], (int(s[0]), int(s[1])), (1, 2)) for c, s in zip(y, shift)])
    keep = torch.rand(n, generator=g) < p_corr
    col = torch.where(keep, y, torch.randint(0, 10, (n,), generator=g))
    x = x * palette[col] + 0.25 * torch.randn(n, 3, 12, 12, generator=g)
    return x, y


xtr, ytr = make(4000, 0.9)
xte, yte = make(1000, 0.1)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 3, padding=1)
        self.c2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 3 * 3, 64)
        self.out = nn.Linear(64, 10)

    def forward(self, x, ret_hid=False):
        h = F.max_pool2d(F.relu(self.c1(x)), 2)
        h = F.max_pool2d(F.relu(self.c2(h)), 2)
        hid = F.relu(self.fc(h.flatten(1)))
        o = self.out(hid)
        return (o, hid) if ret_hid else o


def class_var_reg(h, y):
    r = 0.0
    for c in y.unique():
        r = r + h[y == c].var(0, unbiased=False).mean()
    return r / len(y.unique())


model = Net()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
beta = 0.1
rows = []
for epoch in range(1, 16):
    model.train()
    optimizer.zero_grad()
    tot_loss, tot_reg, correct, total = 0.0, 0.0, 0, 0
    for it in range(40):
        idx = torch.randint(0, len(xtr), (64,), generator=g)
        x, y = xtr[idx], ytr[idx]
        out, hid = model(x, ret_hid=True)
        loss = criterion(out, y)
        reg = class_var_reg(hid, y)
        (loss + beta * reg).backward()
        optimizer.step()
        tot_loss += loss.item(); tot_reg += reg.item()
        correct += (out.argmax(1) == y).sum().item(); total += len(y)
    model.eval()
    with torch.no_grad():
        te_out = model(xte)
        te_loss = criterion(te_out, yte).item()
        te_acc = (te_out.argmax(1) == yte).float().mean().item() * 100
    gnorm = sum(p.grad.norm() ** 2 for p in model.parameters()).sqrt().item()
    rows.append(dict(epoch=epoch, train_loss=tot_loss / 40, train_acc=100 * correct / total, test_loss=te_loss,
                     test_acc=te_acc, reg_loss=tot_reg / 40, grad_norm=gnorm))
    print('Epoch {}/{} | Loss {:3.4f} | acc {:3.2f} | test-acc {:3.2f} | reg_loss : {:3.4f}'.format(
        epoch, 15, tot_loss / 40, 100 * correct / total, te_acc, tot_reg / 40))
with open('metrics.csv', 'w', newline='') as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader(); w.writerows(rows)
