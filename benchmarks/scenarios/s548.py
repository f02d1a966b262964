# zhyever/Monocular-Depth-Estimation-Toolbox issue "Loss not reducing" in miniature: training DepthFormer with the
# toolbox's direct-regression depth head. DepthBaseDecodeHead.depth_pred() (depth/models/decode_heads/decode_head.py)
# turns the single-channel conv_depth output into depth with
#     output = self.relu(self.conv_depth(feat)) + self.min_depth        (scale_up=False, the default)
# and only the scale_up=True variant (BTS-style) uses self.sigmoid(self.conv_depth(feat)) * self.max_depth. The loss is
# SigLoss (depth/models/losses/sigloss.py: valid_mask on target > 0, g = log(pred) - log(target),
# sqrt(var(g) + 0.15 * mean(g)^2), loss_weight 1.0). The config is depthformer_swint_w7_nyu.py: DenseDepthHead with
# LeakyReLU, channels 64, min_depth 1e-3, max_depth 10; AdamW (betas 0.9 / 0.999, weight decay 0.01), linear warm-up
# (warmup_ratio 1e-3) into cosine annealing by iteration, grad_clip max_norm 35; IterBasedRunner with a TextLoggerHook
# line every 50 iterations and an evaluation (a1, abs_rel, rmse, ...) every 1600 iterations; NYU img_norm_cfg.
# DenseDepthHead (densedepth_head.py): a 1x1 ConvModule on the deepest feature, then UpSample fusion blocks (bilinear
# upsampling, concatenation with the skip, two 3x3 ConvModules with LeakyReLU, mmcv kaiming init), and conv_depth on the
# last fused feature. Scaled down: a small conv-BN encoder (four stride-2 stages, widths 16-64) instead of the Swin-T
# backbone and HAHI neck, decoder widths 16-64, 32 x 48 synthetic indoor scenes (a room box: floor, ceiling and back
# wall at 4-9 m, plus one or two boxes in front, textured and shaded so that the picture carries the depth cue; depth
# in metres, 2 % of the pixels 0 = invalid), 1600 training and 160 validation scenes, batch 8, 300 iterations,
# warm-up 60 iterations, peak learning rate 1e-3 instead of 6e-5 (to compress the schedule). metrics.csv has the
# logged training loss, learning rate and gradient norm every 25 iterations and the validation metrics every 100.
import csv, math, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(3); np.random.seed(3); torch.set_num_threads(1)

H, W = 32, 48
MIN_DEPTH, MAX_DEPTH = 1e-3, 10.0
MAX_ITERS, WARMUP_ITERS, WARMUP_RATIO, MAX_LR = 300, 60, 1.0 / 1000, 1e-3
LOG_INTERVAL, EVAL_INTERVAL, BATCH = 25, 100, 8
MEAN = np.array([123.675, 116.28, 103.53], np.float32)
STD = np.array([58.395, 57.12, 57.375], np.float32)


def make_scene(r):
    """A synthetic NYU-like room: back wall, floor and ceiling planes plus boxes; returns (img uint8 HxWx3, depth)."""
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    back = r.uniform(4.0, 9.0)
    horizon = r.uniform(0.35, 0.6) * H
    depth = np.full((H, W), back, np.float32)
    floor = yy > horizon + 4
    depth[floor] = np.minimum(back, 1.2 * H / (yy[floor] - horizon + 1e-3) + 0.9)
    ceil = yy < horizon - 14
    depth[ceil] = np.minimum(back, 1.5 * H / (horizon - yy[ceil] + 1e-3) + 1.0)
    for _ in range(r.randint(1, 3)):
        d = r.uniform(1.2, back - 0.5)
        h = int(np.clip(22 / d * r.uniform(0.8, 1.4), 4, H - 2)); w = int(np.clip(30 / d * r.uniform(0.7, 1.5), 4, W - 2))
        y0 = int(np.clip(horizon + 40 / d - h, 0, H - h)); x0 = r.randint(0, W - w)
        patch = depth[y0:y0 + h, x0:x0 + w]
        depth[y0:y0 + h, x0:x0 + w] = np.minimum(patch, d)
    albedo = r.uniform(0.4, 1.0, 3).astype(np.float32)
    tex = 0.5 + 0.5 * np.sin(xx * 6.0 / depth + r.uniform(0, 6)) * np.sin(yy * 6.0 / depth)
    shade = 1.0 / (0.35 + 0.16 * depth)
    img = 255 * np.clip(albedo[None, None] * (0.55 * shade + 0.25 * tex)[..., None] + r.normal(0, 0.02, (H, W, 3)), 0, 1)
    depth = depth.copy(); depth[r.uniform(0, 1, (H, W)) < 0.02] = 0.0   # missing Kinect returns
    return img.astype(np.uint8), depth


def build(n, seed):
    r = np.random.RandomState(seed)
    imgs, deps = zip(*[make_scene(r) for _ in range(n)])
    x = (np.stack(imgs).astype(np.float32) - MEAN) / STD
    return torch.from_numpy(x).permute(0, 3, 1, 2).contiguous(), torch.from_numpy(np.stack(deps))[:, None]


train_x, train_d = build(1600, 11)
val_x, val_d = build(160, 12)


def conv_bn(i, o, s):
    return nn.Sequential(nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))


class Encoder(nn.Module):
    def __init__(self, chans=(16, 24, 32, 48, 64)):
        super().__init__()
        self.stem = conv_bn(3, chans[0], 1)
        self.stages = nn.ModuleList([nn.Sequential(conv_bn(chans[i], chans[i + 1], 2), conv_bn(chans[i + 1], chans[i + 1], 1))
                                     for i in range(4)])

    def forward(self, x):
        feats = [self.stem(x)]
        for s in self.stages:
            feats.append(s(feats[-1]))
        return feats


def conv_module(i, o, k, act):
    # mmcv ConvModule without norm: conv (+ LeakyReLU), kaiming_init(mode='fan_out', nonlinearity='leaky_relu', a=0.01)
    conv = nn.Conv2d(i, o, k, 1, k // 2)
    nn.init.kaiming_normal_(conv.weight, a=0.01, mode='fan_out', nonlinearity='leaky_relu'); nn.init.zeros_(conv.bias)
    return nn.Sequential(conv, nn.LeakyReLU(0.01, inplace=True)) if act else conv


class UpSample(nn.Module):
    """Fusion module (from Adabins), as in densedepth_head.py."""
    def __init__(self, skip_input, output_features):
        super().__init__()
        self.convA = conv_module(skip_input, output_features, 3, True)
        self.convB = conv_module(output_features, output_features, 3, True)

    def forward(self, x, concat_with):
        up_x = F.interpolate(x, size=[concat_with.size(2), concat_with.size(3)], mode='bilinear', align_corners=True)
        return self.convB(self.convA(torch.cat([up_x, concat_with], dim=1)))


class DenseDepthHead(nn.Module):
    def __init__(self, in_channels=(16, 24, 32, 48, 64), up_sample_channels=(16, 24, 32, 48, 64), channels=16,
                 min_depth=MIN_DEPTH, max_depth=MAX_DEPTH, scale_up=False):
        super().__init__()
        self.min_depth, self.max_depth, self.scale_up = min_depth, max_depth, scale_up
        in_channels, up_sample_channels = in_channels[::-1], up_sample_channels[::-1]
        self.conv_list = nn.ModuleList()
        up_channel_temp = 0
        for index, (in_channel, up_channel) in enumerate(zip(in_channels, up_sample_channels)):
            if index == 0:
                self.conv_list.append(conv_module(in_channel, up_channel, 1, False))
            else:
                self.conv_list.append(UpSample(in_channel + up_channel_temp, up_channel))
            up_channel_temp = up_channel
        self.conv_depth = nn.Conv2d(channels, 1, kernel_size=3, padding=1, stride=1)
        self.relu = nn.ReLU(); self.sigmoid = nn.Sigmoid()

    def depth_pred(self, feat):
        if self.scale_up:
            output = self.sigmoid(self.conv_depth(feat)) * self.max_depth
        else:
            output = self.relu(self.conv_depth(feat)) + self.min_depth
        return output

    def forward(self, inputs):
        temp_feat_list = []
        for index, feat in enumerate(inputs[::-1]):
            if index == 0:
                temp_feat_list.append(self.conv_list[index](feat))
            else:
                temp_feat_list.append(self.conv_list[index](temp_feat_list[index - 1], feat))
        return self.depth_pred(temp_feat_list[-1])


class SigLoss(nn.Module):
    def __init__(self, valid_mask=True, loss_weight=1.0, max_depth=None):
        super().__init__()
        self.valid_mask, self.loss_weight, self.max_depth = valid_mask, loss_weight, max_depth

    def sigloss(self, input, target):
        if self.valid_mask:
            valid_mask = target > 0
            if self.max_depth is not None:
                valid_mask = torch.logical_and(target > 0, target <= self.max_depth)
            input = input[valid_mask]; target = target[valid_mask]
        g = torch.log(input) - torch.log(target)
        Dg = torch.var(g) + 0.15 * torch.pow(torch.mean(g), 2)
        return torch.sqrt(Dg)

    def forward(self, depth_pred, depth_gt):
        return self.loss_weight * self.sigloss(depth_pred, depth_gt)


class DepthEncoderDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = Encoder(); self.decode_head = DenseDepthHead(); self.loss_decode = SigLoss()

    def forward(self, img):
        pred = self.decode_head(self.backbone(img))
        return F.interpolate(pred, size=img.shape[2:], mode='bilinear', align_corners=True)


def eval_metrics(pred, gt):
    m = gt > 0
    p = pred[m].clamp(MIN_DEPTH, MAX_DEPTH); g = gt[m]
    thresh = torch.max(g / p, p / g)
    return dict(a1=(thresh < 1.25).float().mean().item(), abs_rel=((g - p).abs() / g).mean().item(),
                rmse=((g - p) ** 2).mean().sqrt().item(), log_10=(torch.log10(g) - torch.log10(p)).abs().mean().item(),
                silog=(lambda e: (e.pow(2).mean() - e.mean().pow(2)).sqrt().item() * 100)(torch.log(p) - torch.log(g)))


def lr_at(it):
    # mmcv CosineAnnealingLrUpdaterHook with linear warm-up, by_epoch=False, min_lr_ratio 1e-8
    target = MAX_LR * 1e-8 + 0.5 * (MAX_LR - MAX_LR * 1e-8) * (1 + math.cos(math.pi * it / MAX_ITERS))
    if it < WARMUP_ITERS:
        k = (1 - it / WARMUP_ITERS) * (1 - WARMUP_RATIO)
        return target * (1 - k)
    return target


model = DepthEncoderDecoder()
decay, no_decay = [], []
for n_, p_ in model.named_parameters():
    (no_decay if ('norm' in n_ or 'bn' in n_ or p_.ndim == 1) else decay).append(p_)
optimizer = torch.optim.AdamW([{'params': decay, 'weight_decay': 0.01}, {'params': no_decay, 'weight_decay': 0.0}],
                              lr=MAX_LR, betas=(0.9, 0.999))
print('model: DepthFormer-mini (DenseDepthHead, scale_up=False, min_depth=0.001, max_depth=10), loss: SigLoss(loss_weight=1.0)')
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['iter', 'lr', 'loss', 'grad_norm', 'val_a1', 'val_abs_rel', 'val_rmse', 'val_silog'])
g = torch.Generator().manual_seed(0)
perm = torch.randperm(len(train_x), generator=g); pos = 0
run_loss, run_gn, t0 = 0.0, 0.0, time.time()
for it in range(MAX_ITERS):
    model.train()
    if pos + BATCH > len(perm):
        perm = torch.randperm(len(train_x), generator=g); pos = 0
    idx = perm[pos:pos + BATCH]; pos += BATCH
    lr = lr_at(it)
    for grp in optimizer.param_groups:
        grp['lr'] = lr
    pred = model(train_x[idx])
    loss = model.loss_decode(pred, train_d[idx])
    optimizer.zero_grad(); loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=35, norm_type=2)
    optimizer.step()
    run_loss += loss.item(); run_gn += gn.item()
    if (it + 1) % LOG_INTERVAL == 0:
        el = time.time() - t0
        eta = int(el / (it + 1) * (MAX_ITERS - it - 1))
        print('Iter [%d/%d]\tlr: %.3e, eta: 0:%02d:%02d, time: %.3f, data_time: 0.000, memory: 0, decode.loss_depth: %.4f, '
              'loss: %.4f, grad_norm: %.4f' % (it + 1, MAX_ITERS, lr, eta // 60, eta % 60, el / (it + 1),
                                              run_loss / LOG_INTERVAL, run_loss / LOG_INTERVAL, run_gn / LOG_INTERVAL),
              flush=True)
        wr.writerow([it + 1, '%.3e' % lr, round(run_loss / LOG_INTERVAL, 5), round(run_gn / LOG_INTERVAL, 4), '', '', '', ''])
        run_loss, run_gn = 0.0, 0.0
    if (it + 1) % EVAL_INTERVAL == 0:
        model.eval()
        with torch.no_grad():
            vp = torch.cat([model(val_x[i:i + 40]) for i in range(0, len(val_x), 40)])
        m = eval_metrics(vp, val_d)
        print('Iter(val) [%d]\ta1: %.4f, a2: -, a3: -, abs_rel: %.4f, rmse: %.4f, log_10: %.4f, silog: %.4f'
              % (it + 1, m['a1'], m['abs_rel'], m['rmse'], m['log_10'], m['silog']), flush=True)
        wr.writerow([it + 1, '', '', '', round(m['a1'], 4), round(m['abs_rel'], 4), round(m['rmse'], 4), round(m['silog'], 4)])
    f.flush()
f.close()
