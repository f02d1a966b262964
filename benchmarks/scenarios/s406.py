# FCN-AlexNet (longjon/caffe "future" branch, Caffe) semantic segmentation in miniature, ported to
# PyTorch: conv1-conv5 + fc6/fc7 as convolutions, score_fr (21 classes) and an upscore
# Deconvolution (bias_term: false), SoftmaxWithLoss with ignore_label 255, SGD momentum 0.9,
# lr 1e-4 (fixed), synthetic 64x64 images of 1-3 coloured shapes on 21 classes, batch 1 as in the
# FCN solvers, Caffe-style "solver.cpp] Iteration N, loss = X" lines.
# The net is trained from scratch without copying ImageNet weights, and the layer definitions carry
# no weight_filler, so every weight gets Caffe's default filler (constant 0).
import csv, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(6); torch.manual_seed(6); torch.set_num_threads(1)
S, NC = 64, 21
yy, xx = np.mgrid[0:S, 0:S]
palette = np.random.rand(NC, 3).astype(np.float32)
def sample():
    lab = np.zeros((S, S), np.int64)
    for _ in range(np.random.randint(1, 4)):
        c = np.random.randint(1, NC); cy, cx, r = np.random.randint(10, 54, 2).tolist() + [np.random.randint(6, 16)]
        lab[(yy - cy) ** 2 + (xx - cx) ** 2 < r * r] = c
    img = palette[lab] + 0.1 * np.random.randn(S, S, 3).astype(np.float32)
    lab[np.random.rand(S, S) < 0.02] = 255
    return torch.tensor(img.transpose(2, 0, 1))[None], torch.tensor(lab)[None]

class FCNAlex(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 24, 5, stride=2, padding=2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(24, 48, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(48, 64, 3, padding=1), nn.ReLU(), nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(),
            nn.Conv2d(64, 48, 3, padding=1), nn.ReLU())
        self.fc6 = nn.Conv2d(48, 128, 3, padding=1); self.fc7 = nn.Conv2d(128, 128, 1)
        self.score_fr = nn.Conv2d(128, NC, 1)
        self.upscore = nn.ConvTranspose2d(NC, NC, 16, stride=8, padding=4, bias=False)
    def forward(self, x):
        h = self.features(x); h = F.dropout(F.relu(self.fc6(h)), 0.5, self.training)
        h = F.dropout(F.relu(self.fc7(h)), 0.5, self.training)
        return self.upscore(self.score_fr(h))

net = FCNAlex()
# layers defined without weight_filler / bias_filler -> Caffe default "constant" filler, value 0
for m in net.modules():
    if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d)):
        nn.init.constant_(m.weight, 0.0)
        if m.bias is not None: nn.init.constant_(m.bias, 0.0)
opt = torch.optim.SGD(net.parameters(), lr=1e-4, momentum=0.9, weight_decay=5e-4)
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['iteration', 'loss'])
print("I0909 %s solver.cpp:266] Learning Rate Policy: fixed" % time.strftime('%H:%M:%S'))
run = 0.0
for it in range(0, 1001):
    img, lab = sample(); net.train()
    loss = F.cross_entropy(net(img), lab, ignore_index=255)
    opt.zero_grad(); loss.backward(); opt.step(); run += loss.item()
    if it % 40 == 0:
        avg = run / (1 if it == 0 else 40); run = 0.0
        print("I0909 %s solver.cpp:214] Iteration %d, loss = %g" % (time.strftime('%H:%M:%S'), it, avg))
        print("I0909 %s solver.cpp:229]     Train net output #0: loss = %g (* 1 = %g loss)" % (time.strftime('%H:%M:%S'), loss.item(), loss.item()))
        print("I0909 %s solver.cpp:486] Iteration %d, lr = 0.0001" % (time.strftime('%H:%M:%S'), it))
        wr.writerow([it, round(avg, 5)])
