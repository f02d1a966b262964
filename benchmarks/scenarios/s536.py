# SamuelLAN/jdPigRecognition in miniature, ported from TensorFlow to PyTorch: classify/vgg16_net_2.py as it stood
# when the report was written (commit c23044e, January 2018). The VGG16 convolutions are loaded from pre-trained
# weights and frozen (CONV_WEIGHT_TRAINABLE = False), and only the new head fc6 - fc7 - fc8 with ReLU and dropout
# (KEEP_PROB 0.5) and the 30-way softmax layer are trained on the 30 pig classes
# (IMAGE_SHAPE 56 x 56, each batch standardised by its own mean and std, BATCH_SIZE = 16). The objective is the
# repository's log_loss (cross-entropy on the clipped softmax) plus REGULAR_BETA = 0.01 times the L2 of the trainable
# weights, minimised by tf.train.AdamOptimizer with the learning rate of get_learning_rate():
# exponential_decay(BASE_LEARNING_RATE, global_step, total steps, DECAY_RATE = 0.0001). The file sets
# "BASE_LEARNING_RATE = 0.0000005  # 初始 学习率 原参数" and has the line
# "# BASE_LEARNING_RATE = 0.00005  # 初始 学习率 原参数" commented out; the run below uses the file as it is.
# After every epoch the line "epoch: %d  train_loss: ...  train_log_loss: ...  train_accuracy: ...  val_loss: ...
# val_log_loss: ...  val_accuracy: ..." is printed with "best" or "incr_times: %d" (early stop after 15 epochs without
# a better val_log_loss). Scaled down: a frozen stack of four random-weight (He-initialised) conv-BatchNorm-ReLU-pool
# blocks (eval mode, 1024 features) stands in for the frozen pre-trained VGG16 convolutions, the head is
# 1024 -> 512 -> 256 -> 128 -> 30 instead of 2048 -> 1024 -> 512 -> 256 -> 30, 30 synthetic pig classes (body
# colour, spots, ear and snout placement, background; 60 training and 15 validation 56 x 56 pictures each) replace
# the JD pig video frames, 16 epochs instead of EPOCH_TIMES = 100 (the decay runs over all steps of the run). metrics.csv has the per-step loss and learning rate and the
# per-epoch train / validation loss and accuracy.
import csv, math, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)

BATCH_SIZE = 16
EPOCH_TIMES = 16
NUM_CLASSES = 30
BASE_LEARNING_RATE = 0.0000005  # 初始 学习率 原参数
# BASE_LEARNING_RATE = 0.00005  # 初始 学习率 原参数
DECAY_RATE = 0.0001
REGULAR_BETA = 0.01
KEEP_PROB = 0.5
MAX_VAL_ACCURACY_DECR_TIMES = 15
EPSILON = 0.0001
S = 56

rs = np.random.RandomState(7)
yy, xx = np.mgrid[0:S, 0:S].astype(np.float32)
PROTO = []
for c in range(NUM_CLASSES):
    PROTO.append(dict(body=rs.uniform(0.3, 1.0, 3), spot=rs.uniform(0, 1, 3), nspots=rs.randint(0, 6),
                      bg=rs.uniform(0, 0.5, 3), ear=rs.uniform(-0.9, 0.9), snout=rs.uniform(0.2, 0.9),
                      aspect=rs.uniform(0.5, 0.9)))


def picture(c, r):
    p = PROTO[c]
    img = np.ones((3, S, S), np.float32) * (p['bg'] + r.uniform(-0.08, 0.08, 3))[:, None, None].astype(np.float32)
    cx, cy = S / 2 + r.uniform(-6, 6), S / 2 + r.uniform(-6, 6)
    a = r.uniform(15, 21); b = a * p['aspect']
    body = ((xx - cx) / a) ** 2 + ((yy - cy) / b) ** 2 <= 1
    col = p['body'] + r.uniform(-0.1, 0.1, 3)
    for k in range(3): img[k][body] = col[k]
    sr = np.random.RandomState(c)
    for _ in range(p['nspots']):
        sx, sy = cx + sr.uniform(-0.6, 0.6) * a, cy + sr.uniform(-0.5, 0.5) * b
        m = (xx - sx - r.uniform(-1.5, 1.5)) ** 2 + (yy - sy - r.uniform(-1.5, 1.5)) ** 2 <= 9
        for k in range(3): img[k][m & body] = p['spot'][k]
    ex, ey = cx + p['ear'] * a, cy - b
    m = (np.abs(xx - ex) + np.abs(yy - ey)) <= 5
    for k in range(3): img[k][m] = col[k] * 0.7
    nx = cx + a * (1 if c % 2 else -1); ny = cy + (p['snout'] - 0.5) * b
    m = (xx - nx) ** 2 + (yy - ny) ** 2 <= 16
    for k in range(3): img[k][m] = [0.9, 0.55, 0.6][k]
    img = img * r.uniform(0.8, 1.2) + r.normal(0, 0.08, img.shape).astype(np.float32)
    return np.clip(img, 0, 1) * 255.0


def make(n_per, seed):
    r = np.random.RandomState(seed)
    ys = np.repeat(np.arange(NUM_CLASSES), n_per); r.shuffle(ys)
    return np.stack([picture(int(c), r) for c in ys]).astype(np.float32), ys


train_x, train_y = make(60, 1)
val_x, val_y = make(15, 2)

# frozen convolutions (stand-in for the pre-trained, non-trainable VGG16 conv layers)
backbone = nn.Sequential(
    nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.AvgPool2d(2),
    nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.AvgPool2d(2),
    nn.Conv2d(64, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU(), nn.AvgPool2d(2),
    nn.Conv2d(128, 256, 3, padding=1), nn.BatchNorm2d(256), nn.ReLU(), nn.MaxPool2d(3),
)
for m in backbone:
    if isinstance(m, nn.Conv2d):
        nn.init.kaiming_normal_(m.weight, nonlinearity='relu'); nn.init.zeros_(m.bias)
for prm in backbone.parameters():
    prm.requires_grad = False
backbone.eval()


def features(x):
    out = []
    with torch.no_grad():
        for i in range(0, len(x), 200):
            b = torch.from_numpy(x[i:i + 200])
            b = (b - b.mean(dim=(0, 2, 3), keepdim=True)) / (b.std(dim=(0, 2, 3), keepdim=True) + EPSILON)
            out.append(backbone(b).flatten(1))
    return torch.cat(out)


print('\nStart building model ... ')
t0 = time.time()
Ftr, Fva = features(train_x), features(val_x)
print('frozen conv features: %s  (%.1fs)' % (tuple(Ftr.shape), time.time() - t0))
Ytr, Yva = torch.from_numpy(train_y).long(), torch.from_numpy(val_y).long()


def fc(i, o):
    l = nn.Linear(i, o)
    nn.init.trunc_normal_(l.weight, std=1.0 / math.sqrt(i), a=-2.0 / math.sqrt(i), b=2.0 / math.sqrt(i))
    nn.init.zeros_(l.bias)
    return l


head = nn.ModuleDict(dict(fc6=fc(1024, 512), fc7=fc(512, 256), fc8=fc(256, 128), softmax=fc(128, NUM_CLASSES)))


def forward(f, train):
    a = f
    for n in ('fc6', 'fc7', 'fc8'):
        a = F.relu(head[n](a))
        if train: a = F.dropout(a, 1 - KEEP_PROB)
    return head['softmax'](a)


def log_loss(logits, y):
    p = torch.clamp(F.softmax(logits, 1), 1e-15, 1 - 1e-15)
    return -torch.log(p[torch.arange(len(y)), y]).sum() / len(y)


train_size = len(Ftr)
iter_per_epoch = train_size // BATCH_SIZE
steps = EPOCH_TIMES * iter_per_epoch
opt = torch.optim.Adam(head.parameters(), lr=BASE_LEARNING_RATE)


def measure(Fx, Y):
    with torch.no_grad():
        lg = forward(Fx, False)
        return ((lg.argmax(1) == Y).float().mean().item(), F.cross_entropy(lg, Y).item(), log_loss(lg, Y).item())


va, vl, vll = measure(Fva, Yva)
print('\n best val_accuracy: %.6f  val_loss: %.6f  val_log_loss: %.6f  ' % (va, vl, vll))
print('\nepoch:')
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'step', 'lr', 'train_loss', 'train_log_loss', 'train_accuracy', 'val_loss', 'val_log_loss',
             'val_accuracy'])
best_val_log_loss = vll; incr = 0
m_acc = m_loss = m_ll = 0.0
order = torch.randperm(train_size)
for step in range(steps):
    lr = BASE_LEARNING_RATE * DECAY_RATE ** (step / steps)
    for g in opt.param_groups: g['lr'] = lr
    pos = (step % iter_per_epoch) * BATCH_SIZE
    if pos == 0: order = torch.randperm(train_size)
    idx = order[pos:pos + BATCH_SIZE]
    x, y = Ftr[idx], Ytr[idx]
    logits = forward(x, True)
    ll = log_loss(logits, y)
    reg = sum((w ** 2).sum() / 2 for w in head.parameters())
    opt.zero_grad(); (ll + REGULAR_BETA * reg).backward(); opt.step()
    tl = F.cross_entropy(logits.detach(), y).item(); acc = (logits.argmax(1) == y).float().mean().item()
    m_acc += acc; m_loss += tl; m_ll += ll.item()
    wr.writerow([step // iter_per_epoch + 1, step + 1, '%.4g' % lr, round(tl, 5), round(ll.item(), 5), round(acc, 4), '', '', ''])
    if (step + 1) % iter_per_epoch == 0:
        epoch = (step + 1) // iter_per_epoch
        m_acc /= iter_per_epoch; m_loss /= iter_per_epoch; m_ll /= iter_per_epoch
        va, vl, vll = measure(Fva, Yva)
        echo_str = '\n\t epoch: %d  train_loss: %.6f  train_log_loss: %.6f  train_accuracy: %.6f  ' \
                   'val_loss: %.6f val_log_loss: %.6f  val_accuracy: %.6f' % (epoch, m_loss, m_ll, m_acc, vl, vll, va)
        wr.writerow([epoch, step + 1, '%.4g' % lr, round(m_loss, 5), round(m_ll, 5), round(m_acc, 4), round(vl, 5),
                     round(vll, 5), round(va, 4)])
        f.flush()
        m_acc = m_loss = m_ll = 0.0
        if best_val_log_loss > vll:
            best_val_log_loss = vll; incr = 0
            print('%s  best  ' % echo_str, flush=True)
        else:
            incr += 1
            print('%s  incr_times: %d \n' % (echo_str, incr), flush=True)
            if incr > MAX_VAL_ACCURACY_DECR_TIMES:
                break
ta, tl, tll = measure(Ftr, Ytr)
print('train_accuracy: %.6f  train_loss: %.6f  train_log_loss: %.6f  ' % (ta, tl, tll))
print('val_accuracy: %.6f  val_loss: %.6f  val_log_loss: %.6f  ' % (va, vl, vll))
print('\ndone')
f.close()
