# advaitsave/Multiclass-Semantic-Segmentation-CamVid notebook in miniature, ported from Keras to PyTorch:
# CamVid street scenes (frames 0016E5_xxxxx.png and label images 0016E5_xxxxx_L.png in one folder) are
# replaced by 360 synthetic 32 x 32 RGB scenes with 5 classes (sky, building, road, car, pedestrian;
# the layout varies per frame: horizon height, building blocks, 1-3 cars and 0-2 pedestrians at random
# places), 300 for training and 60 for validation, a small conv-BN-ReLU encoder-decoder standing in
# for the notebook's U-Net, pixel-wise cross entropy, Adam 1e-3, batch 8, 15 epochs, Keras-style epoch
# lines with loss / accuracy / val_loss / val_accuracy and a validation mean IoU. read_images() is
# written as in the notebook:
#     file_list = [f for f in os.listdir(img_dir) if os.path.isfile(os.path.join(img_dir, f))]
#     frames_list = [file for file in file_list if ('_L' not in file) and ('txt' not in file)]
#     masks_list = [file for file in file_list if ('_L' in file) and ('txt' not in file)]
# and frame i is paired with mask i. listdir() below stands in for os.listdir (seeded, so runs repeat).
import csv
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

rng = np.random.RandomState(3); torch.manual_seed(3); torch.set_num_threads(1)
S, K, NIMG = 32, 5, 360
PAL = np.array([[0.5, 0.7, 0.95], [0.55, 0.45, 0.4], [0.35, 0.35, 0.38], [0.85, 0.15, 0.1], [0.95, 0.85, 0.2]], np.float32)
def scene():
    lab = np.zeros((S, S), np.int64); hz = rng.randint(8, 15)
    lab[hz:, :] = 2
    x = 0
    while x < S:
        w = rng.randint(4, 10); top = rng.randint(2, hz + 1); lab[top:hz + rng.randint(0, 4), x:x + w] = 1; x += w + rng.randint(0, 4)
    for _ in range(rng.randint(1, 4)):
        cy, cx = rng.randint(hz + 2, S - 4), rng.randint(0, S - 8); lab[cy:cy + 4, cx:cx + rng.randint(6, 10)] = 3
    for _ in range(rng.randint(0, 3)):
        cy, cx = rng.randint(hz - 2, S - 8), rng.randint(0, S - 2); lab[cy:cy + 7, cx:cx + 2] = 4
    img = PAL[lab] * rng.uniform(0.7, 1.2) + 0.06 * rng.randn(S, S, 3)
    return img.astype(np.float32), lab
# the data folder: frame and label image for each of 360 frames
store = {}
for k in range(NIMG):
    img, lab = scene(); fid = 6000 + 2 * k
    store['0016E5_%05d.png' % fid] = img; store['0016E5_%05d_L.png' % fid] = lab
store['label_colors.txt'] = None
def listdir(img_dir):           # stands in for os.listdir
    names = sorted(store); return [names[i] for i in rng.permutation(len(names))]
def read_images(img_dir):
    file_list = [f for f in listdir(img_dir)]
    frames_list = [file for file in file_list if ('_L' not in file) and ('txt' not in file)]
    masks_list = [file for file in file_list if ('_L' in file) and ('txt' not in file)]
    frames = np.stack([store[f] for f in frames_list]); masks = np.stack([store[m] for m in masks_list])
    return frames_list, masks_list, frames, masks
frames_list, masks_list, frames, masks = read_images('CamVid/')
for i in range(3):
    print(f"{frames_list[i]} and {masks_list[i]}")
X = torch.tensor(frames).permute(0, 3, 1, 2); Y = torch.tensor(masks)
Xtr, Ytr, Xva, Yva = X[:300], Y[:300], X[300:], Y[300:]

def cbr(i, o, d=1): return nn.Sequential(nn.Conv2d(i, o, 3, padding=d, dilation=d), nn.BatchNorm2d(o), nn.ReLU())
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.e1, self.e2, self.e3 = cbr(3, 24), cbr(24, 48), cbr(48, 48, 2)
        self.up = nn.ConvTranspose2d(48, 24, 2, 2); self.d1 = cbr(48, 24); self.out = nn.Conv2d(24, K, 1)
    def forward(self, x):
        a = self.e1(x); b = self.e3(self.e2(F.max_pool2d(a, 2)))
        return self.out(self.d1(torch.cat([self.up(b), a], 1)))
def miou(pred, t):
    ious = []
    for k in range(K):
        i = ((pred == k) & (t == k)).sum().item(); u = ((pred == k) | (t == k)).sum().item()
        if u: ious.append(i / u)
    return float(np.mean(ious))
model = Net(); opt = torch.optim.Adam(model.parameters(), 1e-3)
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['epoch', 'step', 'loss', 'accuracy', 'val_loss', 'val_accuracy', 'val_mean_iou'])
step, bs = 0, 8
for epoch in range(1, 16):
    model.train(); perm = torch.randperm(300); L = A = 0.0; nb = 0
    for j in range(0, 300, bs):
        b = perm[j:j + bs]; out = model(Xtr[b]); loss = F.cross_entropy(out, Ytr[b])
        opt.zero_grad(); loss.backward(); opt.step(); step += 1
        L += loss.item(); A += (out.argmax(1) == Ytr[b]).float().mean().item(); nb += 1
        if step % 10 == 0: wr.writerow([epoch, step, loss.item(), '', '', '', ''])
    model.eval()
    with torch.no_grad():
        out = model(Xva); vl = F.cross_entropy(out, Yva).item(); pr = out.argmax(1)
        va = (pr == Yva).float().mean().item(); vi = miou(pr, Yva)
    print('Epoch %d/15\n38/38 - loss: %.4f - accuracy: %.4f - val_loss: %.4f - val_accuracy: %.4f - val_mean_iou: %.4f'
          % (epoch, L / nb, A / nb, vl, va, vi))
    wr.writerow([epoch, step, L / nb, A / nb, vl, va, vi])
