# DeepLabCut/DeepLabCut pull request 2393 ("update the lr when switching to adam optimizer") in miniature:
# deeplabcut/pose_estimation_tensorflow/core/train.py before the fix. On a machine whose TensorFlow is not a CUDA
# build (Apple Silicon), train() switches the optimizer: warnings.warn("Switching to Adam, as SGD crashes on Apple
# Silicon.") and cfg["optimizer"] = "adam", but it keeps the learning-rate schedule of pose_cfg.yaml, which was made
# for the momentum optimizer (multi_step [[0.005, 10000], [0.02, 430000], [0.002, 730000], [0.001, 1030000]]), so
# tf.compat.v1.train.AdamOptimizer runs at 0.005. Kept: the LearningRate class (multi_step lookup), get_optimizer's
# "sgd" / "adam" branch, batch_size 1, the part score maps trained with sigmoid cross-entropy plus the location
# refinement maps with a Huber loss weighted by locref_loss_weight 0.05, the "iteration: .. loss: .. lr: .." line
# every display_iters with the average loss since the last line, learning_stats.csv as train() writes it.
# Scaled down / changed, in PyTorch: a small ResNet-v1-style backbone (6 basic blocks, batch norm frozen as DLC builds
# it with is_training=False, kernels at the small scale that goes with frozen batch norm) with one deconvolution
# (output stride 4) instead of ImageNet-pretrained ResNet-50 (randomly initialised, so the numbers are the
# miniature's), synthetic 64 x 64 "frames" of an animal with 4 bodyparts instead of labelled video frames,
# maxiters 600 and displayiters 25 passed to train(), positive scoremap cells within 8 px of a bodypart, no
# augmentation; TensorFlow's Adam epsilon 1e-8 and default betas. The host is treated as a non-CUDA build, as on the pull request's M2 MacBook Air.
import csv
import math
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
rng = np.random.RandomState(0)

SIZE = 64
STRIDE = 4
NUM_JOINTS = 4
POS_DIST_THRESH = 4.0
LOCREF_STDEV = 7.2801
LOCREF_LOSS_WEIGHT = 0.05
BN_INV_STD = 8.0

cfg = {
    'net_type': 'resnet_50', 'optimizer': 'sgd', 'batch_size': 1, 'num_joints': NUM_JOINTS,
    'multi_step': [[0.005, 10000], [0.02, 430000], [0.002, 730000], [0.001, 1030000]],
    'display_iters': 1000, 'save_iters': 50000, 'pos_dist_thresh': POS_DIST_THRESH,
    'location_refinement': True, 'locref_huber_loss': True, 'locref_loss_weight': LOCREF_LOSS_WEIGHT,
    'locref_stdev': LOCREF_STDEV, 'stride': STRIDE, 'global_scale': 1.0, 'scale_jitter_lo': 1.0,
    'scale_jitter_up': 1.0, 'mirror': False, 'dataset_type': 'default', 'init_weights': 'resnet_v1_50.ckpt',
}


class LearningRate(object):
    def __init__(self, cfg):
        self.steps = cfg['multi_step']
        self.current_step = 0

    def get_lr(self, iteration):
        lr = self.steps[self.current_step][0]
        if iteration == self.steps[self.current_step][1]:
            self.current_step += 1
        return lr


def make_frame():
    """A grey-ish frame with a textured background and an 'animal': 4 bodyparts joined by limbs."""
    img = rng.normal(0.35, 0.08, (SIZE, SIZE)).astype(np.float32)
    cx, cy = rng.uniform(20, 44, 2)
    ang = rng.uniform(0, 2 * np.pi)
    L = rng.uniform(7, 11)
    joints = []
    for k in range(NUM_JOINTS):  # snout, left ear, right ear, tail base
        a = ang + [0.0, 2.2, -2.2, np.pi][k]
        r = L * [1.2, 0.8, 0.8, 1.6][k]
        joints.append((cx + r * np.cos(a), cy + r * np.sin(a)))
    yy, xx = np.mgrid[0:SIZE, 0:SIZE]
    img += 0.35 * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * (L * 0.9) ** 2))
    for k, (jx, jy) in enumerate(joints):
        img += [0.6, 0.45, 0.45, 0.3][k] * np.exp(-((xx - jx) ** 2 + (yy - jy) ** 2) / (2 * 1.6 ** 2))
    rgb = np.stack([img * c for c in (1.0, 0.9, 0.8)]) + rng.normal(0, 0.03, (3, SIZE, SIZE))
    return rgb.astype(np.float32), np.array(joints, np.float32)


def targets(joints):
    """scmap / locref targets as pose_dataset.compute_target_part_scoremap builds them."""
    h = w = SIZE // STRIDE
    scmap = np.zeros((NUM_JOINTS, h, w), np.float32)
    locref = np.zeros((NUM_JOINTS * 2, h, w), np.float32)
    mask = np.zeros((NUM_JOINTS * 2, h, w), np.float32)
    half = STRIDE / 2.0
    for k, (jx, jy) in enumerate(joints):
        for j in range(h):
            for i in range(w):
                px, py = i * STRIDE + half, j * STRIDE + half
                dx, dy = jx - px, jy - py
                if dx * dx + dy * dy <= POS_DIST_THRESH ** 2 * 4:
                    scmap[k, j, i] = 1.0
                    locref[2 * k, j, i] = dx / LOCREF_STDEV
                    locref[2 * k + 1, j, i] = dy / LOCREF_STDEV
                    mask[2 * k:2 * k + 2, j, i] = 1.0
    return scmap, locref, mask


class Block(nn.Module):
    """ResNet-v1 basic block. DLC builds the backbone with is_training=False, so batch norm uses the frozen moving
    statistics of the ImageNet checkpoint: a fixed per-channel 1 / sigma (here BN_INV_STD, as a buffer) times a
    trainable gamma. Pretrained conv kernels are correspondingly small (here 1 / BN_INV_STD of the He scale)."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.c2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.g1 = nn.Parameter(torch.ones(cout, 1, 1))
        self.g2 = nn.Parameter(torch.full((cout, 1, 1), 0.5))
        self.short = None if (cin == cout and stride == 1) else nn.Conv2d(cin, cout, 1, stride=stride, bias=False)
        for c in [self.c1, self.c2] + ([] if self.short is None else [self.short]):
            nn.init.kaiming_normal_(c.weight, nonlinearity='relu')
            c.weight.data /= BN_INV_STD
        self.register_buffer('inv_std', torch.tensor(BN_INV_STD))

    def forward(self, x):
        h = F.relu(self.g1 * self.inv_std * self.c1(x))
        h = self.g2 * self.inv_std * self.c2(h)
        return F.relu(h + (x if self.short is None else self.inv_std * self.short(x)))


class PoseNet(nn.Module):
    def __init__(self):
        super().__init__()
        layers = [nn.Conv2d(3, 32, 3, padding=1), nn.ReLU()]
        cin = 32
        for cout, stride in [(32, 1), (64, 2), (64, 1), (128, 2), (128, 1), (128, 2)]:
            layers.append(Block(cin, cout, stride))
            cin = cout
        self.backbone = nn.Sequential(*layers)
        self.part_pred = nn.ConvTranspose2d(128, NUM_JOINTS, 3, stride=2, padding=1, output_padding=1)
        self.locref = nn.ConvTranspose2d(128, NUM_JOINTS * 2, 3, stride=2, padding=1, output_padding=1)

    def forward(self, x):
        f = self.backbone(x)
        return self.part_pred(f), self.locref(f)


def huber_loss(labels, predictions, weight, k=1.0):
    diff = (labels - predictions).abs()
    losses = torch.where(diff < k, 0.5 * diff ** 2, k * diff - 0.5 * k ** 2)
    return (weight * losses).sum() / weight.sum().clamp(min=1.0)


def get_optimizer(params, cfg):
    if cfg['optimizer'] == 'sgd':
        return torch.optim.SGD(params, lr=cfg['multi_step'][0][0], momentum=0.9)
    elif cfg['optimizer'] == 'adam':
        return torch.optim.Adam(params, lr=cfg['multi_step'][0][0], eps=1e-8)
    raise ValueError('unknown optimizer {}'.format(cfg['optimizer']))


def train(maxiters, displayiters):
    net = PoseNet()
    print('Loading ImageNet-pretrained', cfg['net_type'])

    # Auto-switch to Adam on M1/M2 chips, as the momentum optimizer crashes
    is_cuda_build = False  # Apple Silicon is not built with CUDA
    if not is_cuda_build:
        warnings.warn('Switching to Adam, as SGD crashes on Apple Silicon.')
        cfg['optimizer'] = 'adam'
    optimizer = get_optimizer(net.parameters(), cfg)

    max_iter = min(int(cfg['multi_step'][-1][1]), int(maxiters))
    print('Max_iters overwritten as', max_iter)
    display_iters = max(1, int(displayiters))
    print('Display_iters overwritten as', display_iters)

    cum_loss = 0.0
    lr_gen = LearningRate(cfg)
    lrf = open('learning_stats.csv', 'w')
    mf = open('metrics.csv', 'w', newline='')
    mw = csv.writer(mf)
    mw.writerow(['iteration', 'loss', 'part_loss', 'locref_loss', 'lr'])
    print('Training parameter:')
    print(cfg)
    print('Starting training....')
    for it in range(0, max_iter + 1):
        current_lr = lr_gen.get_lr(it)
        for group in optimizer.param_groups:
            group['lr'] = current_lr
        img, joints = make_frame()
        scmap, locref, mask = targets(joints)
        x = torch.from_numpy(img)[None]
        part_pred, locref_pred = net(x)
        part_loss = F.binary_cross_entropy_with_logits(part_pred, torch.from_numpy(scmap)[None])
        locref_loss = LOCREF_LOSS_WEIGHT * huber_loss(torch.from_numpy(locref)[None], locref_pred,
                                                      torch.from_numpy(mask)[None])
        total_loss = part_loss + locref_loss
        optimizer.zero_grad()
        total_loss.backward()
        optimizer.step()
        loss_val = total_loss.item()
        cum_loss += loss_val
        mw.writerow([it, '%.6g' % loss_val, '%.6g' % part_loss.item(), '%.6g' % locref_loss.item(), current_lr])
        if it % display_iters == 0 and it > 0:
            average_loss = cum_loss / display_iters
            cum_loss = 0.0
            print('iteration: {} loss: {} lr: {}'.format(it, '{0:.4f}'.format(average_loss), current_lr))
            lrf.write('{}, {:.5f}, {}\n'.format(it, average_loss, current_lr))
            lrf.flush()
            mf.flush()
    lrf.close()
    mf.close()
    return net


net = train(maxiters=600, displayiters=25)

# what deeplabcut.evaluate_network would report, in miniature: mean pixel error of the argmax + locref predictions
errs = []
with torch.no_grad():
    for _ in range(50):
        img, joints = make_frame()
        part_pred, locref_pred = net(torch.from_numpy(img)[None])
        for k in range(NUM_JOINTS):
            s = part_pred[0, k]
            j, i = divmod(int(s.argmax()), s.shape[1])
            px = i * STRIDE + STRIDE / 2.0 + float(locref_pred[0, 2 * k, j, i]) * LOCREF_STDEV
            py = j * STRIDE + STRIDE / 2.0 + float(locref_pred[0, 2 * k + 1, j, i]) * LOCREF_STDEV
            e = math.hypot(px - joints[k][0], py - joints[k][1])
            errs.append(e if math.isfinite(e) else float('nan'))
print('Results for 600 training iterations: test error: %.2f pixels' % float(np.nanmean(errs)))
