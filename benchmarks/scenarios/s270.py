# Traffic-speed forecasting in miniature (STGCN-style: temporal conv -> graph conv over a road graph
# -> temporal conv -> output), 20 sensors, 12 past steps -> speed 3 steps ahead, MSE, Adam lr 1e-3.
# As in the reference main.py, the StepLR(step_size=10, gamma=0.95) scheduler meant for epochs is
# stepped inside the mini-batch loop (after every optimizer.step()), 30 epochs of 120 batches.
import math
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(5)

n_nodes, T = 20, 9000
adj = torch.zeros(n_nodes, n_nodes)
for i in range(n_nodes):
    for j in (i - 1, i + 1, (i + 7) % n_nodes):
        if 0 <= j < n_nodes:
            adj[i, j] = adj[j, i] = 1.0
adj = adj + torch.eye(n_nodes)
dinv = adj.sum(1).rsqrt()
gso = dinv[:, None] * adj * dinv[None, :]

t = torch.arange(T).float()
phase = torch.rand(n_nodes, generator=g) * 2 * math.pi
base = 60 - 15 * (torch.sin(2 * math.pi * t[:, None] / 288 + phase[None]) > 0.6).float()
x = base.clone()
noise = torch.randn(T, n_nodes, generator=g)
for k in range(1, T):
    x[k] = 0.7 * x[k - 1] + 0.3 * base[k] + 1.5 * noise[k]
    x[k] = 0.8 * x[k] + 0.2 * (gso @ x[k])
mean, std = x[:7000].mean(), x[:7000].std()
z = (x - mean) / std
n_his, n_pred = 12, 3
idx_all = torch.arange(0, T - n_his - n_pred)
X = torch.stack([z[i:i + n_his] for i in idx_all]).unsqueeze(1)         # (N, 1, 12, nodes)
Y = torch.stack([z[i + n_his + n_pred - 1] for i in idx_all])           # (N, nodes)
Xtr, Ytr = X[:6000], Y[:6000]
Xva, Yva = X[7000:8000], Y[7000:8000]

class STBlock(nn.Module):
    def __init__(self, c_in, c_mid, c_out):
        super().__init__()
        self.t1 = nn.Conv2d(c_in, 2 * c_mid, (3, 1))
        self.theta = nn.Linear(c_mid, c_mid)
        self.t2 = nn.Conv2d(c_mid, c_out, (3, 1))
        self.ln = nn.LayerNorm([n_nodes, c_out])
    def forward(self, x):
        a, b = self.t1(x).chunk(2, 1)
        x = a * torch.sigmoid(b)                                          # GLU temporal conv
        x = torch.einsum('ij,bctj->bcti', gso, x)
        x = torch.relu(self.theta(x.permute(0, 2, 3, 1))).permute(0, 3, 1, 2)
        x = torch.relu(self.t2(x))
        return self.ln(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)

class STGCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.b1 = STBlock(1, 16, 32)
        self.out_t = nn.Conv2d(32, 32, (8, 1))
        self.fc = nn.Linear(32, 1)
    def forward(self, x):
        x = self.b1(x)
        x = torch.relu(self.out_t(x)).squeeze(2).permute(0, 2, 1)
        return self.fc(x).squeeze(-1)

model = STGCN()
loss_fn = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-4)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.95)
batch_size = 50
for epoch in range(30):
    model.train()
    l_sum, n = 0.0, 0
    perm = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr), batch_size):
        idx = perm[i:i + batch_size]
        y_pred = model(Xtr[idx])
        l = loss_fn(y_pred, Ytr[idx])
        optimizer.zero_grad()
        l.backward()
        optimizer.step()
        scheduler.step()
        l_sum += l.item() * len(idx); n += len(idx)
    model.eval()
    with torch.no_grad():
        val_loss = loss_fn(model(Xva), Yva).item()
    print('Epoch: {:03d} | Lr: {:.20f} |Train loss: {:.6f} | Val loss: {:.6f}'.format(
        epoch + 1, optimizer.param_groups[0]['lr'], l_sum / n, val_loss))
