# pierluigiferrari/fcn8s_tensorflow in miniature, ported from TensorFlow to PyTorch: the FCN-8s tutorial's setup
# cells for training on the user's own semantic-segmentation data: num_classes = 20 set at the top of the notebook
# (the tutorial's value), BatchGenerator(image_dirs, ground_truth_dirs, image_name_split_separator, ground_truth_suffix,
# num_classes=num_classes) from data_generator/batch_generator.py, train_generator = generate(batch_size,
# convert_to_one_hot=True, random_crop, flip, ...) whose ground truth passes through convert_IDs_to_one_hot() of
# helpers/ground_truth_conversion_utils.py (np.eye(num_classes, dtype=bool)[image]), the cell that times one batch
# ("Time to generate one batch: ... seconds", "Number of images generated: ...", "Number of ground truth images
# generated: ..."), then FCN8s.train() with its tqdm lines "Epoch 1/E: 100%|...| n/n [..., learning rate=...,
# loss=...]" and the evaluation line "loss: ...  mean_iou: ...  accuracy: ...". The user's ground truth keeps
# Cityscapes-style label IDs (road 7, sidewalk 8, building 11, pole 17, vegetation 21, sky 23, person 24, car 26,
# up to 33) and no convert_ids_to_ids map is passed. A small FCN-8s-like network (three stride-2 conv stages, score
# layers fused at 1/4 and 1/2 resolution, bilinear upsampling) replaces the VGG-16 FCN-8s, 96 synthetic 64 x 128
# street scenes (sky band, buildings, vegetation, road and sidewalk, poles, cars, people) kept in memory replace the
# image files, Adam 1e-3, batch 8, 4 epochs; CPU instead of GPU.
import csv, math, time, random
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); random.seed(0); torch.set_num_threads(1)

num_classes = 20                     # number of segmentation classes (as at the top of the tutorial notebook)
batch_size = 8
epochs = 4
IMG_H, IMG_W = 64, 128
ROAD, SIDEWALK, BUILDING, POLE, VEGETATION, SKY, PERSON, CAR = 7, 8, 11, 17, 21, 23, 24, 26
PALETTE = {ROAD: (128, 64, 128), SIDEWALK: (230, 150, 160), BUILDING: (90, 90, 90), POLE: (160, 160, 150),
           VEGETATION: (70, 130, 40), SKY: (110, 160, 220), PERSON: (200, 40, 60), CAR: (20, 30, 140)}

def synth_scene(r):
    gt = np.full((IMG_H, IMG_W), SKY, np.uint8)
    horizon = r.randint(22, 32)
    x = 0
    while x < IMG_W:                                                        # buildings / trees along the skyline
        w = r.randint(10, 30); top = r.randint(4, horizon - 4)
        gt[top:horizon, x:x + w] = BUILDING if r.rand() < 0.65 else VEGETATION
        x += w
    gt[horizon:, :] = ROAD
    for y in range(horizon, IMG_H):                                         # sidewalks widen towards the bottom
        s = int((y - horizon) * 0.9) + 2
        gt[y, :s] = SIDEWALK; gt[y, IMG_W - s:] = SIDEWALK
    for _ in range(r.randint(1, 3)):                                        # poles
        px = r.randint(2, IMG_W - 3); gt[r.randint(8, horizon - 2):horizon + 6, px:px + 2] = POLE
    for _ in range(r.randint(1, 4)):                                        # cars
        cw = r.randint(14, 26); cx = r.randint(0, IMG_W - cw); cy = r.randint(horizon + 2, IMG_H - 10)
        gt[cy:cy + r.randint(7, 11), cx:cx + cw] = CAR
    for _ in range(r.randint(0, 3)):                                        # people
        qx = r.randint(0, IMG_W - 4); qy = r.randint(horizon - 6, IMG_H - 16)
        gt[qy:qy + r.randint(10, 15), qx:qx + 3] = PERSON
    img = np.zeros((IMG_H, IMG_W, 3), np.float32)
    for k, c in PALETTE.items(): img[gt == k] = c
    img += r.normal(0, 18, img.shape) * r.uniform(0.5, 1.5)
    img *= r.uniform(0.7, 1.2)
    return np.clip(img, 0, 255).astype(np.uint8), gt

r = np.random.RandomState(1)
DATASET = {'image_%03d_leftImg8bit.png' % i: synth_scene(r) for i in range(96)}   # "files" kept in memory

def convert_IDs_to_one_hot(image, num_classes):
    unity_vectors = np.eye(num_classes, dtype=bool)
    return unity_vectors[image]

class BatchGenerator():
    def __init__(self, image_dirs, ground_truth_dirs=None, image_name_split_separator=None, ground_truth_suffix=None,
                 num_classes=None):
        self.image_paths = sorted(DATASET)
        self.ground_truth_paths = {p: p.split(image_name_split_separator, 1)[0] + ground_truth_suffix + '.png' for p in self.image_paths}
        self.num_classes = num_classes
        self.dataset_size = len(self.image_paths)
        self.ground_truth = len(self.ground_truth_paths) > 0

    def get_num_files(self):
        return self.dataset_size

    def generate(self, batch_size, convert_to_one_hot=True, random_crop=False, flip=False, shuffle=True):
        if convert_to_one_hot and self.num_classes is None:
            raise ValueError("One-hot conversion requires that you pass an integer value for `num_classes` in the constructor, but `num_classes` is `None`.")
        if shuffle: random.shuffle(self.image_paths)
        current = 0
        while True:
            images, gt_images = [], []
            if current >= len(self.image_paths):
                if shuffle: random.shuffle(self.image_paths)
                current = 0
            for image_path in self.image_paths[current:current + batch_size]:
                image, gt_image = DATASET[image_path]                       # scipy.misc.imread(...) of both files
                image, gt_image = image.copy(), gt_image.copy()
                if flip and np.random.rand() < flip:
                    image, gt_image = image[:, ::-1].copy(), gt_image[:, ::-1].copy()
                if random_crop:
                    y0 = np.random.randint(0, IMG_H - random_crop[0] + 1); x0 = np.random.randint(0, IMG_W - random_crop[1] + 1)
                    image = image[y0:y0 + random_crop[0], x0:x0 + random_crop[1]]
                    gt_image = gt_image[y0:y0 + random_crop[0], x0:x0 + random_crop[1]]
                if convert_to_one_hot:
                    gt_image = convert_IDs_to_one_hot(gt_image, self.num_classes)
                images.append(image); gt_images.append(gt_image)
            current += batch_size
            yield np.array(images), np.array(gt_images)

class FCN8s(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        c = lambda i, o: nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.ReLU(), nn.Conv2d(o, o, 3, padding=1), nn.ReLU())
        self.s1, self.s2, self.s3 = c(3, 16), c(16, 32), c(32, 64)
        self.score3 = nn.Conv2d(64, num_classes, 1); self.score2 = nn.Conv2d(32, num_classes, 1); self.score1 = nn.Conv2d(16, num_classes, 1)
    def forward(self, x, keep_prob=0.5):
        f1 = self.s1(x); f2 = self.s2(F.max_pool2d(f1, 2)); f3 = F.dropout(self.s3(F.max_pool2d(f2, 2)), 1 - keep_prob, self.training)
        s = F.interpolate(self.score3(f3), scale_factor=2, mode='bilinear', align_corners=False) + self.score2(f2)
        s = F.interpolate(s, scale_factor=2, mode='bilinear', align_corners=False) + self.score1(f1)
        return s

train_dataset = BatchGenerator(image_dirs=['leftImg8bit/train'], ground_truth_dirs=['gtFine/train'],
                               image_name_split_separator='leftImg8bit', ground_truth_suffix='gtFine_labelIds',
                               num_classes=num_classes)
num_train_images = train_dataset.get_num_files()
print("Size of training dataset: ", num_train_images, " images")
train_generator = train_dataset.generate(batch_size=batch_size, convert_to_one_hot=True, random_crop=(56, 112), flip=0.5, shuffle=True)

f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['step', 'epoch', 'train_loss', 'learning_rate', 'eval_loss', 'eval_mean_iou', 'eval_accuracy']); f.flush()

start_time = time.time()
images, gt_images = next(train_generator)
print('Time to generate one batch: {:.3f} seconds'.format(time.time() - start_time))
print('Number of images generated:', len(images))
print('Number of ground truth images generated:', len(gt_images))

def to_tensors(images, gt_images):
    x = torch.tensor(images, dtype=torch.float32).permute(0, 3, 1, 2) / 127.5 - 1.0
    y = torch.tensor(gt_images.argmax(-1), dtype=torch.long)
    return x, y

model = FCN8s(num_classes)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
def learning_rate_schedule(step):
    return 0.001 if step <= 30 else 0.0003
steps_per_epoch = math.ceil(num_train_images / batch_size)
print('Default GPU Device: none (CPU)')
step = 0
for epoch in range(1, epochs + 1):
    t0 = time.time(); losses = []
    for _ in range(steps_per_epoch):
        step += 1
        lr = learning_rate_schedule(step)
        for g in optimizer.param_groups: g['lr'] = lr
        x, y = to_tensors(*next(train_generator))
        model.train()
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        losses.append(loss.item())
        wr.writerow([step, epoch, round(loss.item(), 5), lr, '', '', ''])
    dt = time.time() - t0
    print('Epoch {}/{}: 100%|##########| {}/{} [{:02d}:{:02d}<00:00, {:.2f}s/it, learning rate={:g}, loss={:.4f}]'.format(
        epoch, epochs, steps_per_epoch, steps_per_epoch, int(dt) // 60, int(dt) % 60, dt / steps_per_epoch, lr, np.mean(losses[-3:])), flush=True)
    model.eval(); inter = np.zeros(num_classes); union = np.zeros(num_classes); correct = total = 0; eloss = []
    eval_gen = train_dataset.generate(batch_size=batch_size, convert_to_one_hot=True, shuffle=False)
    with torch.no_grad():
        for _ in range(steps_per_epoch):
            x, y = to_tensors(*next(eval_gen)); out = model(x); eloss.append(F.cross_entropy(out, y).item())
            pred = out.argmax(1)
            correct += (pred == y).sum().item(); total += y.numel()
            for k in range(num_classes):
                inter[k] += ((pred == k) & (y == k)).sum().item(); union[k] += ((pred == k) | (y == k)).sum().item()
    miou = float(np.mean(inter[union > 0] / union[union > 0]))
    print('Evaluation on validation dataset: 100%|##########| {}/{}'.format(steps_per_epoch, steps_per_epoch))
    print('loss: {:.4f}  mean_iou: {:.4f}  accuracy: {:.4f}  '.format(np.mean(eloss), miou, correct / total))
    wr.writerow([step, epoch, '', lr, round(float(np.mean(eloss)), 5), round(miou, 4), round(correct / total, 4)]); f.flush()
f.close()
