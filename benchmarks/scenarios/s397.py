# LRCN human-activity recognition in miniature (CNN per-frame features -> LSTM -> classifier),
# ported to synthetic data: 12 activity classes, clips of 10 frames, each frame a 96-d "CNN
# feature" vector (class-specific motion pattern over time, shared scene features, noise);
# 3000 training / 600 test clips. LSTM(96 -> 128), last hidden state -> Linear -> Softmax,
# nn.CrossEntropyLoss, Adam 1e-3, batch 32, 12 epochs.
import time
import torch, torch.nn as nn

torch.manual_seed(0); torch.set_num_threads(1)
C, T, D = 12, 10, 96
g = torch.Generator().manual_seed(5)
motion = torch.randn(C, T, D, generator=g) * 0.35
scene = torch.randn(6, D, generator=g)
def make(n):
    y = torch.randint(0, C, (n,), generator=g)
    s = scene[torch.randint(0, 6, (n,), generator=g)][:, None, :]
    phase = torch.randint(0, 3, (n,), generator=g)
    m = torch.stack([torch.roll(motion[c], int(p), 0) for c, p in zip(y, phase)])
    return m + s + torch.randn(n, T, D, generator=g) * 1.7, y
xtr, ytr = make(3000); xte, yte = make(600)

class ConvLstm(nn.Module):
    def __init__(self, latent_dim=96, hidden_size=128, n_class=C):
        super().__init__()
        self.lstm = nn.LSTM(latent_dim, hidden_size, batch_first=True)
        self.output_layer = nn.Sequential(nn.Linear(hidden_size, n_class), nn.Softmax(dim=-1))
    def forward(self, x):
        out, _ = self.lstm(x)
        return self.output_layer(out[:, -1])

model = ConvLstm()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(12):
    t0 = time.time(); model.train(); perm = torch.randperm(len(xtr)); tl = tc = 0.0
    for i in range(0, len(xtr), 32):
        j = perm[i:i + 32]
        out = model(xtr[j]); loss = criterion(out, ytr[j])
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        tl += loss.item() * len(j); tc += (out.argmax(1) == ytr[j]).sum().item()
    model.eval()
    with torch.no_grad():
        o = model(xte); vl = criterion(o, yte).item(); va = (o.argmax(1) == yte).float().mean().item()
    print('Epoch: %d  train loss: %.4f  train acc: %.2f%%  |  test loss: %.4f  test acc: %.2f%%  (%.1fs)' % (
        epoch, tl / len(xtr), 100 * tc / len(xtr), vl, 100 * va, time.time() - t0))
