# jaehyunnn/ViTPose_pytorch issue "The learning rate warms up to the preset value during training and quickly becomes
# 0" in miniature: the repository's top-down pose training loop (vitpose/utils/train_valid_fn.py) as it stood before the
# fix. A ViT backbone with the TopdownHeatmapSimpleHead (two stride-2 deconvolution blocks and a 1x1 conv) regresses one
# Gaussian heatmap per keypoint under JointsMSELoss(use_target_weight=True); AdamW(lr=5e-4, betas=(0.9, 0.999),
# weight_decay=0.1) from the config, wrapped as
#     lr_mult = [layer_decay_rate] * num_layers            # 0.75, 12 layers
#     layerwise_optimizer = LayerDecayOptimizer(optimizer, lr_mult)
# whose step() was
#     for i, group in enumerate(self.optimizer.param_groups):
#         group['lr'] *= self.layerwise_decay_rate[i]
#     self.optimizer.step(*args, **kwargs)
# then MultiStepLR(optimizer, milestones=lr_config['step'], gamma=0.1) stepped per epoch, and the linear warm-up
# LambdaLR(optimizer, lambda step: warmup_factor + (1.0 - warmup_factor) * step / num_warmup_steps) (warmup_ratio 0.001)
# stepped per iteration only while global_step < warmup_iters, clip_grad_norm_(max_norm=1.0) before every step, and the
# per-step "Epoch [...] | Loss ... | LR ... | Step" and per-epoch "[Summary] Epoch [...] | Average Loss ... --- ... sec.
# elapsed" lines. Scaled down: a 3-layer ViT (patch 8, width 64, 4 heads, 32-channel deconvolutions) on 64 x 48
# synthetic "person" pictures with 6 keypoints (head, shoulders, hands, hips; some joints occluded with target weight
# 0), 32 x 24 heatmaps (sigma 1.5), 768 training and 192 validation pictures, batch 16, 12 epochs, warmup_iters 24
# instead of 500 (half an epoch here, about a fifth of a COCO epoch there; the run is 576 steps, not
# 210 COCO epochs) and milestones [9, 11] instead of [170, 200]. metrics.csv has per-step loss and learning rate and
# per-epoch average training loss, validation loss and PCK (share of visible joints whose heatmap peak is within 2
# heatmap pixels of the truth).
import csv, math, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F
from torch.nn.utils import clip_grad_norm_
from torch.optim import AdamW
from torch.optim.lr_scheduler import LambdaLR, MultiStepLR

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)

K, H, W, HH, HW = 6, 64, 48, 32, 24
cfg = dict(optimizer=dict(lr=5e-4, betas=(0.9, 0.999), weight_decay=0.1,
                          paramwise_cfg=dict(num_layers=12, layer_decay_rate=0.75)),
           optimizer_config=dict(grad_clip=dict(max_norm=1., norm_type=2)),
           lr_config=dict(warmup_iters=24, warmup_ratio=0.001, step=[9, 11]),
           total_epochs=12, samples_per_gpu=16)


class LayerDecayOptimizer:
    def __init__(self, optimizer, layerwise_decay_rate):
        self.optimizer = optimizer
        self.layerwise_decay_rate = layerwise_decay_rate
        self.param_groups = optimizer.param_groups

    def step(self, *args, **kwargs):
        for i, group in enumerate(self.optimizer.param_groups):
            group['lr'] *= self.layerwise_decay_rate[i]
        self.optimizer.step(*args, **kwargs)

    def zero_grad(self, *args, **kwargs):
        self.optimizer.zero_grad(*args, **kwargs)


yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
hy, hx = np.mgrid[0:HH, 0:HW].astype(np.float32)
COL = np.array([[1, .9, .2], [.2, .9, 1], [1, .3, .9], [.3, 1, .3], [1, .5, .1], [.4, .4, 1]], np.float32)


def person(r):
    img = (r.uniform(0, .35, 3)[:, None, None] + r.normal(0, .12, (3, H, W))).astype(np.float32)
    cx, cy, s = r.uniform(18, 30), r.uniform(22, 40), r.uniform(.8, 1.2)
    pts = np.array([[cx + r.normal(0, 1.5), cy - 14 * s], [cx - 7 * s, cy - 7 * s], [cx + 7 * s, cy - 7 * s],
                    [cx - 9 * s + r.normal(0, 4), cy + r.normal(3, 5)], [cx + 9 * s + r.normal(0, 4), cy + r.normal(3, 5)],
                    [cx + r.normal(0, 1), cy + 10 * s]], np.float32)
    pts[:, 0] = np.clip(pts[:, 0], 2, W - 3); pts[:, 1] = np.clip(pts[:, 1], 2, H - 3)
    vis = (r.uniform(size=K) > 0.12).astype(np.float32)
    for a, b in ((0, 5), (1, 2), (1, 3), (2, 4)):  # torso and arms
        for t in np.linspace(0, 1, 24):
            px, py = pts[a] * (1 - t) + pts[b] * t
            m = (xx - px) ** 2 + (yy - py) ** 2 <= 2.2
            img[:, m] = img[:, m] * .3 + .45
    for j in range(K):
        if vis[j]:
            m = (xx - pts[j, 0]) ** 2 + (yy - pts[j, 1]) ** 2 <= 5
            img[:, m] = COL[j][:, None]
    tgt = np.exp(-((hx[None] - pts[:, 0, None, None] / 2) ** 2 + (hy[None] - pts[:, 1, None, None] / 2) ** 2) / (2 * 1.5 ** 2))
    return (img - .45) / .25, tgt.astype(np.float32), vis, pts / 2


def make(n, seed):
    r = np.random.RandomState(seed)
    out = [person(r) for _ in range(n)]
    return [torch.from_numpy(np.stack([o[i] for o in out])) for i in range(4)]


train_set, val_set = make(768, 1), make(192, 2)


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.n1, self.n2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        h = self.n1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.n2(x))


class ViTPose(nn.Module):
    def __init__(self, d=64, depth=3, heads=4, patch=8):
        super().__init__()
        self.gh, self.gw = H // patch, W // patch
        self.patch_embed = nn.Conv2d(3, d, patch, patch)
        self.pos_embed = nn.Parameter(torch.randn(1, self.gh * self.gw, d) * .02)
        self.blocks = nn.ModuleList([Block(d, heads) for _ in range(depth)])
        self.last_norm = nn.LayerNorm(d)
        layers, c = [], d
        for _ in range(2):
            layers += [nn.ConvTranspose2d(c, 32, 4, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU(inplace=True)]
            c = 32
        self.deconv_layers = nn.Sequential(*layers)
        self.final_layer = nn.Conv2d(32, K, 1)
        for m in self.deconv_layers.modules():  # TopdownHeatmapSimpleHead.init_weights
            if isinstance(m, nn.ConvTranspose2d):
                nn.init.normal_(m.weight, std=0.001)
        nn.init.normal_(self.final_layer.weight, std=0.001); nn.init.zeros_(self.final_layer.bias)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2) + self.pos_embed
        for b in self.blocks:
            x = b(x)
        x = self.last_norm(x).transpose(1, 2).reshape(x.shape[0], -1, self.gh, self.gw)
        return self.final_layer(self.deconv_layers(x))


class JointsMSELoss(nn.Module):
    def __init__(self, use_target_weight):
        super().__init__()
        self.use_target_weight = use_target_weight

    def forward(self, output, target, target_weight):
        b, k = output.shape[:2]
        p, g = output.reshape(b, k, -1), target.reshape(b, k, -1)
        loss = 0.
        for j in range(k):
            if self.use_target_weight:
                w = target_weight[:, j, None]
                loss = loss + 0.5 * F.mse_loss(p[:, j] * w, g[:, j] * w)
            else:
                loss = loss + 0.5 * F.mse_loss(p[:, j], g[:, j])
        return loss / k


def evaluate(model, criterion):
    model.eval()
    with torch.no_grad():
        img, tgt, vis, pts = val_set
        out = model(img)
        loss = criterion(out, tgt, vis).item()
        idx = out.flatten(2).argmax(2)
        py, px = (idx // HW).float(), (idx % HW).float()
        d = ((px - pts[..., 0]) ** 2 + (py - pts[..., 1]) ** 2).sqrt()
        pck = ((d <= 2).float() * vis).sum().item() / vis.sum().item()
    model.train()
    return loss, pck


model = ViTPose()
criterion = JointsMSELoss(use_target_weight=True)
optimizer = AdamW(model.parameters(), lr=cfg['optimizer']['lr'], betas=cfg['optimizer']['betas'],
                  weight_decay=cfg['optimizer']['weight_decay'])
lr_mult = [cfg['optimizer']['paramwise_cfg']['layer_decay_rate']] * cfg['optimizer']['paramwise_cfg']['num_layers']
layerwise_optimizer = LayerDecayOptimizer(optimizer, lr_mult)
scheduler = MultiStepLR(optimizer, cfg['lr_config']['step'], 0.1)
num_warmup_steps = cfg['lr_config']['warmup_iters']
warmup_factor = cfg['lr_config']['warmup_ratio']
warmup_scheduler = LambdaLR(optimizer, lr_lambda=lambda step: warmup_factor + (1.0 - warmup_factor) * step / num_warmup_steps)

total_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
print('#========= [Train Configs] =========#\n# - Batch size: %d\n# - LR: %.6f\n# - Num params: %s\n#===================================#'
      % (cfg['samples_per_gpu'], cfg['optimizer']['lr'], format(total_params, ',d')))
vl, vp = evaluate(model, criterion)
print('before training: val loss %.6f  val PCK %.4f' % (vl, vp))
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'step', 'lr', 'loss', 'avg_train_loss', 'val_loss', 'val_pck'])
n = len(train_set[0]); bs = cfg['samples_per_gpu']; steps_per_epoch = n // bs
global_step = 0
for epoch in range(cfg['total_epochs']):
    model.train()
    total_loss = 0; tic = time.time()
    perm = torch.randperm(n)
    for batch_idx in range(steps_per_epoch):
        layerwise_optimizer.zero_grad()
        idx = perm[batch_idx * bs:(batch_idx + 1) * bs]
        images, targets, target_weights = train_set[0][idx], train_set[1][idx], train_set[2][idx]
        outputs = model(images)
        loss = criterion(outputs, targets, target_weights)
        loss.backward()
        clip_grad_norm_(model.parameters(), **cfg['optimizer_config']['grad_clip'])
        layerwise_optimizer.step()
        used_lr = optimizer.param_groups[0]['lr']
        if global_step < num_warmup_steps:
            warmup_scheduler.step()
        global_step += 1
        total_loss += loss.item()
        wr.writerow([epoch, global_step, '%.4g' % used_lr, round(loss.item(), 7), '', '', ''])
        if (batch_idx + 1) % 8 == 0:
            print('> Epoch [%s/%s] | Loss %.6f | LR %.6f | Step %d/%d' % (str(epoch).zfill(3), str(cfg['total_epochs']).zfill(3),
                  loss.item(), optimizer.param_groups[0]['lr'], batch_idx + 1, steps_per_epoch), flush=True)
    scheduler.step()
    vl, vp = evaluate(model, criterion)
    print('[Summary] Epoch [%s/%s] | Average Loss %.6f --- %.5f sec. elapsed | val loss %.6f | val PCK %.4f'
          % (str(epoch).zfill(3), str(cfg['total_epochs']).zfill(3), total_loss / steps_per_epoch, time.time() - tic, vl, vp),
          flush=True)
    wr.writerow([epoch, global_step, '%.4g' % optimizer.param_groups[0]['lr'], '', round(total_loss / steps_per_epoch, 7),
                 round(vl, 7), round(vp, 4)]); f.flush()
f.close()
