import torch
import torch.nn as nn
import torch.nn.functional as F


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(32, 16)
        self.dec = nn.Linear(8, 32)

    def forward(self, x):
        mu, logvar = self.enc(x).chunk(2, dim=1)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.dec(z), mu, logvar


model = VAE()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.rand(128, 32)
for _ in range(3):
    recon, mu, logvar = model(x)
    kl = -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp())
    loss = F.mse_loss(recon, x) + kl  # expect: loss_function=mse; custom_loss=False
    opt.zero_grad()
    loss.backward()
    opt.step()
