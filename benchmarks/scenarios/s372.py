"""GOTURN-style tracker regression in miniature (after amoudgl/pygoturn train.py, 2018).

Two crops (previous frame centred on the object, current frame where the object
has moved) go through a shared conv net; the concatenated features are regressed
to the object's box in the current crop (x1, y1, x2, y2, scaled by 10) with a
summed L1 loss. Each training step draws one synthetic batch from an
"ALOV"-like video set and one from an "ImageNet"-like still-image set.

The step-decay learning-rate call sits inside the loop over the data sets
and the batches of the current step, so at a decay step it is applied once
per batch of that step instead of once.
"""
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

torch.set_num_threads(1)
np.random.seed(800)
torch.manual_seed(800)

S = 16
kGeneratedExamplesPerImage = 10


def render(cx, cy, w, h, tex, bg):
    img = bg.copy()
    x1, x2 = int(max(0, cx - w / 2)), int(min(S, cx + w / 2))
    y1, y2 = int(max(0, cy - h / 2)), int(min(S, cy + h / 2))
    if x2 > x1 and y2 > y1:
        img[:, y1:y2, x1:x2] = tex[:, : y2 - y1, : x2 - x1]
    return img


class SynthTrackSet:
    def __init__(self, n, motion):
        self.len = n
        self.motion = motion
        rng = np.random.RandomState(n)
        self.objs = []
        for _ in range(n):
            col = rng.uniform(-1, 1, size=(3, 1, 1)).astype(np.float32)
            tex = (col + 0.3 * rng.randn(3, S, S)).astype(np.float32)
            bg = (0.5 * rng.randn(3, 1, 1) + 0.25 * rng.randn(3, S, S)).astype(np.float32)
            self.objs.append((tex, bg, rng.uniform(4, 7), rng.uniform(4, 7)))

    def sample(self, idx, rng):
        tex, bg, w, h = self.objs[idx]
        prev = render(S / 2, S / 2, w, h, tex, bg)
        dx, dy = rng.laplace(0, self.motion, size=2).clip(-4, 4)
        ds = np.exp(rng.laplace(0, 0.08, size=2)).clip(0.75, 1.3)
        cw, ch = w * ds[0], h * ds[1]
        cx, cy = S / 2 + dx, S / 2 + dy
        curr = render(cx, cy, cw, ch, tex, bg)
        bb = np.array([cx - cw / 2, cy - ch / 2, cx + cw / 2, cy + ch / 2]) / S * 10
        return prev, curr, bb.astype(np.float32)


def make_training_samples(idx, dataset, rng):
    x1 = np.zeros((kGeneratedExamplesPerImage + 1, 3, S, S), np.float32)
    x2 = np.zeros_like(x1)
    y = np.zeros((kGeneratedExamplesPerImage + 1, 4), np.float32)
    for i in range(kGeneratedExamplesPerImage + 1):
        j = idx if i == 0 else rng.randint(dataset.len)
        x1[i], x2[i], y[i] = dataset.sample(j, rng)
    return torch.from_numpy(x1), torch.from_numpy(x2), torch.from_numpy(y)


class GoNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU(),
        )
        self.classifier = nn.Sequential(
            nn.Linear(2 * 16 * 4 * 4, 128), nn.ReLU(),
            nn.Linear(128, 4),
        )

    def forward(self, x, y):
        a = self.features(x).flatten(1)
        b = self.features(y).flatten(1)
        return self.classifier(torch.cat([a, b], 1))


def exp_lr_scheduler(optimizer, step, init_lr, gamma, snapshot=50):
    """Decay learning rate by a factor of gamma every lr_decay_step steps."""
    lr = init_lr * gamma
    if step % snapshot == 0:
        print('LR is set to {}'.format(lr))
    for param_group in optimizer.param_groups:
        param_group['lr'] = lr
    return optimizer, lr


class Args:
    num_batches = 600
    learning_rate = 1e-3
    gamma = 0.1
    lr_decay_step = 250
    momentum = 0.9
    batches_per_step = 2


args = Args()
print('Namespace(num_batches=%d, learning_rate=%g, gamma=%g, lr_decay_step=%d, momentum=%g)'
      % (args.num_batches, args.learning_rate, args.gamma, args.lr_decay_step, args.momentum))

alov = SynthTrackSet(300, motion=1.5)
imagenet = SynthTrackSet(500, motion=1.0)
datasets = [alov, imagenet]
val_rng = np.random.RandomState(1)
val = [make_training_samples(i, alov, val_rng) for i in range(20)]

net = GoNet()
loss_fn = nn.L1Loss(reduction='sum')
optimizer = optim.SGD(net.parameters(), lr=args.learning_rate, momentum=args.momentum,
                      weight_decay=0.0005)


def evaluate():
    net.eval()
    tot = 0.0
    with torch.no_grad():
        for x1, x2, y in val:
            tot += loss_fn(net(x1, x2), y).item()
    net.train()
    return tot / len(val)


since = time.time()
rng = np.random.RandomState(0)
lr = args.learning_rate
curr_loss = 0.0
run = []
for batch in range(args.num_batches):
    net.train()
    for i, dataset in enumerate(datasets):
        for _ in range(args.batches_per_step):
            # step decay (inside the data loop)
            if batch > 0 and batch % args.lr_decay_step == 0:
                optimizer, lr = exp_lr_scheduler(optimizer, batch, lr, args.gamma)
            rand_idx = rng.randint(dataset.len)
            x1, x2, y = make_training_samples(rand_idx, dataset, rng)
            optimizer.zero_grad()
            output = net(x1, x2)
            loss = loss_fn(output, y)
            loss.backward()
            optimizer.step()
            curr_loss = loss.item()
            run.append(curr_loss)
    if batch % 50 == 0:
        print('[training] step = %d/%d, dataset = %d, loss = %f  (avg last 50 steps: %.3f, lr %.2e)'
              % (batch, args.num_batches, i, curr_loss, float(np.mean(run[-200:])), lr))
        sys.stdout.flush()
    if batch % 100 == 0 or batch == args.num_batches - 1:
        print('[validation] step = %d, loss = %f' % (batch, evaluate()))

time_elapsed = time.time() - since
print('Training complete in {:.0f}m {:.0f}s'.format(time_elapsed // 60, time_elapsed % 60))
