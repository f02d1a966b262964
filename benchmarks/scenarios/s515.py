# easton-cau/SOTR issue "RuntimeError: one of the variables needed for gradient computation has been modified by
# an inplace operation:" in miniature: SOTR-style instance segmentation trained with a detectron2-like loop
# (SGD lr 0.01 momentum 0.9 weight decay 1e-4, linear warm-up, "iter: ... total_loss: ... loss_ins: ...
# loss_cate: ... lr: ..." lines every 20 iterations). The mask head follows SOTR's MaskHead (MASK_IN_FEATURES
# p2-p5, a conv-GN-ReLU tower per level, levels above p2 upsampled by 2 per conv, then a 1x1 conv_pred with GN
# and ReLU); its forward sums the levels with
#     feature_add_all_level = self.convs_all_levels[0](features[0])
#     feature_add_all_level += self.convs_all_levels[i](mask_feat)
# so the in-place add overwrites the output of level 0's ReLU, which ReLU's backward needs. A small ResNet-like
# backbone with FPN (32 channels) replaces R50-FPN, a single 8 x 8 category / dynamic-kernel grid on p3 replaces
# the transformer heads (kernel x mask features -> instance mask, Dice loss for the positive cells, sigmoid focal
# loss for the categories), and 64 x 64 synthetic pictures with one to three discs / boxes replace COCO.
# The installed PyTorch runs on the CPU.
import csv, math, time, datetime, sys
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
rs = np.random.RandomState(0)

def log(name, msg):
    print('[%s %s]: %s' % (datetime.datetime.now().strftime('%m/%d %H:%M:%S'), name, msg), flush=True)

# ---------------- config (configs/SOTR/Base-SOTR.yaml, scaled)
class cfg:
    NUM_CLASSES = 2; NUM_GRID = 8; NUM_MASKS = 32
    MASK_IN_FEATURES = ['p2', 'p3', 'p4', 'p5']; MASK_IN_CHANNELS = 32; MASK_CHANNELS = 32; NORM = 'GN'
    IMS_PER_BATCH = 8; BASE_LR = 0.01; WARMUP_FACTOR = 0.01; WARMUP_ITERS = 50; MAX_ITER = 300
    LOSS_INS_WEIGHT = 3.0; FOCAL_ALPHA = 0.25; FOCAL_GAMMA = 2.0

# ---------------- synthetic data
S = 64
def make_item():
    img = (0.25 * rs.rand(3, S, S) + 0.1 * rs.rand(3, 1, 1)).astype(np.float32)
    inst = []
    for _ in range(rs.randint(1, 4)):
        cls = rs.randint(cfg.NUM_CLASSES); r = rs.randint(6, 12)
        cy, cx = rs.randint(r, S - r), rs.randint(r, S - r)
        yy, xx = np.mgrid[:S, :S]
        m = ((yy - cy) ** 2 + (xx - cx) ** 2 <= r * r) if cls == 0 else ((abs(yy - cy) <= r) & (abs(xx - cx) <= r * 0.7))
        m = m.astype(np.float32)
        for ok in inst:
            m = m * (1 - ok[0])
        if m.sum() < 20:
            continue
        col = rs.rand(3).astype(np.float32) * 0.6 + 0.4
        img = img * (1 - m) + m * col[:, None, None] * (0.8 + 0.2 * rs.rand(1, S, S)).astype(np.float32)
        inst.append((m, cls, cy, cx))
    return img, inst

DATA = [make_item() for _ in range(400)]

# ---------------- backbone + FPN (stand-in for build_resnet_fpn_backbone)
def block(cin, cout, stride):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
                         nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())

class FPNBackbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.res2 = block(16, 16, 2); self.res3 = block(16, 32, 2); self.res4 = block(32, 48, 2); self.res5 = block(48, 64, 2)
        self.lat = nn.ModuleList([nn.Conv2d(c, 32, 1) for c in (16, 32, 48, 64)])
        self.out = nn.ModuleList([nn.Conv2d(32, 32, 3, 1, 1) for _ in range(4)])
    def forward(self, x):
        c2 = self.res2(self.stem(x)); c3 = self.res3(c2); c4 = self.res4(c3); c5 = self.res5(c4)
        feats = [c2, c3, c4, c5]; p = self.lat[3](c5); outs = [self.out[3](p)]
        for i in (2, 1, 0):
            p = self.lat[i](feats[i]) + F.interpolate(p, scale_factor=2, mode='nearest')
            outs.insert(0, self.out[i](p))
        return dict(zip(['p2', 'p3', 'p4', 'p5'], outs))

# ---------------- SOTR mask head (as in adet/modeling/sotr/sotr.py, MaskHead)
class MaskHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.num_levels = len(cfg.MASK_IN_FEATURES)
        def tower(cin):
            layers = [nn.Conv2d(cin, cfg.MASK_CHANNELS, 3, 1, 1, bias=cfg.NORM is None)]
            if cfg.NORM == 'GN':
                layers.append(nn.GroupNorm(32, cfg.MASK_CHANNELS))
            layers.append(nn.ReLU(inplace=False))
            return nn.Sequential(*layers)
        self.convs_all_levels = nn.ModuleList()
        for i in range(self.num_levels):
            convs_per_level = nn.Sequential()
            if i == 0:
                convs_per_level.add_module('conv0', tower(cfg.MASK_IN_CHANNELS))
                self.convs_all_levels.append(convs_per_level)
                continue
            for j in range(i):
                convs_per_level.add_module('conv' + str(j), tower(cfg.MASK_IN_CHANNELS if j == 0 else cfg.MASK_CHANNELS))
                convs_per_level.add_module('upsample' + str(j), nn.Upsample(scale_factor=2, mode='bilinear', align_corners=False))
            self.convs_all_levels.append(convs_per_level)
        self.conv_pred = nn.Sequential(nn.Conv2d(cfg.MASK_CHANNELS, cfg.NUM_MASKS, 1, 1, 0, bias=cfg.NORM is None),
                                       nn.GroupNorm(32, cfg.NUM_MASKS), nn.ReLU(inplace=True))
        for modules in [self.convs_all_levels, self.conv_pred]:
            for l in modules.modules():
                if isinstance(l, nn.Conv2d):
                    torch.nn.init.normal_(l.weight, std=0.01)
                    if l.bias is not None:
                        nn.init.constant_(l.bias, 0)

    def forward(self, features):
        assert len(features) == self.num_levels
        feature_add_all_level = self.convs_all_levels[0](features[0])
        for i in range(1, self.num_levels):
            mask_feat = features[i]
            feature_add_all_level += self.convs_all_levels[i](mask_feat)
        mask_pred = self.conv_pred(feature_add_all_level)
        return mask_pred

# ---------------- category / kernel branch on an S x S grid (stand-in for SOTR's transformer heads)
class GridHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.tower = nn.Sequential(nn.Conv2d(32 + 2, 64, 3, 1, 1), nn.GroupNorm(32, 64), nn.ReLU(),
                                   nn.Conv2d(64, 64, 3, 1, 1), nn.GroupNorm(32, 64), nn.ReLU())
        self.cate = nn.Conv2d(64, cfg.NUM_CLASSES, 3, 1, 1); self.kernel = nn.Conv2d(64, cfg.NUM_MASKS, 3, 1, 1)
        nn.init.constant_(self.cate.bias, -math.log((1 - 0.01) / 0.01))
    def forward(self, p3):
        n, _, h, w = p3.shape
        ys, xs = torch.meshgrid(torch.linspace(-1, 1, h), torch.linspace(-1, 1, w), indexing='ij')
        x = torch.cat([p3, xs.expand(n, 1, h, w), ys.expand(n, 1, h, w)], 1)
        x = F.interpolate(x, size=(cfg.NUM_GRID, cfg.NUM_GRID), mode='bilinear', align_corners=False)
        t = self.tower(x)
        return self.cate(t), self.kernel(t)

class SOTR(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = FPNBackbone(); self.grid_head = GridHead(); self.mask_head = MaskHead()
    def forward(self, images, targets):
        feats = self.backbone(images)
        cate_pred, kernel_pred = self.grid_head(feats['p3'])
        mask_feat = self.mask_head([feats[f] for f in cfg.MASK_IN_FEATURES])         # (N, E, 16, 16)
        cate_t = torch.zeros_like(cate_pred); ins_losses = []
        for b, inst in enumerate(targets):
            for m, cls, cy, cx in inst:
                gy, gx = int(cy * cfg.NUM_GRID / S), int(cx * cfg.NUM_GRID / S)
                cate_t[b, cls, gy, gx] = 1.0
                k = kernel_pred[b, :, gy, gx]
                pred = torch.sigmoid((mask_feat[b] * k[:, None, None]).sum(0))
                gt = F.avg_pool2d(torch.tensor(m)[None, None], 4)[0, 0]
                inter = (pred * gt).sum(); dice = 1 - 2 * inter / ((pred * pred).sum() + (gt * gt).sum() + 1e-3)
                ins_losses.append(dice)
        loss_ins = torch.stack(ins_losses).mean() * cfg.LOSS_INS_WEIGHT
        p = torch.sigmoid(cate_pred); ce = F.binary_cross_entropy_with_logits(cate_pred, cate_t, reduction='none')
        pt = p * cate_t + (1 - p) * (1 - cate_t)
        a = cfg.FOCAL_ALPHA * cate_t + (1 - cfg.FOCAL_ALPHA) * (1 - cate_t)
        loss_cate = (a * (1 - pt) ** cfg.FOCAL_GAMMA * ce).sum() / (cate_t.sum() + 1)
        return {'loss_ins': loss_ins, 'loss_cate': loss_cate}

model = SOTR()
log('d2.engine.defaults', 'Model:\n%s' % model.mask_head)
optimizer = torch.optim.SGD(model.parameters(), lr=cfg.BASE_LR, momentum=0.9, weight_decay=1e-4)
def lr_at(it):
    if it < cfg.WARMUP_ITERS:
        a = it / cfg.WARMUP_ITERS
        return cfg.BASE_LR * (cfg.WARMUP_FACTOR * (1 - a) + a)
    return cfg.BASE_LR
log('d2.data.build', 'Using training sampler TrainingSampler')
log('d2.data.common', 'Serializing %d elements to byte tensors and concatenating them all ...' % len(DATA))
log('d2.engine.train_loop', 'Starting training from iteration 0')

wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['iter', 'total_loss', 'loss_ins', 'loss_cate', 'lr'])
model.train(); t0 = time.time(); hist = []
for it in range(cfg.MAX_ITER):
    idx = rs.choice(len(DATA), cfg.IMS_PER_BATCH, replace=False)
    images = torch.tensor(np.stack([DATA[i][0] for i in idx]))
    targets = [DATA[i][1] for i in idx]
    for g in optimizer.param_groups:
        g['lr'] = lr_at(it)
    loss_dict = model(images, targets)
    losses = sum(loss_dict.values())
    optimizer.zero_grad()
    losses.backward()
    optimizer.step()
    hist.append([losses.item(), loss_dict['loss_ins'].item(), loss_dict['loss_cate'].item()])
    wr.writerow([it, round(losses.item(), 5), round(loss_dict['loss_ins'].item(), 5), round(loss_dict['loss_cate'].item(), 5), lr_at(it)])
    if (it + 1) % 20 == 0 or it == cfg.MAX_ITER - 1:
        med = np.median(np.array(hist[-20:]), 0); el = (time.time() - t0) / (it + 1)
        eta = datetime.timedelta(seconds=int(el * (cfg.MAX_ITER - it - 1)))
        log('d2.utils.events', ' eta: %s  iter: %d  total_loss: %.3f  loss_ins: %.3f  loss_cate: %.3f  time: %.4f  data_time: 0.0010  lr: %.6f  max_mem: 0M'
            % (eta, it, med[0], med[1], med[2], el, lr_at(it)))
log('d2.engine.hooks', 'Overall training speed: %d iterations in %s (%.4f s / it)' % (cfg.MAX_ITER, datetime.timedelta(seconds=int(time.time() - t0)), (time.time() - t0) / cfg.MAX_ITER))
