# attention CNN-LSTM on mel spectrograms for COVID-19 cough detection in miniature: 160 synthetic cough
# recordings (32 mel bands x 40 frames; each recording has its own speaker / room pattern, positives carry a
# weak class cue; 48 positives), every recording augmented 6 times (time shift, gain, noise) to balance the data,
# then shuffle + train_test_split(test_size=0.2) on the augmented pool, CNN -> LSTM -> attention pooling ->
# sigmoid, Adam 1e-3, batch 32, 12 epochs. Writes metrics.csv (one row per epoch; the final row adds the
# accuracy on 60 new recordings from other people) and prints a line per epoch.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(318)
cue = torch.randn(32, 1, generator=g) * torch.linspace(1, 0, 40).view(1, 40)


def recordings(n, n_pos):
    y = torch.zeros(n); y[:n_pos] = 1
    speaker = torch.randn(n, 32, 40, generator=g).cumsum(2) * 0.25
    x = speaker + 0.2 * y.view(n, 1, 1) * cue + 0.3 * torch.randn(n, 32, 40, generator=g)
    return x, y


def augment(x, k):
    out = []
    for _ in range(k):
        s = int(torch.randint(-3, 4, (1,), generator=g))
        out.append(torch.roll(x, s, 2) * (0.9 + 0.2 * torch.rand(len(x), 1, 1, generator=g))
                   + 0.1 * torch.randn(x.shape, generator=g))
    return torch.cat(out)


xr, yr = recordings(160, 48)
xa, ya = augment(xr, 6), yr.repeat(6)
perm = torch.randperm(len(xa), generator=g)           # split AFTER augmentation
ntest = len(xa) // 5
xte, yte, xtr, ytr = xa[perm[:ntest]], ya[perm[:ntest]], xa[perm[ntest:]], ya[perm[ntest:]]
xnew, ynew = recordings(60, 30)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d((2, 1)),
                                  nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d((2, 1)))
        self.lstm = nn.LSTM(16 * 8, 64, batch_first=True)
        self.att = nn.Linear(64, 1)
        self.out = nn.Linear(64, 1)

    def forward(self, x):
        h = self.conv(x.unsqueeze(1))                   # B x 16 x 8 x 40
        h = self.lstm(h.flatten(1, 2).transpose(1, 2))[0]
        a = torch.softmax(self.att(h), 1)
        return self.out((a * h).sum(1)).squeeze(1)


model = Net()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)


def acc(x, y):
    with torch.no_grad():
        return ((model(x) > 0).float() == y).float().mean().item()


rows = []
for epoch in range(1, 13):
    model.train(); p = torch.randperm(len(xtr), generator=g); tl, nb = 0.0, 0
    for b in range(0, len(p), 32):
        i = p[b:b + 32]
        loss = F.binary_cross_entropy_with_logits(model(xtr[i]), ytr[i])
        opt.zero_grad(); loss.backward(); opt.step(); tl += loss.item(); nb += 1
    model.eval()
    with torch.no_grad():
        tel = F.binary_cross_entropy_with_logits(model(xte), yte).item()
    row = dict(epoch=epoch, train_loss=tl / nb, train_acc=acc(xtr, ytr), test_loss=tel, test_acc=acc(xte, yte),
               new_patients_acc='')
    rows.append(row)
    print(f'Epoch {epoch}/12 - loss: {row["train_loss"]:.4f} - accuracy: {row["train_acc"]:.4f} - '
          f'val_loss: {tel:.4f} - val_accuracy: {row["test_acc"]:.4f}')
rows[-1]['new_patients_acc'] = acc(xnew, ynew)
print(f'accuracy on 60 recordings from new participants: {rows[-1]["new_patients_acc"]:.4f}')
with open('metrics.csv', 'w', newline='') as f:
    wr = csv.DictWriter(f, fieldnames=list(rows[0]))
    wr.writeheader(); wr.writerows(rows)
