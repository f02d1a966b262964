# shuaishiliu/SGCN (sparse graph convolution network for pedestrian trajectory prediction) trained
# from scratch, in miniature: ETH/UCY scenes are replaced by 480 training and 120 validation synthetic
# scenes of 3-6 pedestrians walking (own goal velocity, smooth small random turns, mild mutual avoidance,
# 0.4 s frames, coordinates in metres), 8 observed and 12 predicted frames. A small spatial graph
# attention over pedestrians (relative positions) plus a temporal convolution over the observed
# displacements stands in for the sparse spatial/temporal GCNs; the head predicts a bivariate Gaussian
# (mu_x, mu_y, sigma_x, sigma_y, rho) per future frame, trained with the bivariate Gaussian negative
# log-likelihood (graph_loss: -log(pdf), clamped at 1e-20, averaged), Adam lr 1e-3, loss accumulated
# over 16 scenes per update, 10 epochs, "TRAIN: \t Epoch: ... \t Loss: ..." lines, a validation loss
# and ADE/FDE (mean of the predicted Gaussians) per epoch.
import csv, math
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(8); torch.manual_seed(8); torch.set_num_threads(1)
OBS, PRED = 8, 12
def scene():
    n = np.random.randint(3, 7); T = OBS + PRED
    pos = np.random.uniform(-4, 4, (n, 2)); ang = np.random.uniform(0, 2 * np.pi, n)
    speed = np.random.uniform(0.8, 1.6, n) * 0.4
    traj = np.zeros((T, n, 2))
    for t in range(T):
        traj[t] = pos
        ang = ang + np.random.randn(n) * 0.015
        vel = np.stack([np.cos(ang), np.sin(ang)], 1) * speed[:, None]
        d = pos[:, None] - pos[None]; dist = np.linalg.norm(d, axis=-1) + np.eye(n) * 1e3
        push = (d / dist[..., None] ** 3).sum(1) * 0.05
        pos = pos + vel + push + np.random.randn(n, 2) * 0.005
    return torch.tensor(traj, dtype=torch.float32)
train_scenes = [scene() for _ in range(480)]; val_scenes = [scene() for _ in range(120)]

class SGCNLite(nn.Module):
    def __init__(self, h=32):
        super().__init__()
        self.emb = nn.Linear(2, h)
        self.q = nn.Linear(2, h); self.k = nn.Linear(2, h)
        self.tcn = nn.Sequential(nn.Conv1d(2 * h, h, 3, padding=1), nn.PReLU(), nn.Conv1d(h, h, 3, padding=1), nn.PReLU())
        self.out = nn.Linear(h * OBS, PRED * 5)
    def forward(self, obs):                                 # obs: (OBS, n, 2) absolute positions
        rel = torch.cat([torch.zeros_like(obs[:1]), obs[1:] - obs[:-1]], 0)          # displacements
        e = self.emb(rel)                                                        # (OBS, n, h)
        d = obs[:, :, None] - obs[:, None]                                       # (OBS, n, n, 2)
        att = torch.softmax((self.q(d) * self.k(-d)).sum(-1) / 4.0, dim=-1)      # (OBS, n, n)
        s = att @ e                                                              # social features
        z = self.tcn(torch.cat([e, s], -1).permute(1, 2, 0))                     # (n, h, OBS)
        return self.out(z.flatten(1)).view(-1, PRED, 5).transpose(0, 1)         # (PRED, n, 5)

def bivariate_loss(V_pred, V_trgt):
    normx = V_trgt[..., 0] - V_pred[..., 0]; normy = V_trgt[..., 1] - V_pred[..., 1]
    sx = torch.exp(V_pred[..., 2]); sy = torch.exp(V_pred[..., 3]); corr = torch.tanh(V_pred[..., 4])
    sxsy = sx * sy
    z = (normx / sx) ** 2 + (normy / sy) ** 2 - 2 * ((corr * normx * normy) / sxsy)
    negRho = 1 - corr ** 2
    result = torch.exp(-z / (2 * negRho))
    denom = 2 * np.pi * (sxsy * torch.sqrt(negRho))
    result = result / denom
    epsilon = 1e-20
    result = -torch.log(torch.clamp(result, min=epsilon))
    return torch.mean(result)

def split(tr):
    obs, fut = tr[:OBS], tr[OBS:]
    return obs, fut - obs[-1:]                              # targets relative to the last observed point

model = SGCNLite(); optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['epoch', 'batch', 'train_loss', 'val_loss', 'ade', 'fde'])
batch_size = 16
for epoch in range(10):
    model.train(); perm = np.random.permutation(len(train_scenes)); loss_batch, batch_count = 0, 0
    optimizer.zero_grad(); loss = 0
    for cnt, i in enumerate(perm):
        obs, fut = split(train_scenes[i])
        l = bivariate_loss(model(obs), fut)
        loss = loss + l
        if (cnt + 1) % batch_size == 0:
            loss = loss / batch_size
            loss.backward(); optimizer.step(); optimizer.zero_grad()
            loss_batch += loss.item(); batch_count += 1
            print('TRAIN:', '\t Epoch:', epoch, '\t Loss:', loss_batch / batch_count)
            wr.writerow([epoch, batch_count, loss_batch / batch_count, '', '', ''])
            loss = 0
    model.eval(); vl, ade, fde = [], [], []
    with torch.no_grad():
        for tr in val_scenes:
            obs, fut = split(tr); p = model(obs)
            vl.append(bivariate_loss(p, fut).item())
            err = (p[..., :2] - fut).norm(dim=-1)
            ade.append(err.mean().item()); fde.append(err[-1].mean().item())
    print('VALD:', '\t Epoch:', epoch, '\t Loss:', np.mean(vl), '\t ADE:', round(np.mean(ade), 4), '\t FDE:', round(np.mean(fde), 4))
    wr.writerow([epoch, batch_count, '', np.mean(vl), np.mean(ade), np.mean(fde)])
