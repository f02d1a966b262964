# "PyTorch for audio" urban-sound classifier in miniature: a 4-block CNN (16-32-64-128 channels) on
# log-mel-spectrogram-like inputs (1 x 32 x 32, 10 synthetic sound classes), flatten -> linear -> nn.Softmax,
# trained with nn.CrossEntropyLoss (which applies log-softmax itself), Adam lr 0.001, batch 128, 10 epochs,
# as in the course code. Writes metrics.csv and prints the per-epoch loss like the course's train().
import csv
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(297)

N_CLASSES = 10


def make(n):
    y = torch.randint(0, N_CLASSES, (n,), generator=g)
    x = torch.randn(n, 1, 32, 32, generator=g) * 0.5
    t = torch.arange(32).float()
    for i in range(n):
        c = int(y[i])
        band = 2 + 3 * c                                # each class excites its own mel band
        rate = 0.3 + 0.15 * (c % 4)                     # with a class-specific temporal modulation
        env = 0.5 + 0.5 * torch.sin(rate * t + float(torch.rand(1, generator=g)) * 6)
        x[i, 0, band:band + 3, :] += 1.5 * env
    return x, y


xtr, ytr = make(2000)
xte, yte = make(500)


class CNNNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, 1, 2), nn.ReLU(), nn.MaxPool2d(2))
        self.conv1, self.conv2, self.conv3, self.conv4 = block(1, 16), block(16, 32), block(32, 64), block(64, 128)
        self.flatten = nn.Flatten()
        self.linear = nn.Linear(128 * 3 * 3, N_CLASSES)
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x):
        x = self.conv4(self.conv3(self.conv2(self.conv1(x))))
        logits = self.linear(self.flatten(x))
        return self.softmax(logits)


cnn = CNNNetwork()
loss_fn = nn.CrossEntropyLoss()
optimiser = torch.optim.Adam(cnn.parameters(), lr=0.001)
rows = []
for epoch in range(10):
    print(f'Epoch {epoch + 1}')
    cnn.train()
    perm = torch.randperm(len(xtr), generator=g)
    tot, n = 0.0, 0
    for i in range(0, len(xtr), 128):
        idx = perm[i:i + 128]
        prediction = cnn(xtr[idx])
        loss = loss_fn(prediction, ytr[idx])
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        tot += loss.item() * len(idx); n += len(idx)
    cnn.eval()
    with torch.no_grad():
        p = cnn(xte)
        te_loss = loss_fn(p, yte).item()
        te_acc = (p.argmax(1) == yte).float().mean().item()
        tr_acc = (cnn(xtr).argmax(1) == ytr).float().mean().item()
    print(f'loss: {loss.item():.6f}  (epoch mean {tot / n:.6f})  test loss {te_loss:.6f}  test acc {te_acc:.4f}')
    print('---------------------------')
    rows.append(dict(epoch=epoch + 1, train_loss=round(tot / n, 6), last_batch_loss=round(loss.item(), 6),
                     train_acc=round(tr_acc, 4), test_loss=round(te_loss, 6), test_acc=round(te_acc, 4)))

with open('metrics.csv', 'w', newline='') as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
print('Finished training')
