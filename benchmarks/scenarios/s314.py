# DeepReflect style autoencoder in miniature: each sample is a 64 x 18 matrix of per-basic-block features of a
# benign binary (synthetic counts: instruction categories, API-call flags, structural counts), normalised by
# dividing every feature by its maximum over the training set, then a 1D conv autoencoder is trained to
# reconstruct it (Adam 1e-3, MSE, batch 32, 8 epochs). One feature column (a rare API-call category) is zero
# in every training sample, so its maximum is 0 and the normalisation writes 0/0 into it. Prints a Keras-like
# line per epoch; writes metrics.csv.
import csv
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(314)
N, B, Fe = 1200, 64, 18
rate = torch.rand(Fe, generator=g) * 6 + 0.5
X = torch.poisson(rate.expand(N, B, Fe).contiguous(), generator=g)
X[:, :, 11] = 0.0                                  # feature never present in the benign training set
X[:, 40:, :] *= (torch.rand(N, 1, 1, generator=g) > 0.5).float()   # padded functions
maxv = X.amax(dim=(0, 1))
Xn = X / maxv                                      # 0 / 0 -> nan in column 11
print('features with max 0:', [i for i, m in enumerate(maxv.tolist()) if m == 0],
      '| nan entries after normalisation:', int(torch.isnan(Xn).sum()))
xtr, xva = Xn[:1000], Xn[1000:]


class AE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv1d(Fe, 32, 3, padding=1), nn.ReLU(), nn.Conv1d(32, 16, 3, padding=1,
                                 stride=2), nn.ReLU())
        self.dec = nn.Sequential(nn.ConvTranspose1d(16, 32, 2, stride=2), nn.ReLU(), nn.Conv1d(32, Fe, 3,
                                 padding=1), nn.Sigmoid())

    def forward(self, x):
        return self.dec(self.enc(x.transpose(1, 2))).transpose(1, 2)


model = AE()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
rows = []
for epoch in range(1, 9):
    perm = torch.randperm(1000, generator=g)
    tl, nb = 0.0, 0
    for b in range(0, 1000, 32):
        x = xtr[perm[b:b + 32]]
        loss = ((model(x) - x) ** 2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
        tl += loss.item(); nb += 1
        if epoch == 1 and nb <= 5:
            wn = sum(float(p.detach().norm()) for p in model.parameters())
            rows.append(dict(epoch=epoch, batch=nb, loss=loss.item(), mse=loss.item(), weight_norm_sum=wn,
                             val_loss='', val_mse=''))
    with torch.no_grad():
        vl = ((model(xva) - xva) ** 2).mean().item()
    wn = sum(float(p.detach().norm()) for p in model.parameters())
    rows.append(dict(epoch=epoch, batch=nb, loss=tl / nb, mse=tl / nb, weight_norm_sum=wn, val_loss=vl, val_mse=vl))
    print(f'Epoch {epoch}/8 - {nb} steps - loss: {tl / nb:.4f} - mse: {tl / nb:.4f} - val_loss: {vl:.4f} '
          f'- val_mse: {vl:.4f}')
with open('metrics.csv', 'w', newline='') as f:
    wr = csv.DictWriter(f, fieldnames=list(rows[0]))
    wr.writeheader(); wr.writerows(rows)
