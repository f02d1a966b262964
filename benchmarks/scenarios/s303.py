# honkling-style keyword spotting trainer in miniature (4 commands: go, no, yes, stop): flattened MFCC-like
# features (40 frames x 20 coefficients = 800 values, zero-padded), dense 800-128-64-4 network whose last
# layer has NO softmax, compiled with a Keras/TF.js-style categoricalCrossentropy that expects probabilities:
# it renormalises the outputs by their sum and clips them to [1e-7, 1 - 1e-7] before taking the log.
# Adam 1e-3, batch 32, 15 epochs. Writes metrics.csv and prints per epoch like model.fit.
import csv
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(303)

K = 4


def make(n):
    y = torch.randint(0, K, (n,), generator=g)
    x = torch.randn(n, 40, 20, generator=g) * 0.6
    for i in range(n):
        c = int(y[i]); start = int(torch.randint(0, 12, (1,), generator=g)); ln = int(torch.randint(14, 26, (1,), generator=g))
        x[i, start:start + ln, 3 * c:3 * c + 5] += 1.2
        x[i, start:start + ln, 15 - c] -= 0.8
    return x.flatten(1), y


xtr, ytr = make(2400)
xva, yva = make(600)


def categorical_crossentropy(target, output, eps=1e-7):
    output = output / output.sum(-1, keepdim=True)
    output = output.clamp(eps, 1 - eps)
    return -(target * output.log()).sum(-1).mean()


model = nn.Sequential(nn.Linear(800, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, K))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
rows = []
for epoch in range(1, 16):
    model.train()
    p = torch.randperm(len(xtr), generator=g); tot, corr = 0.0, 0
    for i in range(0, len(xtr), 32):
        idx = p[i:i + 32]
        out = model(xtr[idx])
        loss = categorical_crossentropy(nn.functional.one_hot(ytr[idx], K).float(), out)
        opt.zero_grad(); loss.backward(); opt.step()
        tot += loss.item() * len(idx); corr += (out.argmax(1) == ytr[idx]).sum().item()
    model.eval()
    with torch.no_grad():
        o = model(xva)
        vloss = categorical_crossentropy(nn.functional.one_hot(yva, K).float(), o).item()
        vacc = (o.argmax(1) == yva).float().mean().item()
        neg = (o < 0).float().mean().item()
    print(f'Epoch {epoch}/15 - loss: {tot / len(xtr):.4f} - acc: {corr / len(xtr):.4f} - val_loss: {vloss:.4f} - val_acc: {vacc:.4f}  (negative outputs {100 * neg:.0f}%)')
    rows.append(dict(epoch=epoch, loss=tot / len(xtr), acc=corr / len(xtr), val_loss=vloss, val_acc=vacc,
                     frac_negative_outputs=neg))
with open('metrics.csv', 'w', newline='') as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
