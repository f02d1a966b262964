"""Dense autoencoder compressing 32-d sensor frames that live near a 4-d manifold."""
import csv

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def make_frames(n, generator):
    latent = torch.randn(n, 4, generator=generator)
    mixing = torch.randn(4, 32, generator=torch.Generator().manual_seed(0))
    frames = torch.tanh(latent @ mixing) + 0.05 * torch.randn(n, 32, generator=generator)
    return frames


class AutoEncoder(nn.Module):
    def __init__(self, d=32, bottleneck=6):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d, 64), nn.ReLU(), nn.Linear(64, bottleneck))
        self.decoder = nn.Sequential(nn.Linear(bottleneck, 64), nn.ReLU(), nn.Linear(64, d))

    def forward(self, x):
        return self.decoder(self.encoder(x))


torch.manual_seed(40)
g = torch.Generator().manual_seed(40)
train_frames, val_frames = make_frames(4000, g), make_frames(800, g)
loader = DataLoader(TensorDataset(train_frames), batch_size=64, shuffle=True)

ae = AutoEncoder()
opt = torch.optim.Adam(ae.parameters(), lr=2e-3)
mse = nn.MSELoss()
epochs = 8

log_f = open("metrics.csv", "w", newline="")
log = csv.writer(log_f)
log.writerow(["step", "epoch", "train_loss", "val_loss"])
step = 0
for epoch in range(epochs):
    ae.train()
    for (batch,) in loader:
        opt.zero_grad()
        loss = mse(ae(batch), batch)
        loss.backward()
        opt.step()
        step += 1
        if step % 20 == 0:
            ae.eval()
            with torch.no_grad():
                val = mse(ae(val_frames), val_frames).item()
            ae.train()
            log.writerow([step, epoch, round(loss.item(), 6), round(val, 6)])
    print(f"epoch {epoch + 1}/{epochs}: recon {loss.item():.5f}  val {val:.5f}")
log_f.close()
