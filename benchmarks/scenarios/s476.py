# pytorch-image-models (timm) train.py on a custom ImageFolder-style data set whose validation folder has an
# empty class directory. timm's parser_image_folder builds class_to_idx from the labels of the files it finds
# (sorted unique labels), so the train split maps class1..class10 to 0..9 while the validation split, with
# class2 empty, maps class1 -> 0, class3 -> 1, ..., class10 -> 8: every validation class after class2 is
# scored against the wrong index. Small CNN instead of a timm model, synthetic 16 x 16 images, SGD with
# momentum, label smoothing 0.1, cosine schedule, timm-style "Train:" / "Test:" lines and a summary row per epoch.
import os
import re
import math
import tempfile
import time
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(42); np.random.seed(42); torch.set_num_threads(1)

NUM_CLASSES = 10
IMG_EXTENSIONS = ('.npy',)
root = tempfile.mkdtemp(prefix='timm_data_')

# --- synthetic data set on disk: train/classK/*.npy, validation/classK/*.npy (validation/class2 empty) ---
rng = np.random.RandomState(0)
protos = rng.randn(NUM_CLASSES, 3, 16, 16).astype(np.float32)
def make_img(c):
    return (protos[c] + 1.0 * rng.randn(3, 16, 16)).astype(np.float32)
for split, n_per in (('train', 120), ('validation', 40)):
    for c in range(NUM_CLASSES):
        d = os.path.join(root, split, 'class%d' % (c + 1))
        os.makedirs(d, exist_ok=True)
        if split == 'validation' and c == 1:
            continue          # class2 has 0 pics in the validation folder
        for i in range(n_per):
            np.save(os.path.join(d, '%05d.npy' % i), make_img(c))

# --- timm/data/parsers/parser_image_folder.py (2020) ---
def natural_key(string_):
    return [int(s) if s.isdigit() else s for s in re.split(r'(\d+)', string_.lower())]

def find_images_and_targets(folder, types=IMG_EXTENSIONS, class_to_idx=None, leaf_name_only=True, sort=True):
    labels = []
    filenames = []
    for root_, subdirs, files in os.walk(folder, topdown=False):
        rel_path = os.path.relpath(root_, folder) if (root_ != folder) else ''
        label = os.path.basename(rel_path) if leaf_name_only else rel_path.replace(os.path.sep, '_')
        for f in files:
            base, ext = os.path.splitext(f)
            if ext.lower() in types:
                filenames.append(os.path.join(root_, f))
                labels.append(label)
    if class_to_idx is None:
        # building class index
        unique_labels = set(labels)
        sorted_labels = list(sorted(unique_labels, key=natural_key))
        class_to_idx = {c: idx for idx, c in enumerate(sorted_labels)}
    images_and_targets = [(f, class_to_idx[l]) for f, l in zip(filenames, labels) if l in class_to_idx]
    if sort:
        images_and_targets = sorted(images_and_targets, key=lambda k: natural_key(k[0]))
    return images_and_targets, class_to_idx

class Dataset(torch.utils.data.Dataset):
    def __init__(self, root_):
        self.samples, self.class_to_idx = find_images_and_targets(root_)
    def __len__(self):
        return len(self.samples)
    def __getitem__(self, i):
        f, t = self.samples[i]
        return torch.from_numpy(np.load(f)), t

dataset_train = Dataset(os.path.join(root, 'train'))
dataset_eval = Dataset(os.path.join(root, 'validation'))
loader_train = torch.utils.data.DataLoader(dataset_train, batch_size=32, shuffle=True, drop_last=True)
loader_eval = torch.utils.data.DataLoader(dataset_eval, batch_size=64, shuffle=False)

class SmallNet(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(inplace=True), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(inplace=True), nn.MaxPool2d(2),
            nn.Conv2d(64, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(64, num_classes)
    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))

model = SmallNet(NUM_CLASSES)
print('Model %s created, param count: %d' % ('smallnet', sum(m.numel() for m in model.parameters())))

class LabelSmoothingCrossEntropy(nn.Module):
    def __init__(self, smoothing=0.1):
        super().__init__()
        self.smoothing = smoothing
        self.confidence = 1. - smoothing
    def forward(self, x, target):
        logprobs = F.log_softmax(x, dim=-1)
        nll_loss = -logprobs.gather(dim=-1, index=target.unsqueeze(1)).squeeze(1)
        smooth_loss = -logprobs.mean(dim=-1)
        return (self.confidence * nll_loss + self.smoothing * smooth_loss).mean()

class AverageMeter:
    def __init__(self):
        self.val = 0; self.avg = 0; self.sum = 0; self.count = 0
    def update(self, val, n=1):
        self.val = val; self.sum += val * n; self.count += n; self.avg = self.sum / self.count

def accuracy(output, target, topk=(1,)):
    maxk = max(topk)
    batch_size = target.size(0)
    _, pred = output.topk(maxk, 1, True, True)
    pred = pred.t()
    correct = pred.eq(target.reshape(1, -1).expand_as(pred))
    return [correct[:k].reshape(-1).float().sum(0) * 100. / batch_size for k in topk]

EPOCHS = 8
LR = 0.05
optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9, weight_decay=1e-4, nesterov=True)
train_loss_fn = LabelSmoothingCrossEntropy(smoothing=0.1)
validate_loss_fn = nn.CrossEntropyLoss()
print('Scheduled epochs: %d' % EPOCHS)

def train_one_epoch(epoch):
    model.train()
    losses_m = AverageMeter()
    last_idx = len(loader_train) - 1
    lr = LR * 0.5 * (1 + math.cos(math.pi * epoch / EPOCHS))
    for g in optimizer.param_groups:
        g['lr'] = lr
    end = time.time()
    for batch_idx, (input, target) in enumerate(loader_train):
        output = model(input)
        loss = train_loss_fn(output, target)
        losses_m.update(loss.item(), input.size(0))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if batch_idx == last_idx or batch_idx % 15 == 0:
            print('Train: {} [{:>4d}/{} ({:>3.0f}%)]  Loss: {loss.val:>9.6f} ({loss.avg:>6.4f})  '
                  'Time: {bt:.3f}s  LR: {lr:.3e}'.format(
                      epoch, batch_idx, len(loader_train), 100. * batch_idx / last_idx,
                      loss=losses_m, bt=time.time() - end, lr=lr))
        end = time.time()
    return losses_m.avg

def validate():
    losses_m = AverageMeter(); top1_m = AverageMeter(); top5_m = AverageMeter()
    model.eval()
    last_idx = len(loader_eval) - 1
    with torch.no_grad():
        for batch_idx, (input, target) in enumerate(loader_eval):
            output = model(input)
            loss = validate_loss_fn(output, target)
            acc1, acc5 = accuracy(output, target, topk=(1, 5))
            losses_m.update(loss.item(), input.size(0))
            top1_m.update(acc1.item(), output.size(0))
            top5_m.update(acc5.item(), output.size(0))
            if batch_idx == last_idx or batch_idx % 2 == 0:
                print('Test: [{0:>4d}/{1}]  Loss: {loss.val:>7.4f} ({loss.avg:>6.4f})  '
                      'Acc@1: {top1.val:>7.4f} ({top1.avg:>7.4f})  Acc@5: {top5.val:>7.4f} ({top5.avg:>7.4f})'.format(
                          batch_idx, last_idx, loss=losses_m, top1=top1_m, top5=top5_m))
    return losses_m.avg, top1_m.avg, top5_m.avg

best_metric = None; best_epoch = None
print('epoch,train_loss,eval_loss,eval_top1,eval_top5')
for epoch in range(EPOCHS):
    train_loss = train_one_epoch(epoch)
    eval_loss, top1, top5 = validate()
    print('{},{:.10f},{:.10f},{:.10f},{:.10f}'.format(epoch, train_loss, eval_loss, top1, top5))
    if best_metric is None or top1 > best_metric:
        best_metric, best_epoch = top1, epoch
        print('Current checkpoints:\n (\'./output/train/checkpoint-{}.pth.tar\', {})'.format(epoch, top1))
print('*** Best metric: {0} (epoch {1})'.format(best_metric, best_epoch))
