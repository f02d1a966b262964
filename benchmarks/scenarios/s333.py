# Hybrid DNN acoustic model in miniature, after a CNTK speech DNN recipe: frame classification of synthetic
# 13-dim MFCC-like features with +-2 frames of context (65 inputs, globally mean/variance normalised) into 16
# senone-like classes, a fully connected net with 7 hidden layers of 256 sigmoid units (CNTK SimpleNetworkBuilder
# style, default uniform initialisation), cross-entropy, plain SGD lr 0.1 (momentum 0.9), minibatch 128,
# 10 epochs over 12800 frames, no pretraining. Prints train cross-entropy and frame accuracy, validation frame
# accuracy, and the gradient norm of the first and last hidden layer weights per epoch, writes metrics.csv.
import csv
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(333)
NC, D, CTX, H, DEPTH = 16, 13, 5, 256, 7
centres = torch.randn(NC, D, generator=g) * 1.2


def frames(n):
    y = torch.randint(0, NC, (n,), generator=g)
    x = centres[y][:, None, :] + 0.9 * torch.randn(n, CTX, D, generator=g)  # context frames share the senone
    x = x + 0.6 * torch.randn(n, 1, D, generator=g)                         # speaker/channel offset
    return x.flatten(1), y


Xtr, Ytr = frames(12800)
Xva, Yva = frames(2000)
mu, sd = Xtr.mean(0), Xtr.std(0)
Xtr, Xva = (Xtr - mu) / sd, (Xva - mu) / sd

layers, d = [], D * CTX
for _ in range(DEPTH):
    layers += [nn.Linear(d, H), nn.Sigmoid()]; d = H
model = nn.Sequential(*layers, nn.Linear(d, NC))
first, last = model[0], model[2 * (DEPTH - 1)]
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
lossf = nn.CrossEntropyLoss()
rows = []
for epoch in range(1, 11):
    perm = torch.randperm(len(Xtr), generator=g)
    tl, tc, g1, g7, nb = 0.0, 0, 0.0, 0.0, 0
    for k in range(0, len(Xtr), 128):
        i = perm[k:k + 128]
        out = model(Xtr[i]); loss = lossf(out, Ytr[i])
        opt.zero_grad(); loss.backward()
        g1 += first.weight.grad.norm().item(); g7 += last.weight.grad.norm().item(); nb += 1
        opt.step()
        tl += loss.item() * len(i); tc += (out.argmax(1) == Ytr[i]).sum().item()
    with torch.no_grad():
        va = (model(Xva).argmax(1) == Yva).float().mean().item()
    r = dict(epoch=epoch, train_ce=tl / len(Xtr), train_acc=tc / len(Xtr), val_acc=va, grad_norm_layer1=g1 / nb, grad_norm_layer7=g7 / nb)
    rows.append(r)
    print(f"epoch {epoch:2d} train CE {r['train_ce']:.4f} acc {r['train_acc']:.3f} | val acc {va:.3f} | grad norm layer1 {r['grad_norm_layer1']:.2e} layer7 {r['grad_norm_layer7']:.2e}")
with open('metrics.csv', 'w', newline='') as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
