# CYang0515/pytorch_ssn (a PyTorch port of Superpixel Sampling Networks) in miniature: train.py's loop with
# model.py's create_ssn_net and Loss. A CNN (conv_bn_relu blocks, two max-pool stages, upsampled skip concatenation,
# 15 output channels concatenated with the 5 input channels: scaled XY and Lab colour) gives pixel features;
# superpixel features start as the mean over a regular grid and are refined by num_iter = 5 differentiable SLIC
# iterations (soft association of every pixel with the 9 superpixels around its grid cell, softmax of the negative
# squared feature distance, superpixel features as association-weighted means). The loss is Loss() of model.py:
# position_color_loss(pos_weight=0.4, col_weight=0) on the pixel XY rebuilt from the superpixel each pixel is hard-
# assigned to (Semar / compute_final_spixel_labels), plus LossWithoutSoftmax, -log of the ground-truth label's
# probability after the one-hot labels are pooled into superpixels and decoded back through the soft association.
# Adam, batch 16, the print lines of train.py ("epoch:.., iter:.., total_loss:.., pos_loss:.., rec_loss:.." and
# "forward time:.., backward time:.., total time:..") and the epoch averages logged for TensorBoard (train/total_loss,
# train/pos_loss, train/rec_loss), here printed once per epoch. Scaled down: 40 x 40 patches with a
# 5 x 5 superpixel grid instead of 200 x 200 with 10 x 10, 32 CNN channels instead of 64, 128 synthetic training
# images (6-11 Voronoi regions, each with one of three close mean Lab colours and its own stripe texture, region id as
# the label) instead of BSDS500, 16 epochs instead of the poster's 475, lr 1e-3 instead of the default 1e-4.
# Added: the achievable segmentation accuracy (ASA) of the hard superpixels on 32 held-out images after every epoch
# (the repository evaluates separately, in test.py).
import csv, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
H = W = 40; NH = NW = 5; NSP = NH * NW; NLAB = 12; POS_SCALE = 2.5 * NH / H; COL_SCALE = 0.26

def make_images(n, seed):
    r = np.random.RandomState(seed)
    yy, xx = np.mgrid[0:H, 0:W]
    imgs, labs = [], []
    for _ in range(n):
        k = r.randint(6, 12)
        seeds = r.rand(k, 2) * [H, W]; stretch = r.uniform(0.6, 1.6, (k, 2))
        d = ((yy[None] - seeds[:, 0, None, None]) * stretch[:, 0, None, None]) ** 2 + \
            ((xx[None] - seeds[:, 1, None, None]) * stretch[:, 1, None, None]) ** 2
        lab = d.argmin(0)
        cols = np.array([[47, 2, -2], [50, -2, 2], [53, 0, 0]], float)[r.randint(0, 3, k)]   # 3 close mean colours
        ang, per = r.choice([0, np.pi / 2, np.pi / 4, 3 * np.pi / 4], k)[lab], r.uniform(2.5, 5, k)[lab]
        tex = 4 * np.sin((xx * np.cos(ang) + yy * np.sin(ang)) * 2 * np.pi / per)      # region-specific stripes
        lab_img = cols[lab].transpose(2, 0, 1) + tex[None] * [[[1.0]], [[0.3]], [[0.3]]] + r.normal(0, 1.5, (3, H, W))
        imgs.append(lab_img); labs.append(lab)
    lab_t = torch.tensor(np.stack(imgs), dtype=torch.float32) * COL_SCALE
    xy = torch.stack(torch.meshgrid(torch.arange(H, dtype=torch.float32), torch.arange(W, dtype=torch.float32), indexing='ij')) * POS_SCALE
    img = torch.cat([xy[None].expand(n, -1, -1, -1), lab_t], 1)                  # channels: y, x, L, a, b
    return img, torch.tensor(np.stack(labs))[:, None]

img_tr, lab_tr = make_images(128, 1); img_te, lab_te = make_images(32, 2)

# grid bookkeeping: initial cell of every pixel and the 3 x 3 neighbourhood mask (p2sp_index / cir_index)
cell = (torch.arange(H)[:, None] // (H // NH)) * NW + (torch.arange(W)[None] // (W // NW))
cy, cx = cell // NW, cell % NW
sy, sx = torch.arange(NSP) // NW, torch.arange(NSP) % NW
NEIGH = ((cy.reshape(-1, 1) - sy[None]).abs() <= 1) & ((cx.reshape(-1, 1) - sx[None]).abs() <= 1)   # (HW, NSP)

class conv_bn_relu(nn.Module):
    def __init__(self, in_channels, channels, bn=True):
        super().__init__()
        self.BN_ = bn
        self.conv = nn.Conv2d(in_channels, channels, 3, padding=1)
        if self.BN_: self.bn = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU(inplace=True)
    def forward(self, x):
        x = self.conv(x)
        if self.BN_: x = self.bn(x)
        return self.relu(x)

class cnn_module(nn.Module):
    def __init__(self, out_channel=15, c=32):
        super().__init__()
        self.conv1 = conv_bn_relu(5, c); self.conv2 = conv_bn_relu(c, c); self.pool1 = nn.MaxPool2d(3, 2, 1)
        self.conv3 = conv_bn_relu(c, c); self.conv4 = conv_bn_relu(c, c); self.pool2 = nn.MaxPool2d(3, 2, 1)
        self.conv5 = conv_bn_relu(c, c); self.conv6 = conv_bn_relu(c, c)
        self.conv6_up = nn.Upsample(scale_factor=4); self.conv4_up = nn.Upsample(scale_factor=2)
        self.conv7 = conv_bn_relu(5 + 3 * c, out_channel, False)
    def forward(self, x):
        conv2 = self.conv2(self.conv1(x)); conv4 = self.conv4(self.conv3(self.pool1(conv2)))
        conv6 = self.conv6(self.conv5(self.pool2(conv4)))
        conv7 = self.conv7(torch.cat((x, conv2, self.conv4_up(conv4), self.conv6_up(conv6)), 1))
        return torch.cat((x, conv7), 1)

def assoc(spixel_feature, pix):                       # pix (B, HW, C), spixel (B, NSP, C) -> (B, HW, NSP)
    d = (pix ** 2).sum(-1, keepdim=True) - 2 * pix @ spixel_feature.transpose(1, 2) + (spixel_feature ** 2).sum(-1)[:, None]
    return torch.softmax((-d).masked_fill(~NEIGH[None], -1e9), -1)

def pool(q, feat):                                     # association-weighted superpixel means
    return (q.transpose(1, 2) @ feat) / (q.sum(1)[..., None] + 1e-8)

class create_ssn_net(nn.Module):
    def __init__(self, num_iter=5):
        super().__init__()
        self.trans_features = cnn_module(); self.num_iter = num_iter
    def forward(self, x, problabel):
        B = x.shape[0]
        pix = self.trans_features(x).flatten(2).transpose(1, 2)                     # (B, HW, 20)
        onehot_cell = F.one_hot(cell.reshape(-1), NSP).float()[None].expand(B, -1, -1)
        spixel_feature = pool(onehot_cell, pix)                                       # SpixelFeature on the grid
        for i in range(self.num_iter):
            spixel_feature = pool(assoc(spixel_feature, pix), pix)                    # exec_iter
        q = assoc(spixel_feature, pix)                                                # compute_assignments
        xf = x.flatten(2).transpose(1, 2)
        new_spixel_feat = pool(q, xf)                                                 # SpixelFeature2(x, ...)
        idx = q.argmax(-1)                                                            # compute_final_spixel_labels
        recon_feat2 = torch.gather(new_spixel_feat, 1, idx[..., None].expand(-1, -1, xf.shape[-1]))   # Semar
        spixel_label = pool(q, problabel)
        recon_label = q @ spixel_label                                                # decode_features
        return recon_feat2.transpose(1, 2).reshape(x.shape), recon_label, idx

class Loss(nn.Module):
    def forward(self, recon_feat2, pixel_feature, recon_label, label):
        loss1 = F.mse_loss(recon_feat2[:, :2], pixel_feature[:, :2]) * 0.4          # position_color_loss
        p = recon_label.gather(2, label.flatten(1)[..., None])[..., 0]
        loss2 = (-torch.log(p.clamp_min(1e-8))).mean()                                # LossWithoutSoftmax
        return loss1 + loss2, loss1, loss2

def asa(idx, label):
    tot = 0
    for b in range(idx.shape[0]):
        m = torch.zeros(NSP, NLAB); m.index_put_((idx[b], label[b].flatten()), torch.ones(H * W), accumulate=True)
        tot += m.max(1)[0].sum().item()
    return tot / (idx.shape[0] * H * W)

model = create_ssn_net(num_iter=5)
criten = Loss()
optim = torch.optim.Adam(model.parameters(), lr=0.001)
problab = lambda l: F.one_hot(l.flatten(1), NLAB).float()

def evaluate():
    model.eval()
    with torch.no_grad():
        _, _, idx = model(img_te, problab(lab_te))
    model.train()
    return asa(idx, lab_te)

grid_asa = asa(cell.reshape(1, -1).expand(len(img_te), -1), lab_te)
print(f'test ASA of the regular grid: {grid_asa:.4f}; before training: {evaluate():.4f}')
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'iter', 'step', 'total_loss', 'pos_loss', 'rec_loss', 'test_asa'])
model.train(); step = 0
for epoch in range(16):
    perm = torch.randperm(len(img_tr)); sums = np.zeros(3)
    for iter in range(len(img_tr) // 16):
        t0 = time.time()
        b = perm[iter * 16:(iter + 1) * 16]
        img, label = img_tr[b], lab_tr[b]
        t1 = time.time()
        recon_feat2, recon_label, _ = model(img, problab(label))
        loss, loss_1, loss_2 = criten(recon_feat2, img, recon_label, label)
        t2 = time.time()
        optim.zero_grad(); loss.backward(); optim.step()
        t3 = time.time(); step += 1
        print(f'epoch:{epoch}, iter:{iter}, total_loss:{loss}, pos_loss:{loss_1}, rec_loss:{loss_2}')
        print(f'forward time:{t2-t1:.3f}, backward time:{t3-t2:.3f}, total time:{t3-t0:.3f}')
        sums += [loss.item(), loss_1.item(), loss_2.item()]
        wr.writerow([epoch, iter, step, round(loss.item(), 6), round(loss_1.item(), 6), round(loss_2.item(), 6), ''])
    ave = sums / (len(img_tr) // 16); a = evaluate()
    print(f'[epoch {epoch}] train/total_loss {ave[0]:.5f}  train/pos_loss {ave[1]:.5f}  train/rec_loss {ave[2]:.5f}  test ASA {a:.4f}', flush=True)
    wr.writerow([epoch, '', step, round(ave[0], 6), round(ave[1], 6), round(ave[2], 6), round(a, 4)]); f.flush()
f.close()
