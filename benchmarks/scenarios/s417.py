# titu1994/Wide-Residual-Networks (Keras) CIFAR-10 training in miniature, ported to PyTorch: a WRN-10-2
# style network (conv -> 3 groups of one pre-activation wide basic block, widths 32/64/128,
# BatchNorm + ReLU, dropout 0.0) on synthetic 3 x 16 x 16 "CIFAR-like" images of 10 classes (a class
# colour/texture template under random shifts, flips, colour jitter and strong noise), 600 training
# and 1000 test images, SGD momentum 0.9 lr 0.05, batch 64, 40 epochs, no data augmentation,
# Keras-style "Epoch n/40 ... loss: ... - acc: ... - val_loss: ... - val_acc: ..." lines.
# As reported for the repository's model, the weight decay of 0.0005 from the WRN paper is missing
# (here: the optimizer runs without weight_decay).
import csv
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(15); torch.manual_seed(15); torch.set_num_threads(1)
tmpl = np.random.randn(10, 3, 8, 8).astype(np.float32)
def make(n):
    y = np.random.randint(0, 10, n); x = np.zeros((n, 3, 16, 16), np.float32)
    for i in range(n):
        t = np.kron(tmpl[y[i]], np.ones((1, 2, 2), np.float32))
        if np.random.rand() < 0.5: t = t[:, :, ::-1]
        t = np.roll(t, tuple(np.random.randint(-3, 4, 2)), (1, 2))
        x[i] = t * np.random.uniform(0.6, 1.4, (3, 1, 1)) + np.random.randn(3, 16, 16) * 1.6
    return torch.tensor(x), torch.tensor(y)
Xtr, ytr = make(600); Xte, yte = make(1000)

class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.bn1 = nn.BatchNorm2d(cin); self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout); self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.sc = nn.Conv2d(cin, cout, 1, stride, bias=False)
    def forward(self, x):
        o = F.relu(self.bn1(x))
        return self.c2(F.relu(self.bn2(self.c1(o)))) + self.sc(o)
model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1, bias=False), Block(16, 32, 1), Block(32, 64, 2), Block(64, 128, 2),
                      nn.BatchNorm2d(128), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)      # weight_decay=0.0005 missing
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['epoch', 'loss', 'acc', 'val_loss', 'val_acc'])
for epoch in range(1, 41):
    model.train(); perm = torch.randperm(600); tl = ta = 0.0
    for i in range(0, 600, 64):
        j = perm[i:i + 64]; out = model(Xtr[j]); loss = F.cross_entropy(out, ytr[j])
        opt.zero_grad(); loss.backward(); opt.step()
        tl += loss.item() * len(j); ta += (out.argmax(1) == ytr[j]).sum().item()
    model.eval()
    with torch.no_grad():
        o = model(Xte); vl = F.cross_entropy(o, yte).item(); va = (o.argmax(1) == yte).float().mean().item()
    print('Epoch %d/40\n600/600 [==============================] - 1s - loss: %.4f - acc: %.4f - val_loss: %.4f - val_acc: %.4f' % (epoch, tl / 600, ta / 600, vl, va))
    wr.writerow([epoch, tl / 600, ta / 600, vl, va])
