# Next-day return forecasting in miniature (walk-forward style, pred_len = 1): a PatchTST-like model
# reads 32 days of 6 engineered features of a stock and predicts the next day's return. The model
# head returns shape (B, 1) while the loader yields the target with shape (B,), and the criterion is
# nn.MSELoss(); the UserWarning about the target size is emitted once by PyTorch. AdamW 1e-3, batch 64,
# 15 epochs; reported: train/val MSE and directional accuracy on the validation period.
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(17)

T, F_ = 5200, 6
lat = torch.zeros(T)
eps = torch.randn(T, generator=g)
for k in range(1, T):
    lat[k] = 0.95 * lat[k - 1] + 0.3 * eps[k]
feats = torch.stack([lat + 0.3 * torch.randn(T, generator=g) for _ in range(3)]
                    + [torch.randn(T, generator=g) for _ in range(3)], 1)
ret = 0.5 * lat + 0.4 * torch.randn(T, generator=g)                      # next-day return, in %
L = 32
X = torch.stack([feats[i:i + L] for i in range(T - L)])
y = ret[L:]                                                               # shape (N,)
Xtr, ytr, Xva, yva = X[:4000], y[:4000], X[4000:], y[4000:]

class PatchModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.patch = nn.Linear(8 * F_, 64)
        self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(64, 4, 128, 0.1, batch_first=True), 2)
        self.head = nn.Linear(64 * 4, 1)                                  # pred_len = 1 -> (B, 1)
    def forward(self, x):
        p = x.reshape(x.size(0), 4, 8 * F_)
        h = self.enc(self.patch(p))
        return self.head(h.flatten(1))

model = PatchModel()
criterion = nn.MSELoss()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-2)
for epoch in range(1, 16):
    model.train()
    perm = torch.randperm(len(Xtr)); tot, n = 0.0, 0
    for i in range(0, len(Xtr), 64):
        idx = perm[i:i + 64]
        x_batch, y_batch = Xtr[idx], ytr[idx]
        pred = model(x_batch)
        loss = criterion(pred, y_batch)
        opt.zero_grad(); loss.backward(); opt.step()
        tot += loss.item() * len(idx); n += len(idx)
    model.eval()
    with torch.no_grad():
        pv = model(Xva)
        val_loss = criterion(pv, yva).item()
        dir_acc = ((pv.squeeze(1) > 0) == (yva > 0)).float().mean().item()
        pred_std = pv.std().item()
    print('epoch {:2d} | train_loss {:.4f} | val_loss {:.4f} | val_dir_acc {:.3f} | pred_std {:.4f}'.format(
        epoch, tot / n, val_loss, dir_acc, pred_std))
