# VAME (LINCellularNeuroscience) RNN-VAE behaviour model training in miniature: vame.train_model() /
# rnn_model() on egocentrically aligned pose time series; here 12 features (6 keypoints x, y) from a
# synthetic "mouse" whose posture follows one of 4 motifs (sinusoidal gait patterns with noise), 640
# training and 160 test windows of 30 frames (time_window 15 * 2), an RNN_VAE with a bidirectional GRU
# encoder (hidden 64), latent zdims 10 and a GRU reconstruction decoder, MSE (sum) reconstruction + KL with
# linear KL annealing (kl_start 2, annealtime 4), Adam lr 5e-4 amsgrad=True, batch 128, 170 epochs, the
# gaussian input noise of rnn_vae.py, clip_grad_norm_(max_norm=5), and the VAME console lines
# "Epoch: N" / "Average Train loss: ..." / "Average Test loss: ..." / "lr: ...". The k-means loss term is
# left out. config.yaml has scheduler: 0, so rnn_model() builds
#     scheduler = StepLR(optimizer, step_size=100, gamma=0, last_epoch=-1)
# and steps it once per epoch in train().
import csv
import numpy as np
import torch, torch.nn as nn
from torch.optim.lr_scheduler import StepLR

np.random.seed(19); torch.manual_seed(19); torch.set_num_threads(1)
NF, T, Z = 12, 30, 10
def make(n):
    t = np.arange(T)[None, :, None]
    motif = np.random.randint(4, size=n)
    freq = (0.15 + 0.08 * motif)[:, None, None]; ph = np.random.uniform(0, 2 * np.pi, (n, 1, 1))
    amp = np.random.uniform(0.6, 1.4, (n, 1, NF)); off = np.linspace(-1, 1, NF)[None, None, :] * (1 + 0.3 * motif[:, None, None])
    kshift = np.arange(NF)[None, None, :] * (0.3 + 0.2 * motif[:, None, None])
    x = off + amp * np.sin(freq * t + ph + kshift) + 0.5 * amp * np.sin(2.3 * freq * t + kshift) ** 3
    return torch.tensor((x + 0.1 * np.random.randn(*x.shape)).astype(np.float32))
Xtr, Xte = make(640), make(160)
print('Train RNN model!')
class RNN_VAE(nn.Module):
    def __init__(self, h=64):
        super().__init__()
        self.enc = nn.GRU(NF, h, 2, batch_first=True, bidirectional=True)
        self.mu = nn.Linear(4 * h, Z); self.lv = nn.Linear(4 * h, Z)
        self.dec = nn.GRU(Z, h, 1, batch_first=True); self.out = nn.Linear(h, NF)
    def forward(self, x):
        _, hn = self.enc(x); hcat = hn.permute(1, 0, 2).reshape(x.size(0), -1)
        mu, logvar = self.mu(hcat), self.lv(hcat)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        y, _ = self.dec(z.unsqueeze(1).repeat(1, T, 1))
        return self.out(y), z, mu, logvar
def kl_annealing(epoch, kl_start=2, annealtime=4):
    return min(1.0, max(0.0, (epoch - kl_start) / annealtime)) if epoch > kl_start else 0.0
def gaussian(ins, std_n=0.8):
    return ins + torch.randn_like(ins) * ins.std(1, keepdim=True) * std_n * 0.25

model = RNN_VAE(); BETA = 1
print('Latent Dimensions: %d, Beta: %d, lr: %.4f' % (Z, BETA, 5e-4))
optimizer = torch.optim.Adam(model.parameters(), lr=5e-4, amsgrad=True)
optimizer_scheduler = 0                                  # config.yaml: scheduler: 0
if optimizer_scheduler:
    scheduler = StepLR(optimizer, step_size=100, gamma=0.2, last_epoch=-1)
else:
    scheduler = StepLR(optimizer, step_size=100, gamma=0, last_epoch=-1)
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['epoch', 'train_loss', 'mse_loss', 'kl_loss', 'test_loss', 'lr'])
BS = 128; EPOCHS = 171; BEST = 1e9
for epoch in range(1, EPOCHS):
    print('Epoch: %d' % epoch); print('Train: ')
    model.train(); perm = torch.randperm(len(Xtr)); tl = ml = kl = 0.0; nb = 0
    w = kl_annealing(epoch)
    for i in range(0, len(Xtr), BS):
        data = Xtr[perm[i:i + BS]]
        rec, _, mu, logvar = model(gaussian(data))
        rec_loss = ((rec - data) ** 2).sum() / len(data)
        kl_loss = -0.5 * torch.mean(torch.sum(1 + logvar - mu ** 2 - logvar.exp(), 1))
        loss = rec_loss + BETA * w * kl_loss
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=5)
        tl += loss.item(); ml += rec_loss.item(); kl += kl_loss.item(); nb += 1
        if nb == 1 and epoch % 10 == 0:
            print('Epoch: %d.  loss: %.4f' % (epoch, loss.item()))
    scheduler.step()
    print('Average Train loss: {:.4f}, MSE-Loss: {:.4f}, KL-Loss: {:.4f}, Kmeans-Loss: {:.4f}, weight: {:.4f}'.format(tl / nb, ml / nb, BETA * w * kl / nb, 0.0, w))
    print('Test: ')
    model.eval()
    with torch.no_grad():
        rec, _, mu, logvar = model(Xte)
        trl = ((rec - Xte) ** 2).sum().item() / len(Xte)
        tkl = (-0.5 * torch.mean(torch.sum(1 + logvar - mu ** 2 - logvar.exp(), 1))).item()
    print('Average Test loss: {:.4f}, MSE-Loss: {:.4f}, KL-Loss: {:.4f}, Kmeans-Loss: {:.4f}'.format(trl + BETA * w * tkl, trl, BETA * w * tkl, 0.0))
    lr = optimizer.param_groups[0]['lr']
    print('lr: {}'.format(lr))
    wr.writerow([epoch, tl / nb, ml / nb, BETA * w * kl / nb, trl + BETA * w * tkl, lr])
    if w > 0.99 and trl <= BEST:
        BEST = trl; print('Saving model!\n')
print('Model seemed to have not reached convergence. You may want to check your model \nwith vame.evaluate(). If your satisfied you can continue with: \n\n- Use vame.segment_behavior() to identify behavioral motifs in your dataset!\n')
