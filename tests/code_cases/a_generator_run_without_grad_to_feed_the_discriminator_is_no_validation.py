import torch
import torch.nn as nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(8, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 2))
D = nn.Sequential(nn.Linear(2, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.9))
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.9))
real = torch.randn(512, 2) * 0.5 + 1.0

for step in range(50):
    G.train()
    z = torch.randn(64, 8)
    batch = real[torch.randint(0, 512, (64,))]
    opt_d.zero_grad()
    with torch.no_grad():
        fake = G(z)
    d_loss = torch.relu(1 - D(batch)).mean() + torch.relu(1 + D(fake)).mean()
    d_loss.backward()
    opt_d.step()
    opt_g.zero_grad()
    g_loss = -D(G(torch.randn(64, 8))).mean()
    g_loss.backward()
    opt_g.step()
    if step % 10 == 0:
        print(f"step {step} D {d_loss.item():.3f} G {g_loss.item():.3f}")
# expect-not: model_mode_in_validation
