# scvi-tools model.train() on a user's AnnData in miniature: an SCVI-style variational autoencoder
# for single-cell counts (encoder n_genes -> 128 with BatchNorm1d(momentum=0.01, eps=0.001), ReLU,
# Dropout(0.1), heads for a 10-d latent mean and variance; a log-library-size input; decoder
# 10 -> 128 with the same block -> softmax gene proportions scaled by the library size; negative
# binomial likelihood with a learned gene-wise dispersion; loss = reconstruction + KL), Adam lr 1e-3
# with weight_decay 1e-6 and eps 0.01, batch_size 128, train_size 0.9 (the training indices are
# the first ceil(0.9 * n_cells) of a random permutation), max_epochs = min(round(20000 / n_cells
# * 400), 400), a Lightning-style "Epoch 1/400: ... loss=..." progress line. 2845 synthetic cells x
# 400 genes (negative-binomial counts from 6 cell types with different library sizes).
import csv, math
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(0); torch.manual_seed(0); torch.set_num_threads(1)
n_cells, n_genes, n_types = 2845, 400, 6
type_profiles = np.random.gamma(0.6, 1.0, (n_types, n_genes)); type_profiles /= type_profiles.sum(1, keepdims=True)
cell_type = np.random.randint(0, n_types, n_cells)
library = np.random.lognormal(math.log(3000), 0.4, n_cells)
mu = type_profiles[cell_type] * library[:, None]
theta = 5.0
X = np.random.poisson(np.random.gamma(theta, mu / theta)).astype(np.float32)
print(f'AnnData object with n_obs x n_vars = {n_cells} x {n_genes}')

class FCLayers(nn.Module):
    def __init__(self, n_in, n_out, n_hidden=128, dropout_rate=0.1):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(n_in, n_hidden), nn.BatchNorm1d(n_hidden, momentum=0.01, eps=0.001),
                                nn.ReLU(), nn.Dropout(dropout_rate))
    def forward(self, x):
        return self.fc(x)

class VAE(nn.Module):
    def __init__(self, n_input, n_latent=10, n_hidden=128):
        super().__init__()
        self.z_encoder = FCLayers(n_input, n_hidden)
        self.mean_encoder = nn.Linear(n_hidden, n_latent); self.var_encoder = nn.Linear(n_hidden, n_latent)
        self.decoder = FCLayers(n_latent, n_hidden)
        self.px_scale_decoder = nn.Linear(n_hidden, n_input)
        self.px_r = nn.Parameter(torch.randn(n_input))
    def forward(self, x):
        library = torch.log(x.sum(1, keepdim=True))
        q = self.z_encoder(torch.log1p(x))
        qz_m, qz_v = self.mean_encoder(q), torch.exp(self.var_encoder(q)) + 1e-4
        z = qz_m + qz_v.sqrt() * torch.randn_like(qz_m)
        px_scale = torch.softmax(self.px_scale_decoder(self.decoder(z)), dim=-1)
        px_rate = torch.exp(library) * px_scale
        theta = torch.exp(self.px_r)
        log_theta_mu_eps = torch.log(theta + px_rate + 1e-8)
        ll = (theta * (torch.log(theta + 1e-8) - log_theta_mu_eps) + x * (torch.log(px_rate + 1e-8) - log_theta_mu_eps)
              + torch.lgamma(x + theta) - torch.lgamma(theta) - torch.lgamma(x + 1))
        reconst_loss = -ll.sum(-1)
        kl = 0.5 * (qz_v + qz_m ** 2 - 1 - torch.log(qz_v)).sum(-1)
        return reconst_loss, kl

X_t = torch.tensor(X)
perm = np.random.permutation(n_cells)
n_train = int(math.ceil(0.9 * n_cells)); n_val = n_cells - n_train
train_idx, val_idx = perm[:n_train], perm[n_train:]
batch_size = 128
max_epochs = min(round((20000 / n_cells) * 400), 400)
model = VAE(n_genes)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, eps=0.01, weight_decay=1e-6)
print(f'GPU available: False, used: False')
print(f'Training for {max_epochs} epochs. ({n_train} training cells, {n_val} validation cells)')
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f); wr.writerow(['epoch', 'step', 'loss', 'reconstruction_loss', 'kl_local', 'elbo_validation'])
step = 0
for epoch in range(1, max_epochs + 1):
    model.train()
    order = np.random.permutation(train_idx)
    tot = 0.0
    for b in range(0, n_train, batch_size):
        xb = X_t[order[b:b + batch_size]]
        rl, kl = model(xb)
        loss = (rl + kl).mean()
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        step += 1; tot += loss.item() * len(xb)
        wr.writerow([epoch, step, loss.item(), rl.mean().item(), kl.mean().item(), '']); f.flush()
    model.eval()
    with torch.no_grad():
        rl, kl = model(X_t[val_idx]); elbo_val = (rl + kl).mean().item()
    wr.writerow([epoch, step, '', '', '', elbo_val]); f.flush()
    print(f'Epoch {epoch}/{max_epochs}: 100%|██████████| {epoch}/{max_epochs} [loss={tot / n_train:.0f}, elbo_validation={elbo_val:.0f}]', flush=True)
