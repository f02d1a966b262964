# MAS (Memory Aware Synapses) continual-learning in miniature: a shared MLP feature extractor (fc1, fc2, fc3)
# with one classification head per task on synthetic 10-class Gaussian-mixture tasks (32 features). Task 1 is
# trained first; for task 2 a new head is added and, as in the MAS utilities, the first `no_of_layers` shared
# layers (here 1) are meant to be frozen and the rest trained. SGD lr 0.01 momentum 0.9, batch 32, 5 epochs on
# task 1, 15 epochs on task 2.
# Prints task-2 train loss / accuracy and held-out task-2 and task-1 accuracy per epoch, writes metrics.csv.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(325)


def task(n_train, n_test):
    centers = 0.45 * torch.randn(10, 32, generator=g)
    mix = torch.randn(32, 32, generator=g) / 32 ** 0.5
    def draw(n):
        y = torch.randint(0, 10, (n,), generator=g)
        x = (centers[y] + torch.randn(n, 32, generator=g)) @ mix + 0.3 * torch.randn(n, 32, generator=g)
        return x, y
    return draw(n_train), draw(n_test)


class SharedModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                                      nn.Linear(64, 64), nn.ReLU())
        self.heads = nn.ModuleList([nn.Linear(64, 10)])

    def forward(self, x, t):
        return self.heads[t](self.features(x))


def create_freeze_layers(model, no_of_layers=1):
    """Freeze the first `no_of_layers` shared linear layers; train the remaining layers and the heads."""
    linear = [m for m in model.features if isinstance(m, nn.Linear)]
    freeze = set(id(p) for m in linear[:no_of_layers] for p in m.parameters())
    for p in model.parameters():
        if id(p) in freeze:
            p.requires_grad = True
        else:
            p.requires_grad = False
    return model


def accuracy(model, x, y, t):
    model.eval()
    with torch.no_grad():
        a = (model(x, t).argmax(1) == y).float().mean().item()
    model.train()
    return a


(x1, y1), (x1t, y1t) = task(2000, 500)
(x2, y2), (x2t, y2t) = task(2000, 500)
model = SharedModel()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
for epoch in range(5):
    perm = torch.randperm(2000)
    for i in range(0, 2000, 32):
        idx = perm[i:i + 32]
        loss = F.cross_entropy(model(x1[idx], 0), y1[idx])
        opt.zero_grad(); loss.backward(); opt.step()
print(f'task 1 trained: test acc {accuracy(model, x1t, y1t, 0):.3f}')

model.heads.append(nn.Linear(64, 10))
model = create_freeze_layers(model, no_of_layers=1)
opt = torch.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.01, momentum=0.9)
print('trainable tensors:', [n for n, p in model.named_parameters() if p.requires_grad])
rows = []
for epoch in range(1, 16):
    perm = torch.randperm(2000); tl, tc = 0.0, 0
    for i in range(0, 2000, 32):
        idx = perm[i:i + 32]
        out = model(x2[idx], 1)
        loss = F.cross_entropy(out, y2[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        tl += loss.item() * len(idx); tc += (out.argmax(1) == y2[idx]).sum().item()
    r = dict(epoch=epoch, train_loss=tl / 2000, train_acc=tc / 2000, val_acc=accuracy(model, x2t, y2t, 1),
             task1_acc=accuracy(model, x1t, y1t, 0))
    rows.append(r)
    print(f"epoch {epoch:2d} task2 train loss {r['train_loss']:.4f} acc {r['train_acc']:.3f} | "
          f"task2 test acc {r['val_acc']:.3f} | task1 test acc {r['task1_acc']:.3f}")
with open('metrics.csv', 'w', newline='') as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
