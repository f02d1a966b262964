# xuebinqin/BASNet issue "training with batch size =1 has too low performance" in miniature: basnet_train.py
# (BASNet: an encoder-decoder with BatchNorm after every convolution, deep supervision on the side outputs and
# a residual refinement module; hybrid loss bce_ssim_loss = BCE + (1 - SSIM, window 11) + IoU on every output,
# muti_bce_loss_fusion sums them, "tar" is the loss of the refined output d0; Adam lr 0.001, betas (0.9, 0.999),
# eps 1e-8, weight_decay 0; RescaleT + RandomCrop; the line "[epoch: %3d/%3d, batch: %5d/%5d, ite: %d] train
# loss: %3f, tar: %3f " with running means since the last checkpoint) run as the poster ran it, with
# batch_size_train = 1 instead of 8. basnet_test.py's evaluation (net.eval(), sigmoid maps) on held-out pictures
# is added after every epoch as MAE and max F-measure (beta^2 = 0.3). Scaled down: 4 encoder stages with
# 16-64 channels instead of ResNet-34, six side outputs instead of eight, 320 synthetic 56 x 56 pictures
# (cropped to 48 x 48) with one or two salient objects on cluttered backgrounds of varying brightness and
# contrast instead of DUTS-TR, 80 held-out 48 x 48 pictures, 3 epochs; the training line is printed every 80
# iterations instead of every iteration and the running means restart every 320 iterations instead of 2000.
import csv, math, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
rs = np.random.RandomState(0)

# ---------------- synthetic salient-object data (DUTS-TR / DUTS-TE stand-in)
def make_pair(S):
    yy, xx = np.mgrid[:S, :S].astype(np.float32)
    gain, bias = rs.uniform(0.4, 1.6), rs.uniform(-0.3, 0.3)
    bg = 0.5 + 0.2 * rs.randn(3, 1, 1)
    for _ in range(rs.randint(3, 7)):                                           # clutter
        cy, cx, r = rs.uniform(0, S), rs.uniform(0, S), rs.uniform(3, 10)
        bg = bg + (0.25 * rs.randn(3, 1, 1)) * (((yy - cy) ** 2 + (xx - cx) ** 2) < r * r)[None]
    bg = bg + 0.1 * np.sin(xx / rs.uniform(1.5, 4) + yy / rs.uniform(2, 6))[None]
    img, m = bg.copy(), np.zeros((S, S), np.float32)
    for _ in range(rs.randint(1, 3)):
        cy, cx = rs.uniform(0.25 * S, 0.75 * S), rs.uniform(0.25 * S, 0.75 * S)
        ry, rx, th = rs.uniform(0.1 * S, 0.25 * S), rs.uniform(0.1 * S, 0.25 * S), rs.uniform(0, np.pi)
        u = (xx - cx) * np.cos(th) + (yy - cy) * np.sin(th); v = -(xx - cx) * np.sin(th) + (yy - cy) * np.cos(th)
        obj = ((u / rx) ** 2 + (v / ry) ** 2 <= 1 + 0.15 * np.sin(5 * np.arctan2(v, u)))
        col = np.array([1.0, 0.15, 0.1])[rs.permutation(3)][:, None, None] * rs.uniform(0.7, 1.0)
        img = np.where(obj[None], col + 0.08 * rs.randn(3, S, S), img); m = np.maximum(m, obj)
    img = np.clip(gain * (img + 0.05 * rs.randn(3, S, S)) + bias, 0, 1.5).astype(np.float32)
    return img, m.astype(np.float32)

train_set = [make_pair(56) for _ in range(320)]
test_set = [make_pair(48) for _ in range(80)]
MEAN = np.array([0.485, 0.456, 0.406], np.float32)[:, None, None]; STD = np.array([0.229, 0.224, 0.225], np.float32)[:, None, None]

def random_crop(img, lbl, size=48):
    y, x = rs.randint(0, img.shape[1] - size + 1), rs.randint(0, img.shape[2] - size + 1)
    return img[:, y:y + size, x:x + size], lbl[y:y + size, x:x + size]

def to_tensor_lab(img):                                                        # ToTensorLab(flag=0)
    return (img / max(img.max(), 1e-6) - MEAN) / STD

# ---------------- model (BASNet stand-in)
def cbr(cin, cout, d=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=d, dilation=d), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

class RefUnet(nn.Module):                                                      # residual refinement module
    def __init__(self, ch=16):
        super().__init__()
        self.conv0 = nn.Conv2d(1, ch, 3, padding=1)
        self.e1 = cbr(ch, ch); self.e2 = cbr(ch, ch); self.e3 = cbr(ch, ch)
        self.d2 = cbr(2 * ch, ch); self.d1 = cbr(2 * ch, ch); self.out = nn.Conv2d(ch, 1, 3, padding=1)
    def forward(self, x):
        h1 = self.e1(self.conv0(x)); h2 = self.e2(F.max_pool2d(h1, 2)); h3 = self.e3(F.max_pool2d(h2, 2))
        d2 = self.d2(torch.cat([F.interpolate(h3, scale_factor=2, mode='bilinear'), h2], 1))
        d1 = self.d1(torch.cat([F.interpolate(d2, scale_factor=2, mode='bilinear'), h1], 1))
        return x + self.out(d1)

class BASNet(nn.Module):
    def __init__(self, n_channels, n_classes):
        super().__init__()
        c = [16, 32, 48, 64]
        self.inconv = cbr(n_channels, c[0])
        self.enc = nn.ModuleList([nn.Sequential(cbr(c[0], c[0]), cbr(c[0], c[0]))] +
                                 [nn.Sequential(cbr(c[i - 1], c[i]), cbr(c[i], c[i])) for i in range(1, 4)])
        self.bridge = nn.Sequential(cbr(c[3], c[3], 2), cbr(c[3], c[3], 2))
        self.dec = nn.ModuleList([nn.Sequential(cbr(2 * c[i], c[i]), cbr(c[i], c[max(i - 1, 0)])) for i in range(4)])
        self.side_b = nn.Conv2d(c[3], n_classes, 3, padding=1)
        self.side = nn.ModuleList([nn.Conv2d(c[max(i - 1, 0)], n_classes, 3, padding=1) for i in range(4)])
        self.refunet = RefUnet()
    def forward(self, x):
        S = x.shape[-1]; h = self.inconv(x); feats = []
        for i, e in enumerate(self.enc):
            h = e(h if i == 0 else F.max_pool2d(h, 2)); feats.append(h)
        hb = self.bridge(F.max_pool2d(h, 2)); sides = [self.side_b(hb)]
        d = hb
        for i in (3, 2, 1, 0):
            d = F.interpolate(d, size=feats[i].shape[-2:], mode='bilinear')
            d = self.dec[i](torch.cat([d, feats[i]], 1)); sides.append(self.side[i](d))
        sides = [F.interpolate(s, size=(S, S), mode='bilinear') for s in sides]       # db, d4, d3, d2, d1
        d1 = sides[-1]; dout = self.refunet(d1)
        return tuple(torch.sigmoid(t) for t in [dout, d1, sides[3], sides[2], sides[1], sides[0]])

# ---------------- pytorch_ssim / pytorch_iou
def gaussian_window(size=11, sigma=1.5):
    g = torch.tensor([math.exp(-(x - size // 2) ** 2 / (2 * sigma ** 2)) for x in range(size)]); g = g / g.sum()
    return (g[:, None] @ g[None, :])[None, None]
WIN = gaussian_window()

def ssim(img1, img2):
    mu1 = F.conv2d(img1, WIN, padding=5); mu2 = F.conv2d(img2, WIN, padding=5)
    s1 = F.conv2d(img1 * img1, WIN, padding=5) - mu1 ** 2; s2 = F.conv2d(img2 * img2, WIN, padding=5) - mu2 ** 2
    s12 = F.conv2d(img1 * img2, WIN, padding=5) - mu1 * mu2
    C1, C2 = 0.01 ** 2, 0.03 ** 2
    return (((2 * mu1 * mu2 + C1) * (2 * s12 + C2)) / ((mu1 ** 2 + mu2 ** 2 + C1) * (s1 + s2 + C2))).mean()

def iou_loss(pred, target):
    b = pred.shape[0]; loss = 0.0
    for i in range(b):
        iand = torch.sum(target[i] * pred[i]); ior = torch.sum(target[i]) + torch.sum(pred[i]) - iand
        loss = loss + (1 - iand / ior)
    return loss / b

bce_loss = nn.BCELoss(reduction='mean')
def bce_ssim_loss(pred, target):
    return bce_loss(pred, target) + (1 - ssim(pred, target)) + iou_loss(pred, target)

def muti_bce_loss_fusion(*ds, labels_v):
    losses = [bce_ssim_loss(d, labels_v) for d in ds]
    return losses[0], sum(losses)

# ---------------- evaluation (basnet_test.py + MAE / max F-measure)
def evaluate(net):
    net.eval(); maes, precs, recs = [], [], []
    th = torch.linspace(0, 1, 21)[1:-1]
    with torch.no_grad():
        for img, lbl in test_set:
            pred = net(torch.tensor(to_tensor_lab(img))[None])[0][0, 0]
            pred = (pred - pred.min()) / (pred.max() - pred.min() + 1e-8)           # normPRED
            gt = torch.tensor(lbl); maes.append((pred - gt).abs().mean().item())
            binm = (pred[None] >= th[:, None, None]).float(); tp = (binm * gt).sum((1, 2))
            precs.append((tp / (binm.sum((1, 2)) + 1e-8)).numpy()); recs.append((tp / (gt.sum() + 1e-8)).numpy())
    P, R = np.mean(precs, 0), np.mean(recs, 0)
    net.train()
    return float(np.mean(maes)), float(np.max(1.3 * P * R / (0.3 * P + R + 1e-8)))

# ---------------- basnet_train.py
epoch_num = 3
batch_size_train = 1
train_num = len(train_set)
print("---\ntrain images:  %d\ntrain labels:  %d\n---" % (train_num, train_num))
net = BASNet(3, 1)
print("---define optimizer...")
optimizer = torch.optim.Adam(net.parameters(), lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0)
print("---start training...")
ite_num = 0; running_loss = 0.0; running_tar_loss = 0.0; ite_num4val = 0
wr = csv.writer(open('metrics.csv', 'w', newline=''))
wr.writerow(['epoch', 'ite', 'loss', 'tar', 'test_mae', 'test_maxF'])
for epoch in range(0, epoch_num):
    net.train()
    order = rs.permutation(train_num)
    for i in range(0, train_num, batch_size_train):
        ite_num = ite_num + 1; ite_num4val = ite_num4val + 1
        pairs = [random_crop(*train_set[j]) for j in order[i:i + batch_size_train]]
        inputs_v = torch.tensor(np.stack([to_tensor_lab(p[0]) for p in pairs]))
        labels_v = torch.tensor(np.stack([p[1] for p in pairs]))[:, None]
        optimizer.zero_grad()
        d = net(inputs_v)
        loss2, loss = muti_bce_loss_fusion(*d, labels_v=labels_v)
        loss.backward()
        optimizer.step()
        running_loss += loss.item(); running_tar_loss += loss2.item()
        wr.writerow([epoch + 1, ite_num, round(loss.item(), 5), round(loss2.item(), 5), '', ''])
        if ite_num % 80 == 0:
            print("[epoch: %3d/%3d, batch: %5d/%5d, ite: %d] train loss: %3f, tar: %3f " % (
                epoch + 1, epoch_num, (i // batch_size_train + 1) * batch_size_train, train_num, ite_num,
                running_loss / ite_num4val, running_tar_loss / ite_num4val), flush=True)
        if ite_num % 320 == 0:                                                     # checkpoint: running means restart
            running_loss = 0.0; running_tar_loss = 0.0; ite_num4val = 0
    mae, maxf = evaluate(net)
    print("test (net.eval()) after epoch %d: MAE %.4f, max F-measure %.4f" % (epoch + 1, mae, maxf), flush=True)
    wr.writerow([epoch + 1, ite_num, '', '', round(mae, 5), round(maxf, 5)])
print('-------------Congratulations! Training Done!!!-------------')
