# bubbliiiing/classification-pytorch (train.py, utils/utils_fit.py, utils/dataloader.py) in miniature: a VGG11-style
# classifier trained from scratch with the repository's fit_one_epoch: model_train.train(), nn.CrossEntropyLoss per
# batch, a tqdm bar per phase ("Epoch e/E: ... total_loss=..., accuracy=..., lr=..."), "Start Train" / "Finish
# Train" / "Start Validation" / "Finish Validation", then "Epoch:e/E" and "Total Loss: %.3f || Val Loss: %.3f ",
# where the training loss is the mean of the batch losses over the epoch (dropout on, weights still changing) and the
# validation loss is computed after the epoch in eval mode. As in DataGenerator.get_random_data the training images
# are augmented (aspect jitter 0.3, scale 0.75-1.5 pasted on a grey canvas at a random offset, horizontal flip,
# rotation up to 15 degrees with probability 0.5, hue/saturation/value jitter) while the validation images are only
# letter-boxed; SGD with nesterov momentum 0.937, Init_lr 1e-2 scaled by batch_size / 64, Min_lr = Init_lr * 0.01,
# a warm-up-then-cosine schedule set per epoch, batch 32, drop_last. Scaled down: 48 x 48 inputs (224 in the
# repository), VGG11 layer pattern (8-32 channels, last pooling dropped) and a 128-128 classifier with Dropout(0.5),
# 10 epochs, no pretrained weights and no frozen phase; 800 training and 320 validation synthetic images of five shapes replace
# the poster's data set.
import csv, math, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(10101); np.random.seed(10101); torch.set_num_threads(1)
input_shape, num_classes, batch_size, UnFreeze_Epoch = [48, 48], 5, 32, 14
Init_lr, momentum, weight_decay = 4e-3, 0.937, 0
Min_lr = Init_lr * 0.01
nbs = 64
Init_lr_fit = max(batch_size / nbs * Init_lr, 1e-4); Min_lr_fit = max(batch_size / nbs * Min_lr, 1e-6)

PALETTE = np.array([[0.9, 0.2, 0.2], [0.2, 0.8, 0.2], [0.2, 0.3, 0.9], [0.9, 0.8, 0.1], [0.7, 0.2, 0.8]])

def make_image(rs, cls, size=48):
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    img = np.ones((3, size, size), np.float32) * rs.uniform(0.3, 0.7, (1, 1, 1)) + rs.normal(0, 0.06, (3, size, size))
    cx, cy, r = rs.uniform(15, 33), rs.uniform(15, 33), rs.uniform(7, 12)
    dx, dy = xx - cx, yy - cy
    if cls == 0: m = dx ** 2 + dy ** 2 < r ** 2
    elif cls == 1: m = (np.abs(dx) < r * 0.85) & (np.abs(dy) < r * 0.85)
    elif cls == 2: m = (dy > -r) & (dy < r) & (np.abs(dx) < (dy + r) * 0.55)
    elif cls == 3: m = ((np.abs(dx) < r * 0.3) & (np.abs(dy) < r)) | ((np.abs(dy) < r * 0.3) & (np.abs(dx) < r))
    else: m = (dx ** 2 + dy ** 2 < r ** 2) & (dx ** 2 + dy ** 2 > (0.55 * r) ** 2)
    col = np.clip(PALETTE[cls] + rs.normal(0, 0.12, 3), 0, 1).astype(np.float32)   # each class has its own tint
    img[:, m] = col[:, None] + rs.normal(0, 0.04, (3, int(m.sum())))
    return np.clip(img, 0, 1).astype(np.float32)

rs = np.random.RandomState(0)
train_y = np.arange(800) % num_classes; val_y = np.arange(320) % num_classes
train_x = np.stack([make_image(rs, c) for c in train_y]); val_x = np.stack([make_image(rs, c) for c in val_y])

def rand(a=0, b=1):
    return np.random.rand() * (b - a) + a

def get_random_data(image, jitter=.3, hue=.1, sat=1.5, val=1.5):
    h, w = input_shape
    image = torch.tensor(image)
    new_ar = 1.0 * rand(1 - jitter, 1 + jitter) / rand(1 - jitter, 1 + jitter)
    scale = rand(.75, 1.5)
    if new_ar < 1:
        nh = int(scale * h); nw = int(nh * new_ar)
    else:
        nw = int(scale * w); nh = int(nw / new_ar)
    image = F.interpolate(image[None], size=(nh, nw), mode='bilinear', align_corners=False)[0].clamp(0, 1)
    dx = int(rand(0, w - nw)); dy = int(rand(0, h - nh))
    new_image = torch.full((3, h, w), 128 / 255.)
    ys, xs = max(dy, 0), max(dx, 0); ye, xe = min(dy + nh, h), min(dx + nw, w)
    new_image[:, ys:ye, xs:xe] = image[:, ys - dy:ye - dy, xs - dx:xe - dx]
    image = new_image
    if rand() < .5: image = image.flip(2)
    if rand() < .5:
        angle = np.random.randint(-15, 15) * math.pi / 180
        theta = torch.tensor([[math.cos(angle), -math.sin(angle), 0], [math.sin(angle), math.cos(angle), 0]], dtype=torch.float32)
        grid = F.affine_grid(theta[None], (1, 3, h, w), align_corners=False)
        image = F.grid_sample(image[None] - 128 / 255., grid, mode='nearest', align_corners=False)[0] + 128 / 255.
    r = np.random.uniform(-1, 1, 3) * [hue, sat, val] + 1
    gray = image.mean(0, keepdim=True)
    image = (gray + (image - gray) * float(r[1])) * float(r[2])
    image = torch.roll(image, shifts=1, dims=0) * abs(r[0] - 1) * 3 + image * (1 - abs(r[0] - 1) * 3)
    return image.clamp(0, 1)

def preprocess_input(x):
    return x * 2 - 1

class VGG(nn.Module):
    def __init__(self, cfg=(16, 'M', 32, 'M', 64, 'M', 64), num_classes=5):
        super().__init__()
        layers, c = [], 3
        for v in cfg:
            if v == 'M': layers.append(nn.MaxPool2d(2, 2))
            else: layers += [nn.Conv2d(c, v, 3, padding=1), nn.ReLU(inplace=True)]; c = v
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d((2, 2))
        self.classifier = nn.Sequential(nn.Linear(c * 4, 128), nn.ReLU(True), nn.Dropout(0.5),
                                        nn.Linear(128, 128), nn.ReLU(True), nn.Dropout(0.5), nn.Linear(128, num_classes))
        for m in self.modules():                      # torchvision VGG._initialize_weights
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode='fan_out', nonlinearity='relu'); nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01); nn.init.constant_(m.bias, 0)
    def forward(self, x):
        return self.classifier(torch.flatten(self.avgpool(self.features(x)), 1))

def get_lr(epoch, total=UnFreeze_Epoch):
    warmup_total_iters = min(max(0.05 * total, 1), 3); warmup_lr_start = max(0.1 * Init_lr_fit, 1e-6)
    no_aug_iter = min(max(0.05 * total, 1), 15)
    if epoch <= warmup_total_iters:
        return (Init_lr_fit - warmup_lr_start) * pow(epoch / float(warmup_total_iters), 2) + warmup_lr_start
    if epoch >= total - no_aug_iter:
        return Min_lr_fit
    return Min_lr_fit + 0.5 * (Init_lr_fit - Min_lr_fit) * (1.0 + math.cos(math.pi * (epoch - warmup_total_iters) / (total - warmup_total_iters - no_aug_iter)))

def bar(phase_steps, epoch, postfix, secs):
    return 'Epoch %d/%d: 100%%|##########| %d/%d [00:%02d<00:00, %.2fit/s, accuracy=%.3g, lr=%.5g, total_loss=%.3g]' % (
        epoch + 1, UnFreeze_Epoch, phase_steps, phase_steps, int(secs), phase_steps / max(secs, 1e-6),
        postfix['accuracy'], postfix['lr'], postfix['total_loss'])

model = VGG(num_classes=num_classes)
optimizer = torch.optim.Adam(model.parameters(), Init_lr_fit, betas=(momentum, 0.999), weight_decay=weight_decay)
epoch_step = len(train_x) // batch_size; epoch_step_val = len(val_x) // batch_size
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'iteration', 'lr', 'loss', 'accuracy', 'val_loss', 'val_accuracy']); f.flush()
for epoch in range(UnFreeze_Epoch):
    lr = get_lr(epoch)
    for g in optimizer.param_groups: g['lr'] = lr
    total_loss = 0; total_accuracy = 0; val_loss = 0; val_accuracy = 0
    model.train()
    print('Start Train')
    t0 = time.time(); perm = np.random.permutation(len(train_x))
    for iteration in range(epoch_step):
        idx = perm[iteration * batch_size:(iteration + 1) * batch_size]
        images = preprocess_input(torch.stack([get_random_data(train_x[i]) for i in idx]))
        targets = torch.tensor(train_y[idx])
        optimizer.zero_grad()
        outputs = model(images)
        loss_value = nn.CrossEntropyLoss()(outputs, targets)
        loss_value.backward()
        optimizer.step()
        total_loss += loss_value.item()
        with torch.no_grad():
            accuracy = torch.mean((torch.argmax(F.softmax(outputs, dim=-1), dim=-1) == targets).float())
            total_accuracy += accuracy.item()
        wr.writerow([epoch + 1, epoch * epoch_step + iteration + 1, lr, loss_value.item(), accuracy.item(), '', '']); f.flush()
    print(bar(epoch_step, epoch, {'total_loss': total_loss / epoch_step, 'accuracy': total_accuracy / epoch_step, 'lr': lr}, time.time() - t0))
    print('Finish Train')
    model.eval()
    print('Start Validation')
    t0 = time.time(); perm = np.random.permutation(len(val_x))
    for iteration in range(epoch_step_val):
        idx = perm[iteration * batch_size:(iteration + 1) * batch_size]
        with torch.no_grad():
            images = preprocess_input(torch.tensor(val_x[idx])); targets = torch.tensor(val_y[idx])
            outputs = model(images)
            loss_value = nn.CrossEntropyLoss()(outputs, targets)
            val_loss += loss_value.item()
            val_accuracy += torch.mean((torch.argmax(F.softmax(outputs, dim=-1), dim=-1) == targets).float()).item()
    print(bar(epoch_step_val, epoch, {'total_loss': val_loss / epoch_step_val, 'accuracy': val_accuracy / epoch_step_val, 'lr': lr}, time.time() - t0))
    wr.writerow([epoch + 1, (epoch + 1) * epoch_step, lr, '', '', val_loss / epoch_step_val, val_accuracy / epoch_step_val]); f.flush()
    print('Finish Validation')
    print('Epoch:' + str(epoch + 1) + '/' + str(UnFreeze_Epoch))
    print('Total Loss: %.3f || Val Loss: %.3f ' % (total_loss / epoch_step, val_loss / epoch_step_val), flush=True)
f.close()
