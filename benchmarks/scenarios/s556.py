# tensorflow/models issue "[slim] train_image_classifier.py defines unreasonable default optimizer epsilon" in
# miniature, ported from TensorFlow-Slim to PyTorch: research/slim/train_image_classifier.py run with
# --optimizer=adam and every other flag at its default: learning_rate 0.01 with learning_rate_decay_type
# "exponential" (factor 0.94 every num_epochs_per_decay = 2 epochs, staircase), weight_decay 0.00004 on the model
# weights, adam_beta1 0.9, adam_beta2 0.999 and tf.app.flags.DEFINE_float('opt_epsilon', 1.0, ...), which
# _configure_optimizer passes to tf.train.AdamOptimizer(learning_rate, beta1, beta2, epsilon=FLAGS.opt_epsilon);
# batch_size 32, log_every_n_steps 10 with slim.learning.train's line "global step N: loss = X (Y sec/step)", the
# loss being the softmax cross-entropy plus the regularisation losses. The network is slim's nets/lenet.py
# (--model_name=lenet: conv 5x5 + max-pool 2, conv 5x5 + max-pool 2, fully connected, dropout keep 0.5, fully
# connected num_classes) with the lenet preprocessing ((image - 128) / 128).
# tf.train.AdamOptimizer is reproduced exactly: lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t) and
# var -= lr_t * m / (sqrt(v) + epsilon), so with epsilon = 1.0 the denominator is about 1 for every weight whose
# gradients are far below 1 and each update shrinks to roughly lr_t * m. Scaled down: --dataset_name=mnist is
# replaced by 28 x 28 synthetic glyph digits (a 5 x 7 bitmap font, randomly scaled, shifted, thickened and noised),
# 6000 training and 1000 held-out images; the widths are cut from 32/64/1024 to 16/32/256 and the weights use the
# slim.conv2d / slim.fully_connected default initializer (xavier) instead of lenet_arg_scope's truncated normal
# (stddev 0.1); the run stops at max_number_of_steps = 800 (about 4 epochs). The held-out
# accuracy (eval_image_classifier.py's "eval/Accuracy") is printed every 250 steps; metrics.csv has the logged loss
# and learning rate every 10 steps and the held-out accuracy.
import csv, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)

# ---------------------------------------------------------------- flags (train_image_classifier.py defaults)
FLAGS = dict(optimizer='adam', learning_rate=0.01, learning_rate_decay_type='exponential',
             learning_rate_decay_factor=0.94, num_epochs_per_decay=2.0, weight_decay=0.00004,
             adam_beta1=0.9, adam_beta2=0.999, opt_epsilon=1.0, batch_size=32, log_every_n_steps=10,
             max_number_of_steps=800, model_name='lenet', dataset_name='mnist')

# ---------------------------------------------------------------- synthetic glyph digits
FONT = {0: ['01110', '10001', '10011', '10101', '11001', '10001', '01110'],
        1: ['00100', '01100', '00100', '00100', '00100', '00100', '01110'],
        2: ['01110', '10001', '00001', '00010', '00100', '01000', '11111'],
        3: ['11111', '00010', '00100', '00010', '00001', '10001', '01110'],
        4: ['00010', '00110', '01010', '10010', '11111', '00010', '00010'],
        5: ['11111', '10000', '11110', '00001', '00001', '10001', '01110'],
        6: ['00110', '01000', '10000', '11110', '10001', '10001', '01110'],
        7: ['11111', '00001', '00010', '00100', '01000', '01000', '01000'],
        8: ['01110', '10001', '10001', '01110', '10001', '10001', '01110'],
        9: ['01110', '10001', '10001', '01111', '00001', '00010', '01100']}
GLYPH = {d: np.array([[c == '1' for c in row] for row in rows], np.float32) for d, rows in FONT.items()}


def draw(d, r):
    g = GLYPH[d]
    sy, sx = r.uniform(2.2, 3.2), r.uniform(2.0, 3.0)
    oy, ox = 14 - 3.5 * sy + r.uniform(-3, 3), 14 - 2.5 * sx + r.uniform(-3, 3)
    shear = r.uniform(-0.3, 0.3)
    yy, xx = np.mgrid[0:28, 0:28].astype(np.float32)
    gy = (yy - oy) / sy
    gx = (xx - ox - shear * (yy - 14)) / sx
    iy, ix = np.floor(gy).astype(int), np.floor(gx).astype(int)
    ok = (iy >= 0) & (iy < 7) & (ix >= 0) & (ix < 5)
    img = np.zeros((28, 28), np.float32)
    img[ok] = g[iy[ok], ix[ok]]
    if r.rand() < 0.5:                                        # thicker strokes
        img = np.maximum(img, np.roll(img, 1, axis=1))
    img = img * r.uniform(0.6, 1.0) + r.normal(0, 0.25, img.shape)
    return np.clip(img, 0, 1) * 255.0


def make_set(n, r):
    y = r.randint(0, 10, n)
    x = np.stack([draw(d, r) for d in y])
    return x, y


rs = np.random.RandomState(1)
xtr, ytr = make_set(6000, rs)
xte, yte = make_set(1000, rs)
prep = lambda a: torch.tensor((a - 128.0) / 128.0, dtype=torch.float32).unsqueeze(1)   # lenet_preprocessing
Xtr, Ytr, Xte, Yte = prep(xtr), torch.tensor(ytr), prep(xte), torch.tensor(yte)


# ---------------------------------------------------------------- nets/lenet.py
class LeNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 5, padding=2)
        self.conv2 = nn.Conv2d(16, 32, 5, padding=2)
        self.fc3 = nn.Linear(7 * 7 * 32, 256)
        self.fc4 = nn.Linear(256, num_classes)
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.xavier_uniform_(m.weight)          # slim.conv2d / slim.fully_connected default initializer
                nn.init.zeros_(m.bias)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.relu(self.fc3(x.flatten(1)))
        x = F.dropout(x, 0.5, self.training)
        return self.fc4(x)


class TFAdam(torch.optim.Optimizer):
    """tf.train.AdamOptimizer: epsilon is added to sqrt(v) before the bias correction is folded into lr_t."""

    def __init__(self, params, lr, beta1, beta2, epsilon):
        super().__init__(params, dict(lr=lr, beta1=beta1, beta2=beta2, epsilon=epsilon))

    @torch.no_grad()
    def step(self):
        for grp in self.param_groups:
            for p in grp['params']:
                if p.grad is None:
                    continue
                st = self.state[p]
                if not st:
                    st['t'] = 0; st['m'] = torch.zeros_like(p); st['v'] = torch.zeros_like(p)
                st['t'] += 1; t = st['t']
                b1, b2 = grp['beta1'], grp['beta2']
                st['m'].mul_(b1).add_(p.grad, alpha=1 - b1)
                st['v'].mul_(b2).addcmul_(p.grad, p.grad, value=1 - b2)
                lr_t = grp['lr'] * (1 - b2 ** t) ** 0.5 / (1 - b1 ** t)
                p.addcdiv_(st['m'], st['v'].sqrt().add_(grp['epsilon']), value=-lr_t)


net = LeNet(10)
optimizer = TFAdam(net.parameters(), FLAGS['learning_rate'], FLAGS['adam_beta1'], FLAGS['adam_beta2'],
                   FLAGS['opt_epsilon'])
decay_steps = int(len(Xtr) / FLAGS['batch_size'] * FLAGS['num_epochs_per_decay'])
weights = [m.weight for m in net.modules() if isinstance(m, (nn.Conv2d, nn.Linear))]


def evaluate():
    net.eval()
    with torch.no_grad():
        acc = (net(Xte).argmax(1) == Yte).float().mean().item()
    net.train()
    return acc


f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['step', 'loss', 'learning_rate', 'eval_accuracy'])
print('Training %s on %s with %s (opt_epsilon=%g)' % (FLAGS['model_name'], FLAGS['dataset_name'],
                                                       FLAGS['optimizer'], FLAGS['opt_epsilon']))
rb = np.random.RandomState(2)
perm, pos = rb.permutation(len(Xtr)), 0
t0 = time.time()
for global_step in range(1, FLAGS['max_number_of_steps'] + 1):
    lr = FLAGS['learning_rate'] * FLAGS['learning_rate_decay_factor'] ** ((global_step - 1) // decay_steps)
    for g in optimizer.param_groups:
        g['lr'] = lr
    if pos + FLAGS['batch_size'] > len(Xtr):
        perm, pos = rb.permutation(len(Xtr)), 0
    idx = perm[pos:pos + FLAGS['batch_size']]; pos += FLAGS['batch_size']
    ts = time.time()
    logits = net(Xtr[idx])
    loss = F.cross_entropy(logits, Ytr[idx]) + FLAGS['weight_decay'] * sum(0.5 * (w ** 2).sum() for w in weights)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if global_step % FLAGS['log_every_n_steps'] == 0:
        print('global step %d: loss = %.4f (%.3f sec/step)' % (global_step, loss.item(), time.time() - ts))
        acc = ''
        if global_step % 250 == 0:
            acc = evaluate()
            print('eval/Accuracy[%.4f]' % acc)
        wr.writerow([global_step, round(loss.item(), 5), lr, acc]); f.flush()
f.close()
print('Finished training! Final held-out accuracy %.4f (%.0f s)' % (evaluate(), time.time() - t0))
