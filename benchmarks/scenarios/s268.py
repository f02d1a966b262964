# Household power-consumption forecasting in miniature (Keras-style LSTM regressor): the minute-level
# "Global_active_power" series of a household-power CSV, where missing readings are stored as '?'
# and parsed to NaN. The frame is min-max scaled (NaN passes straight through), windows of 30 steps
# predict the next value, 2-layer LSTM, Adam 1e-3, MSE, batch 64, 6 epochs, validation split 0.1.
# The report: with the first 1000 rows the loss is a number, on the whole 200k-row file loss and
# val_loss print nan.
import math
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(3)

N = 6000
t = torch.arange(N).float()
power = 1.1 + 0.6 * torch.sin(2 * math.pi * t / 1440) + 0.3 * torch.sin(2 * math.pi * t / 97) \
        + 0.25 * torch.randn(N, generator=g).abs()
voltage = 240 + 2 * torch.randn(N, generator=g)
intensity = power * 4.3 + 0.2 * torch.randn(N, generator=g)
df = torch.stack([power, voltage, intensity], 1)
# missing readings ('?' in the csv -> NaN): a few short gaps, the first one after row 1000
for start in [1387, 2950, 4410, 5203]:
    df[start:start + 3] = float('nan')
print('rows: {}, missing values per column: {}'.format(N, torch.isnan(df).sum(0).tolist()))

mn = torch.tensor([df[:, j][~torch.isnan(df[:, j])].min() for j in range(3)])   # pandas-style min/max skip NaN
mx = torch.tensor([df[:, j][~torch.isnan(df[:, j])].max() for j in range(3)])
scaled = (df - mn) / (mx - mn)

W = 30
X = torch.stack([scaled[i:i + W] for i in range(N - W)])
y = scaled[W:, 0:1]
n_val = int(0.1 * len(X))
Xtr, ytr, Xva, yva = X[:-n_val], y[:-n_val], X[-n_val:], y[-n_val:]

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(3, 32, num_layers=2, batch_first=True)
        self.out = nn.Linear(32, 1)
    def forward(self, x):
        h, _ = self.lstm(x)
        return self.out(h[:, -1])

model = Model()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.MSELoss()
steps = math.ceil(len(Xtr) / 64)
for epoch in range(1, 7):
    model.train()
    perm = torch.randperm(len(Xtr))
    tot = 0.0
    for i in range(0, len(Xtr), 64):
        idx = perm[i:i + 64]
        loss = loss_fn(model(Xtr[idx]), ytr[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        tot += loss.item() * len(idx)
    model.eval()
    with torch.no_grad():
        vl = loss_fn(model(Xva), yva).item()
    print('Epoch {}/6'.format(epoch))
    print('{}/{} [==============================] - loss: {:.4f} - val_loss: {:.4f}'.format(steps, steps, tot / len(Xtr), vl))
