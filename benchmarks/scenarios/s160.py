# two-stage model: first module picks a discrete "mode" (operating regime) for each sample,
# second module maps the chosen mode to the predicted set-point.
import csv
import torch
import torch.nn as nn

torch.manual_seed(21)
torch.set_num_threads(1)

N_MODES = 6
D = 10

g = torch.Generator().manual_seed(2)
modes_true = torch.randn(N_MODES, D, generator=g) * 2
offsets = torch.linspace(-3, 3, N_MODES)


def sample(n):
    m = torch.randint(0, N_MODES, (n,), generator=g)
    x = modes_true[m] + torch.randn(n, D, generator=g)
    y = offsets[m].unsqueeze(1) + 0.1 * torch.randn(n, 1, generator=g)
    return x, y


x_train, y_train = sample(4000)
x_val, y_val = sample(800)

first_model = nn.Sequential(nn.Linear(D, 32), nn.ReLU(), nn.Linear(32, N_MODES))
second_model = nn.Sequential(nn.Linear(N_MODES, 64), nn.ReLU(), nn.Linear(64, 1))

params = list(first_model.parameters()) + list(second_model.parameters())
optimizer = torch.optim.Adam(params, lr=1e-3)
loss_fn = nn.MSELoss()


def forward(x):
    y_p = first_model(x)
    y_p = torch.max(y_p, 1)[1]
    onehot = torch.zeros(len(x), N_MODES)
    onehot[torch.arange(len(x)), y_p] = 1.0
    return second_model(onehot)


rows = []
step = 0
for epoch in range(30):
    perm = torch.randperm(len(x_train))
    for i in range(0, len(x_train), 100):
        idx = perm[i:i + 100]
        pred = forward(x_train[idx])
        loss = loss_fn(pred, y_train[idx])
        first_model.zero_grad()
        second_model.zero_grad()
        loss.backward()
        optimizer.step()
        step += 1
    with torch.no_grad():
        val_loss = loss_fn(forward(x_val), y_val).item()
    rows.append((step, epoch, loss.item(), val_loss))
    print("[%02d] train mse %.4f | val mse %.4f" % (epoch, loss.item(), val_loss))

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "train_loss", "val_loss"])
    for r in rows:
        w.writerow([r[0], r[1], f"{r[2]:.5f}", f"{r[3]:.5f}"])
