# SAiD-style audio-to-blendshape denoiser: audio feature encoder + conditional denoising MLP over 32 blendshape coefficients
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(8)
torch.set_num_threads(1)

B, FR, AUD, BS = 8, 120, 120, 32
g = torch.Generator().manual_seed(1)
audio = torch.randn(64, FR, AUD, generator=g)
blend = torch.sigmoid(audio[:, :, :BS] @ torch.randn(BS, BS, generator=g) * 0.3)
T = 100
abar = torch.cumprod(1 - torch.linspace(1e-4, 0.02, T), 0)


class SAID(nn.Module):
    def __init__(self):
        super().__init__()
        self.audio_enc = nn.Linear(AUD, 120)
        self.denoiser = nn.Sequential(nn.Linear(BS + 120 + 1, 256), nn.GELU(), nn.Linear(256, BS))

    def forward(self, noisy, t, aud):
        cond = torch.tanh(self.audio_enc(aud))
        cond += 0.1 * torch.randn_like(cond)              # condition-noise augmentation
        tt = (t.float() / T)[:, None, None].expand(-1, noisy.size(1), 1)
        return self.denoiser(torch.cat([noisy, cond, tt], -1))


model = SAID()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
print("Training started: 64 sequences, batch size", B)
for epoch in range(1, 4):
    for i in range(0, 64, B):
        x0, a = blend[i:i + B], audio[i:i + B]
        t = torch.randint(0, T, (B,))
        eps = torch.randn_like(x0)
        xt = abar[t].sqrt()[:, None, None] * x0 + (1 - abar[t]).sqrt()[:, None, None] * eps
        loss = F.mse_loss(model(xt, t, a), eps)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
