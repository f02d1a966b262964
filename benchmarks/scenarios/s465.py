# yangze0930/NTS-Net-style fine-grained training in miniature: a small ResNet-like backbone
# (conv-BatchNorm-ReLU stages, global average pooling, fc), SGD lr 0.01 momentum 0.9 weight decay
# 1e-4, BATCH_SIZE from config (here 8), train loop with net.train() and, after every epoch, the
# repository-style test pass over the test loader (shuffle=False, test images listed class by class
# as in CUB-200's images.txt order), printing "epoch:N - train loss: ... and train acc: ... total sample: ..."
# and "epoch:N - test loss: ... and test acc: ... total sample: ...". 12 classes of synthetic 32 x 32
# "bird" images (a coarse colour pattern per class plus noise and shifts), 960 training and 240
# test images, 5 epochs.
import csv
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(11); torch.manual_seed(11); torch.set_num_threads(1)
BATCH_SIZE = 8
n_classes = 12
proto = np.random.rand(n_classes, 3, 8, 8).astype(np.float32)
def make_set(n_per_class, shuffle):
    X, y = [], []
    for c in range(n_classes):
        for _ in range(n_per_class):
            img = np.kron(proto[c], np.ones((4, 4), np.float32)) + np.random.randn(3, 32, 32).astype(np.float32) * 0.35
            img = np.roll(img, np.random.randint(-3, 4), axis=2)
            X.append(img * np.random.uniform(0.7, 1.3)); y.append(c)
    X, y = torch.tensor(np.stack(X)), torch.tensor(y)
    if shuffle:
        p = torch.randperm(len(y)); X, y = X[p], y[p]
    return X, y
trainset = make_set(80, shuffle=False); testset = make_set(20, shuffle=False)   # class-ordered lists

def block(cin, cout, stride):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(block(3, 12, 1), block(12, 24, 2), block(24, 48, 2))
        self.fc = nn.Linear(48, n_classes)
    def forward(self, x):
        return self.fc(self.features(x).mean((2, 3)))

net = Net()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'step', 'loss', 'train_loss', 'train_acc', 'test_loss', 'test_acc'])
step = 0
for epoch in range(1, 6):
    net.train()
    perm = torch.randperm(len(trainset[1]))
    train_loss = train_correct = 0.0
    for b in range(0, len(perm), BATCH_SIZE):
        idx = perm[b:b + BATCH_SIZE]
        img, label = trainset[0][idx], trainset[1][idx]
        optimizer.zero_grad()
        logits = net(img)
        loss = criterion(logits, label)
        loss.backward(); optimizer.step(); step += 1
        train_loss += loss.item() * len(label); train_correct += (logits.argmax(1) == label).sum().item()
        if step % 30 == 0:
            wr.writerow([epoch, step, loss.item(), '', '', '', ''])
    n = len(perm)
    print('epoch:{} - train loss: {:.3f} and train acc: {:.3f} total sample: {}'.format(epoch, train_loss / n, train_correct / n, n), flush=True)
    # evaluate on test set
    with torch.no_grad():
        X, Y = testset
        test_loss = test_correct = 0.0
        for b in range(0, len(Y), BATCH_SIZE):
            img, label = X[b:b + BATCH_SIZE], Y[b:b + BATCH_SIZE]
            logits = net(img)
            test_loss += criterion(logits, label).item() * len(label)
            test_correct += (logits.argmax(1) == label).sum().item()
        print('epoch:{} - test loss: {:.3f} and test acc: {:.3f} total sample: {}'.format(
            epoch, test_loss / len(Y), test_correct / len(Y), len(Y)), flush=True)
    wr.writerow([epoch, step, '', train_loss / n, train_correct / n, test_loss / len(Y), test_correct / len(Y)]); f.flush()
