# Multi-track music generation in miniature (MuseGAN-style WGAN-GP): the generator maps a 32-d noise
# vector to one bar of a 2-track piano-roll (16 time steps x 24 pitches per track, sigmoid), the critic
# is an MLP; gradient penalty 10, 5 critic steps per generator step, Adam 1e-3 (0.5, 0.9), batch 64.
# Logged like the reference: step, generator loss and the critic (discriminator) loss; every 100
# steps a quality check of 512 generated bars: share of notes in the C-major scale and empty-bar rate.
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(81)

S, P = 16, 24
scale = torch.tensor([0, 2, 4, 5, 7, 9, 11, 12, 14, 16, 17, 19, 21, 23])
in_scale = torch.zeros(P, dtype=torch.bool); in_scale[scale] = True
def real_bars(n):
    roll = torch.zeros(n, 2, S, P)
    root = scale[torch.randint(0, 7, (n,), generator=g)]
    for k in range(n):
        for t in range(0, S, 4):                                          # chord track: triads on beats
            for iv in (0, 4, 7):
                roll[k, 0, t:t + 4, (int(root[k]) + iv) % P] = 1
        mel = scale[torch.randint(0, len(scale), (S // 2,), generator=g)]
        for j in range(S // 2):
            roll[k, 1, 2 * j:2 * j + 2, int(mel[j])] = 1                  # melody track: 8th notes
    return roll
data = real_bars(2048).flatten(1)

G = nn.Sequential(nn.Linear(32, 256), nn.ReLU(), nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 2 * S * P), nn.Sigmoid())
D = nn.Sequential(nn.Linear(2 * S * P, 256), nn.LeakyReLU(0.2), nn.Linear(256, 128), nn.LeakyReLU(0.2), nn.Linear(128, 1))
optG = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.9))
optD = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.9))

def quality():
    with torch.no_grad():
        x = (G(torch.randn(512, 32)) > 0.5).float().view(512, 2, S, P)
    notes = x.sum()
    share = x[..., in_scale].sum() / notes.clamp(min=1)
    empty = (x.sum((2, 3)) == 0).float().mean()
    return share.item(), empty.item()

print(' step | d_loss | g_loss')
for step in range(1, 501):
    for _ in range(5):
        real = data[torch.randint(0, len(data), (64,))]
        fake = G(torch.randn(64, 32)).detach()
        eps = torch.rand(64, 1)
        inter = (eps * real + (1 - eps) * fake).requires_grad_(True)
        grad = torch.autograd.grad(D(inter).sum(), inter, create_graph=True)[0]
        gp = ((grad.norm(2, dim=1) - 1) ** 2).mean()
        d_loss = D(fake).mean() - D(real).mean() + 10 * gp
        optD.zero_grad(); d_loss.backward(); optD.step()
    g_loss = -D(G(torch.randn(64, 32))).mean()
    optG.zero_grad(); g_loss.backward(); optG.step()
    if step % 20 == 0:
        print('{:5d} | {:10.6f} | {:10.6f}'.format(step, d_loss.item(), g_loss.item()))
    if step % 100 == 0:
        sh, em = quality()
        print('  [eval] step {} | in-scale note ratio {:.3f} | empty-bar rate {:.3f}'.format(step, sh, em))
