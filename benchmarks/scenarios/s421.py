# FGVC-Aircraft fine-grained classification in miniature (torchvision.datasets.FGVCAircraft-style dataset
# whose samples come out ordered by class: _labels = [0, 0, ..., 1, 1, ..., 99, 99]); here 20 variants,
# 40 training and 20 test images each, synthetic 3 x 32 x 32 images (class template + shifts, colour
# jitter, noise), a small ResNet-style CNN (BatchNorm, 3 stages, global pooling), SGD lr 0.05 momentum 0.9
# weight decay 5e-4, batch 32, 12 epochs, "Epoch [e/12] Step [i/25] Loss: ..." every 5 steps and
# "Epoch [e/12] train loss ... train acc ... | test loss ... test acc ..." after each epoch.
# The training DataLoader is built as DataLoader(train_set, batch_size=32, shuffle=False), so every epoch
# walks the classes in order 0, 0, ..., 19, 19 and each batch holds one or two variants.
import csv
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader

np.random.seed(422); torch.manual_seed(422); torch.set_num_threads(1)
C, NTR, NTE = 20, 40, 20
tmpl = np.random.randn(C, 3, 32, 32).astype(np.float32)
tmpl = np.stack([np.stack([np.convolve(r, np.ones(5) / 5, 'same') for r in ch.reshape(-1, 32)]).reshape(32, 32) for t in tmpl for ch in t]).reshape(C, 3, 32, 32)
tmpl = tmpl / tmpl.std()
def make(n):
    X, Y = [], []
    for c in range(C):                      # ordered by class, as the dataset stores them
        for _ in range(n):
            x = np.roll(tmpl[c], (np.random.randint(-3, 4), np.random.randint(-3, 4)), (1, 2))
            x = x * np.random.uniform(0.7, 1.3, (3, 1, 1)) + 1.6 * np.random.randn(3, 32, 32)
            X.append(x.astype(np.float32)); Y.append(c)
    return torch.tensor(np.array(X)), torch.tensor(Y)
Xtr, Ytr = make(NTR); Xte, Yte = make(NTE)
print('FGVCAircraft(train): %d samples, %d classes; first labels: %s ...' % (len(Ytr), C, Ytr[:50].tolist()))
train_loader = DataLoader(TensorDataset(Xtr, Ytr), batch_size=32, shuffle=False)
test_loader = DataLoader(TensorDataset(Xte, Yte), batch_size=100, shuffle=False)

class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False); self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False); self.b2 = nn.BatchNorm2d(cout)
        self.sc = nn.Sequential() if stride == 1 and cin == cout else nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
    def forward(self, x):
        return F.relu(self.b2(self.c2(F.relu(self.b1(self.c1(x))))) + self.sc(x))
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.layers = nn.Sequential(Block(16, 16, 1), Block(16, 32, 2), Block(32, 64, 2))
        self.fc = nn.Linear(64, C)
    def forward(self, x):
        return self.fc(F.adaptive_avg_pool2d(self.layers(self.stem(x)), 1).flatten(1))

model = Net(); criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['epoch', 'step', 'loss', 'train_loss', 'train_acc', 'test_loss', 'test_acc'])
E = 12; n = len(train_loader); gstep = 0
for epoch in range(1, E + 1):
    model.train(); tl, tc, tn = 0.0, 0, 0
    for i, (x, y) in enumerate(train_loader, 1):
        out = model(x); loss = criterion(out, y)
        optimizer.zero_grad(); loss.backward(); optimizer.step(); gstep += 1
        tl += loss.item() * len(y); tc += (out.argmax(1) == y).sum().item(); tn += len(y)
        if i % 5 == 0:
            print('Epoch [%d/%d] Step [%d/%d] Loss: %.4f' % (epoch, E, i, n, loss.item()))
            wr.writerow([epoch, gstep, loss.item(), '', '', '', ''])
    model.eval(); vl, vc = 0.0, 0
    with torch.no_grad():
        for x, y in test_loader:
            o = model(x); vl += F.cross_entropy(o, y, reduction='sum').item(); vc += (o.argmax(1) == y).sum().item()
        pred = model(Xte).argmax(1)
    print('Epoch [%d/%d] train loss %.4f train acc %.4f | test loss %.4f test acc %.4f | test predictions per class: %s'
          % (epoch, E, tl / tn, tc / tn, vl / len(Yte), vc / len(Yte), torch.bincount(pred, minlength=C).tolist()))
    wr.writerow([epoch, gstep, '', tl / tn, tc / tn, vl / len(Yte), vc / len(Yte)])
