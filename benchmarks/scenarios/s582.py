# zhixuan-lin/SPACE issue "negative loss" (8) in miniature: SPACE's training objective is loss = (-elbo +
# loss_boundary).mean() with elbo = log_like - kl_bg - kl_fg, where log_like is the Gaussian log-density of every
# pixel value under the reconstruction (fg_sigma = bg_sigma = 0.15), summed over the image. A density can exceed 1,
# so once the reconstructions are good the log-likelihood is large and positive and the printed loss goes far below
# zero - the run is healthy. Kept from the repository: the objective (summed Normal(recon, 0.15).log_prob over the
# pixels minus the KL of the latent posteriors, averaged over the batch), the 3d_room_small solver for the
# background module (Adam lr 1e-3), clip_norm 1.0, batch_size 12, the print line "exp: .., epoch: .., iter: ../..,
# global_step: .., loss: .. (median of the window), batch time: ..s, data time: ..s, log time: ..s", the validation
# with the 'mse' metric, and a final evaluation of the test images with the trained weights.
# Scaled / chosen here: SPACE's foreground (per-cell z_pres / z_where / z_what glimpses) and its K = 5 component
# background are reduced to one convolutional VAE with a 32-dimensional latent and the same likelihood; 32 x 32
# synthetic "3D room" pictures (floor and wall colours, 2-4 coloured boxes and balls; 1200 training, 120 test);
# print_every 50 steps (and step 1), 1000 steps. metrics.csv has every step's loss, log-likelihood, KL and MSE and the
# validation MSE.
import csv
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Normal, kl_divergence

torch.manual_seed(1)  # seed: 1
np.random.seed(1)
torch.set_num_threads(1)

S = 32


def make_room(rng):
    img = np.zeros((3, S, S), np.float32)
    horizon = rng.integers(12, 20)
    wall, floor = rng.uniform(0.3, 0.8, 3), rng.uniform(0.2, 0.7, 3)
    img[:, :horizon] = wall[:, None, None]
    img[:, horizon:] = floor[:, None, None]
    yy, xx = np.mgrid[0:S, 0:S]
    for _ in range(rng.integers(2, 5)):
        col = rng.uniform(0.0, 1.0, 3)
        cx, cy = rng.uniform(5, S - 5), rng.uniform(horizon - 2, S - 4)
        r = rng.uniform(2.5, 5.5)
        if rng.random() < 0.5:
            m = (xx - cx) ** 2 + (yy - cy) ** 2 < r ** 2
        else:
            m = (np.abs(xx - cx) < r) & (np.abs(yy - cy) < r)
        shade = (1.0 - 0.25 * (yy - cy + r) / (2 * r)).clip(0.5, 1.0)
        img[:, m] = (col[:, None] * shade[m][None]).astype(np.float32)
    return img


rng = np.random.default_rng(0)
TRAIN = torch.from_numpy(np.stack([make_room(rng) for _ in range(1200)]))
TEST = torch.from_numpy(np.stack([make_room(rng) for _ in range(120)]))


class VAE(nn.Module):
    def __init__(self, zdim=32):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 32, 4, 2, 1), nn.CELU(), nn.Conv2d(32, 64, 4, 2, 1), nn.CELU(),
                                 nn.Conv2d(64, 64, 4, 2, 1), nn.CELU(), nn.Flatten(), nn.Linear(64 * 16, 2 * zdim))
        self.dec_fc = nn.Linear(zdim, 64 * 16)
        self.dec = nn.Sequential(nn.ConvTranspose2d(64, 64, 4, 2, 1), nn.CELU(), nn.ConvTranspose2d(64, 32, 4, 2, 1),
                                 nn.CELU(), nn.ConvTranspose2d(32, 3, 4, 2, 1))
        self.sigma = 0.15  # fg_sigma / bg_sigma
        self.prior = Normal(torch.zeros(zdim), torch.ones(zdim))

    def forward(self, x):
        loc, raw = self.enc(x).chunk(2, 1)
        post = Normal(loc, F.softplus(raw) + 1e-4)
        z = post.rsample()
        recon = torch.sigmoid(self.dec(self.dec_fc(z).view(-1, 64, 4, 4)))
        log_like = Normal(recon, self.sigma).log_prob(x).flatten(start_dim=1).sum(1)
        kl = kl_divergence(post, self.prior).sum(1)
        elbo = log_like - kl
        loss = (-elbo).mean()
        return loss, {'log_like': log_like.mean(), 'kl': kl.mean(), 'mse': F.mse_loss(recon, x), 'recon': recon}


model = VAE()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
batch_size, max_steps, print_every, eval_every = 12, 1000, 50, 250
print('Experiment name: 3d_room_small')
print('Dataset: OBJ3D_SMALL (synthetic, %d training / %d test pictures of %dx%d)' % (len(TRAIN), len(TEST), S, S))
print('Model name: SPACE (reduced: one VAE, Gaussian likelihood sigma 0.15)')
print('Start training')

f = open('metrics.csv', 'w', newline='')
w = csv.writer(f)
w.writerow(['global_step', 'loss', 'log_like', 'kl', 'mse', 'val_mse'])
window = []
global_step = 0
n_batches = len(TRAIN) // batch_size
epoch = 0
g = torch.Generator().manual_seed(1)
while global_step < max_steps:
    perm = torch.randperm(len(TRAIN), generator=g)
    end = time.perf_counter()
    for i in range(n_batches):
        imgs = TRAIN[perm[i * batch_size:(i + 1) * batch_size]]
        data_time = time.perf_counter() - end
        start = time.perf_counter()
        model.train()
        loss, log = model(imgs)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        batch_time = time.perf_counter() - start
        global_step += 1
        window = (window + [loss.item()])[-20:]
        w.writerow([global_step, '%.3f' % loss.item(), '%.3f' % log['log_like'].item(), '%.3f' % log['kl'].item(),
                    '%.5f' % log['mse'].item(), ''])
        if global_step % print_every == 0 or global_step == 1:
            print('exp: {}, epoch: {}, iter: {}/{}, global_step: {}, loss: {:.2f}, batch time: {:.4f}s, '
                  'data time: {:.4f}s, log time: {:.4f}s'.format('3d_room_small', epoch + 1, i + 1, n_batches,
                                                                 global_step, float(np.median(window)), batch_time,
                                                                 data_time, 0.0), flush=True)
        if global_step % eval_every == 0:
            print('Validating...')
            model.eval()
            with torch.no_grad():
                vloss, vlog = model(TEST)
            print('val mse: {:.5f}  (val loss {:.2f})'.format(vlog['mse'].item(), vloss.item()), flush=True)
            w.writerow([global_step, '', '', '', '', '%.5f' % vlog['mse'].item()])
        end = time.perf_counter()
        if global_step >= max_steps:
            break
    epoch += 1
f.close()

print('Evaluating the trained weights on the test pictures')
model.eval()
with torch.no_grad():
    tloss, tlog = model(TEST)
print('test loss: {:.2f}  log_like: {:.2f}  kl: {:.2f}  mse: {:.5f}'.format(
    tloss.item(), tlog['log_like'].item(), tlog['kl'].item(), tlog['mse'].item()))
