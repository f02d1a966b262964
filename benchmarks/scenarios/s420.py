# MorvanZhou-style "GAN fits a sine painting" example as posted in pytorch/pytorch issue 39141
# (PyTorch 1.5): generator G (5 random ideas -> 128 ReLU -> 15 points) and discriminator D
# (15 -> 128 ReLU -> 1 sigmoid), Adam lr 1e-4 for both, batch 64, target "paintings" are
# sin(pi * x) on 15 points in [-1, 1] plus noise. The loop computes D_loss and G_loss from the same
# forward pass, then runs opt_D.step() before G_loss.backward(): D's weights, which G_loss's graph
# still needs, have been modified in place by the optimizer, so the first step fails with
# "RuntimeError: one of the variables needed for gradient computation has been modified by an
# inplace operation" (PyTorch >= 1.5 checks this; older versions silently used the new weights).
import numpy as np
import torch, torch.nn as nn

torch.manual_seed(1); np.random.seed(1); torch.set_num_threads(1)
BATCH_SIZE = 64
LR_G = 0.0001
LR_D = 0.0001
N_IDEAS = 5
ART_COMPONENTS = 15
PAINT_POINTS = np.vstack([np.linspace(-1, 1, ART_COMPONENTS) for _ in range(BATCH_SIZE)])

def artist_works():
    r = 0.02 * np.random.randn(1, ART_COMPONENTS)
    paintings = np.sin(PAINT_POINTS * np.pi) + r
    return torch.from_numpy(paintings).float()

G = nn.Sequential(nn.Linear(N_IDEAS, 128), nn.ReLU(), nn.Linear(128, ART_COMPONENTS))
D = nn.Sequential(nn.Linear(ART_COMPONENTS, 128), nn.ReLU(), nn.Linear(128, 1), nn.Sigmoid())
opt_D = torch.optim.Adam(D.parameters(), lr=LR_D)
opt_G = torch.optim.Adam(G.parameters(), lr=LR_G)

for step in range(10000):
    artist_paintings = artist_works()
    G_ideas = torch.randn(BATCH_SIZE, N_IDEAS, requires_grad=True)
    G_paintings = G(G_ideas)
    prob_artist1 = D(G_paintings)
    G_loss = torch.mean(torch.log(1. - prob_artist1))

    prob_artist0 = D(artist_paintings)
    prob_artist1 = D(G_paintings)
    D_loss = - torch.mean(torch.log(prob_artist0) + torch.log(1. - prob_artist1))

    opt_D.zero_grad()
    D_loss.backward(retain_graph=True)
    opt_D.step()

    opt_G.zero_grad()
    G_loss.backward()
    opt_G.step()

    if step % 50 == 0:
        print('step %d  D accuracy=%.2f (0.5 for D to converge)  G score=%.2f (-1.38 for G to converge)'
              % (step, prob_artist0.data.numpy().mean(), -D_loss.data.numpy()))
