# alexgkendall/SegNet-Tutorial issue "Overfitting" in miniature, ported from Caffe to PyTorch: the
# tutorial's SegNet-Basic (LRN, four encoder blocks conv 7x7 - BN - ReLU - max pool with switches, four
# decoder blocks max unpool - conv 7x7 - BN, 1x1 classifier, SoftmaxWithLoss, Accuracy and per-class
# accuracy outputs; 64 -> 16 filters here) trained with segnet_basic_solver.prototxt's settings (SGD
# base_lr 0.1, momentum 0.9, weight_decay 0.0005, batch_size 4, display 20) on the poster's own small
# data set: about 90 labelled images with 2 classes, here 90 synthetic 48 x 48 scenes (class 1: striped
# rods at random positions and angles, class 0: background and round clutter), used as they are (no
# augmentation). 60 further scenes are the test set; Caffe-style "Testing net" lines every 250
# iterations report their accuracy and loss. 1000 iterations instead of the solver's max_iter 10000.
import csv, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
H = W = 48

def scene(rs):
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    img = np.zeros((3, H, W), np.float32); lab = np.zeros((H, W), np.int64)
    img += rs.uniform(0.2, 0.6, 3)[:, None, None] + 0.08 * rs.randn(3, H, W)
    for _ in range(rs.randint(3, 7)):                                   # round clutter (class 0)
        cx, cy, r = rs.uniform(0, W), rs.uniform(0, H), rs.uniform(2, 6)
        m = (xx - cx) ** 2 + (yy - cy) ** 2 < r * r
        img[:, m] = rs.uniform(0.1, 0.9, 3)[:, None]
    for _ in range(rs.randint(1, 4)):                                   # striped rods (class 1)
        cx, cy = rs.uniform(8, W - 8), rs.uniform(8, H - 8); th = rs.uniform(0, np.pi)
        L, Wd = rs.uniform(7, 16), rs.uniform(2.5, 4.5)
        u = (xx - cx) * np.cos(th) + (yy - cy) * np.sin(th); v = -(xx - cx) * np.sin(th) + (yy - cy) * np.cos(th)
        m = (np.abs(u) < L) & (np.abs(v) < Wd)
        col = rs.uniform(0.1, 0.9, 3); stripe = 0.5 + 0.5 * np.sign(np.sin(u * 1.6))
        for c in range(3): img[c][m] = (col[c] * (0.6 + 0.4 * stripe))[m]
        lab[m] = 1
    return img, lab

rs = np.random.RandomState(1)
train = [scene(rs) for _ in range(90)]; test = [scene(rs) for _ in range(60)]
Xtr = torch.tensor(np.stack([a for a, b in train])); Ytr = torch.tensor(np.stack([b for a, b in train]))
Xte = torch.tensor(np.stack([a for a, b in test])); Yte = torch.tensor(np.stack([b for a, b in test]))

class SegNetBasic(nn.Module):
    def __init__(self, c=16, k=7, num_classes=2):
        super().__init__()
        self.norm = nn.LocalResponseNorm(5, alpha=0.0001, beta=0.75)
        self.enc = nn.ModuleList([nn.Sequential(nn.Conv2d(3 if i == 0 else c, c, k, padding=k // 2), nn.BatchNorm2d(c), nn.ReLU())
                                  for i in range(4)])
        self.dec = nn.ModuleList([nn.Sequential(nn.Conv2d(c, c, k, padding=k // 2), nn.BatchNorm2d(c)) for i in range(4)])
        self.conv_classifier = nn.Conv2d(c, num_classes, 1)
        for m in self.modules():
            if isinstance(m, nn.Conv2d): nn.init.kaiming_normal_(m.weight); nn.init.zeros_(m.bias)   # msra filler
    def forward(self, x):
        x = self.norm(x); masks = []; sizes = []
        for e in self.enc:
            x = e(x); sizes.append(x.shape[-2:]); x, m = F.max_pool2d(x, 2, 2, return_indices=True); masks.append(m)
        for d in self.dec:
            x = d(F.max_unpool2d(x, masks.pop(), 2, 2, output_size=sizes.pop()))
        return self.conv_classifier(x)

def per_class_accuracy(pred, y, n=2):
    return [((pred == c) & (y == c)).sum().item() / max(1, (y == c).sum().item()) for c in range(n)]

t0 = time.time()
def glog(src, msg):                                     # Caffe's glog prefix
    t = 36000 + time.time() - t0
    print('I0315 %02d:%02d:%09.6f  5758 %s] %s' % (t // 3600, t % 3600 // 60, t % 60, src, msg), flush=True)

net = SegNetBasic()
solver = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9, weight_decay=0.0005)
batch_size, display, test_interval, max_iter = 4, 20, 250, 1000
glog('solver.cpp:48', 'Initializing solver from parameters: base_lr: 0.1 display: 20 max_iter: %d lr_policy: "step" gamma: 1 momentum: 0.9 weight_decay: 0.0005' % max_iter)
glog('net.cpp:247', 'Network initialization done. Train set: 90 images, test set: 60 images, 2 classes')
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['iter', 'loss', 'accuracy', 'test_loss', 'test_accuracy'])
order = np.random.permutation(90); pos = 0

def test(it):
    net.eval()
    with torch.no_grad():
        out = net(Xte); loss = F.cross_entropy(out, Yte).item(); pred = out.argmax(1)
        acc = (pred == Yte).float().mean().item(); pca = per_class_accuracy(pred, Yte)
    net.train()
    glog('solver.cpp:340', 'Iteration %d, Testing net (#0)' % it)
    glog('solver.cpp:408', '    Test net output #0: accuracy = %g' % round(acc, 6))
    glog('solver.cpp:408', '    Test net output #1: loss = %g (* 1 = %g loss)' % (round(loss, 6), round(loss, 6)))
    glog('solver.cpp:408', '    Test net output #2: per_class_accuracy = %g' % round(pca[0], 6))
    glog('solver.cpp:408', '    Test net output #3: per_class_accuracy = %g' % round(pca[1], 6))
    wr.writerow([it, '', '', round(loss, 6), round(acc, 6)]); f.flush()

net.train()
for it in range(max_iter + 1):
    if it % test_interval == 0: test(it)
    if it == max_iter: break
    if pos + batch_size > 90: order = np.random.permutation(90); pos = 0        # shuffle: true
    idx = order[pos:pos + batch_size]; pos += batch_size
    data, label = Xtr[idx], Ytr[idx]
    out = net(data); loss = F.cross_entropy(out, label)
    solver.zero_grad(); loss.backward(); solver.step()
    if it % display == 0:
        pred = out.argmax(1); acc = (pred == label).float().mean().item(); pca = per_class_accuracy(pred, label)
        glog('solver.cpp:214', 'Iteration %d, loss = %g' % (it, round(loss.item(), 6)))
        glog('solver.cpp:229', '    Train net output #0: accuracy = %g' % round(acc, 6))
        glog('solver.cpp:229', '    Train net output #1: loss = %g (* 1 = %g loss)' % (round(loss.item(), 6), round(loss.item(), 6)))
        glog('solver.cpp:229', '    Train net output #2: per_class_accuracy = %g' % round(pca[0], 6))
        glog('solver.cpp:229', '    Train net output #3: per_class_accuracy = %g' % round(pca[1], 6))
        glog('solver.cpp:486', 'Iteration %d, lr = 0.1' % it)
        wr.writerow([it, round(loss.item(), 6), round(acc, 6), '', '']); f.flush()
glog('solver.cpp:418', 'Snapshotting to segnet_basic_iter_%d.caffemodel' % max_iter)
net.eval()
with torch.no_grad():
    tr_acc = (net(Xtr).argmax(1) == Ytr).float().mean().item(); te_acc = (net(Xte).argmax(1) == Yte).float().mean().item()
print('global accuracy on the training images: %.4f, on the test images: %.4f' % (tr_acc, te_acc))
f.close()
