"""GAN-compression supernet training in miniature (after a "why is it getting slower and slower" question).

pix2pix-style conditional GAN on synthetic 1x16x16 edge -> image pairs
(800 pairs): small encoder-decoder generator, PatchGAN-like discriminator,
GAN loss + 100 * L1, Adam 2e-4 (0.5, 0.999), batch 8, 15 epochs of 100
iterations, pix2pix/CycleGAN-style log line every 100 iterations with the
average time per iteration.  The user added a loss-drawing module to the
training loop: after every iteration it rebuilds the whole loss history for
all four losses and redraws the curves point by point into a canvas (the
visdom plot), so the drawing work grows with the number of iterations.
"""
import time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
rng = np.random.RandomState(47)
torch.manual_seed(47)


def make_pairs(n):
    A = np.zeros((n, 1, 16, 16), np.float32); B = np.zeros((n, 1, 16, 16), np.float32)
    yy, xx = np.mgrid[0:16, 0:16]
    for i in range(n):
        cx, cy, r = rng.uniform(4, 12), rng.uniform(4, 12), rng.uniform(2, 5)
        d = np.sqrt((xx - cx) ** 2 + (yy - cy) ** 2)
        A[i, 0] = (np.abs(d - r) < 0.7).astype(np.float32)
        B[i, 0] = np.clip(1.2 - d / (r + 1), 0, 1) * rng.uniform(0.6, 1.0)
    return torch.from_numpy(A * 2 - 1), torch.from_numpy(B * 2 - 1)


A, B = make_pairs(800)
G = nn.Sequential(nn.Conv2d(1, 16, 4, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(16, 32, 4, 2, 1), nn.BatchNorm2d(32), nn.LeakyReLU(0.2),
                  nn.ConvTranspose2d(32, 16, 4, 2, 1), nn.BatchNorm2d(16), nn.ReLU(), nn.ConvTranspose2d(16, 1, 4, 2, 1), nn.Tanh())
D = nn.Sequential(nn.Conv2d(2, 16, 4, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(16, 32, 4, 2, 1), nn.BatchNorm2d(32), nn.LeakyReLU(0.2),
                  nn.Conv2d(32, 1, 3, 1, 1))
optG = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
optD = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))


class LossPlotter:
    """Draws all losses since the start of training into a 120x400 canvas after every iteration."""

    def __init__(self):
        self.history = {'G_gan': [], 'G_L1': [], 'D_real': [], 'D_fake': []}

    def plot_current_losses(self, losses):
        for k, v in losses.items():
            self.history[k].append(v)
        canvas = np.zeros((120, 400), np.uint8)
        for k, vals in self.history.items():
            xs = list(range(len(vals)))
            top = max(vals) + 1e-8
            prev = None
            for x, v in zip(xs, vals):
                px = int(399 * x / max(1, len(vals) - 1)); py = int(119 * (1 - v / top))
                if prev is not None:
                    for t in (0.25, 0.5, 0.75):
                        canvas[int(prev[1] + t * (py - prev[1])), int(prev[0] + t * (px - prev[0]))] = 255
                canvas[py, px] = 255
                prev = (px, py)
        return canvas


plotter = LossPlotter()
it_total = 0
for epoch in range(1, 16):
    perm = torch.randperm(len(A))
    t_epoch = time.time(); sums = np.zeros(4); t_iter = 0.0; t_data = 0.0
    for i in range(100):
        t0 = time.time()
        idx = perm[(i * 8) % 800:(i * 8) % 800 + 8]
        a, b = A[idx], B[idx]
        t1 = time.time()
        fake = G(a)
        d_real = D(torch.cat([a, b], 1)); d_fake = D(torch.cat([a, fake.detach()], 1))
        loss_D_real = F.binary_cross_entropy_with_logits(d_real, torch.ones_like(d_real))
        loss_D_fake = F.binary_cross_entropy_with_logits(d_fake, torch.zeros_like(d_fake))
        optD.zero_grad(); ((loss_D_real + loss_D_fake) * 0.5).backward(); optD.step()
        d_fake = D(torch.cat([a, fake], 1))
        loss_G_gan = F.binary_cross_entropy_with_logits(d_fake, torch.ones_like(d_fake))
        loss_G_L1 = F.l1_loss(fake, b) * 100
        optG.zero_grad(); (loss_G_gan + loss_G_L1).backward(); optG.step()
        losses = {'G_gan': loss_G_gan.item(), 'G_L1': loss_G_L1.item(), 'D_real': loss_D_real.item(), 'D_fake': loss_D_fake.item()}
        plotter.plot_current_losses(losses)
        it_total += 1
        sums += list(losses.values()); t_iter += time.time() - t0; t_data += t1 - t0
    m = sums / 100
    print('(epoch: %d, iters: %d, time: %.4f, data: %.4f) G_gan: %.3f G_L1: %.3f D_real: %.3f D_fake: %.3f'
          % (epoch, it_total, t_iter / 100, t_data / 100, m[0], m[1], m[2], m[3]))
    print('End of epoch %d / 15 \t Time Taken: %.1f sec' % (epoch, time.time() - t_epoch))
