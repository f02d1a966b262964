# potterhsu/easy-faster-rcnn.pytorch issue "The learing rate is always 0" in miniature: train.py of the
# repository (May 2019) with its extension/lr_scheduler.py WarmUpMultiStepLR, which subclasses MultiStepLR and
# returns [lr * factor for lr in super().get_lr()]. On PyTorch >= 1.1 MultiStepLR.get_lr() is "chainable": it
# returns the optimizer's current lr (not base_lr), so the warm-up factor (0.3333 -> 1 over 500 iterations) is
# multiplied into the learning rate again at every step and the rate falls geometrically to ~0 within a few
# dozen steps. TrainConfig defaults: SGD lr 0.001, momentum 0.9, weight_decay 0.0005, batch size 1,
# WARM_UP_FACTOR 0.3333, WARM_UP_NUM_ITERS 500, STEP_LR_SIZES [50000, 70000] (scaled), display every 20 steps.
# The detector is a small stand-in for Faster R-CNN with the same four loss terms (anchor objectness, anchor
# transformer, proposal class, proposal transformer) on a single-scale anchor grid, trained from scratch on
# synthetic 64 x 64 "VOC" pictures with one object of 20 classes each; PASCAL VOC 2007 and the pretrained
# backbone are replaced. Log lines as in train.py ("[Step N] Avg. Loss = ..., Learning Rate = ...").
import csv, logging, time
from collections import deque
from typing import List

import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F
from torch import optim
from torch.optim import Optimizer
from torch.optim.lr_scheduler import MultiStepLR

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
logging.basicConfig(level=logging.INFO, format='%(asctime)s %(levelname)-8s %(message)s', datefmt='%Y-%m-%d %H:%M:%S')
import warnings; warnings.filterwarnings('ignore')


class WarmUpMultiStepLR(MultiStepLR):                   # extension/lr_scheduler.py, verbatim logic
    def __init__(self, optimizer: Optimizer, milestones: List[int], gamma: float = 0.1,
                 factor: float = 0.3333, num_iters: int = 500, last_epoch: int = -1):
        self.factor = factor
        self.num_iters = num_iters
        super().__init__(optimizer, milestones, gamma, last_epoch)

    def get_lr(self) -> List[float]:
        if self.last_epoch < self.num_iters:
            alpha = self.last_epoch / self.num_iters
            factor = (1 - self.factor) * alpha + self.factor
        else:
            factor = 1
        return [lr * factor for lr in super().get_lr()]


class Config:
    IMAGE_MIN_SIDE = 64.0; IMAGE_MAX_SIDE = 64.0
    ANCHOR_RATIOS = [(1, 1)]; ANCHOR_SIZES = [24]; POOLER_MODE = 'align'
    BATCH_SIZE = 1; LEARNING_RATE = 0.001; MOMENTUM = 0.9; WEIGHT_DECAY = 0.0005
    STEP_LR_SIZES = [1100, 1400]; STEP_LR_GAMMA = 0.1; WARM_UP_FACTOR = 0.3333; WARM_UP_NUM_ITERS = 500
    NUM_STEPS_TO_DISPLAY = 20; NUM_STEPS_TO_SNAPSHOT = 500; NUM_STEPS_TO_FINISH = 1500

    @classmethod
    def describe(cls):
        text = '\nConfig:\n'
        attrs = [a for a in dir(cls) if not callable(getattr(cls, a)) and not a.startswith('__')]
        text += '\n'.join(['\t{:s} = {:s}'.format(a, str(getattr(cls, a))) for a in attrs]) + '\n'
        return text


NUM_CLASSES = 21                                        # background + 20 VOC classes
rs = np.random.RandomState(0)
PALETTE = rs.uniform(0.1, 0.9, (20, 3)).astype(np.float32)
PATTERN = rs.randint(0, 4, 20)


def make_sample(r):
    img = (r.uniform(0.35, 0.65, (3, 1, 1)) + 0.12 * r.randn(3, 64, 64)).astype(np.float32)
    for _ in range(3):                                  # clutter
        x, y, s = r.randint(0, 56), r.randint(0, 56), r.randint(3, 8)
        img[:, y:y + s, x:x + s] += r.uniform(-0.3, 0.3, (3, 1, 1))
    c = r.randint(20)
    w, h = r.randint(14, 30), r.randint(14, 30)
    x0, y0 = r.randint(0, 64 - w), r.randint(0, 64 - h)
    patch = np.repeat(np.repeat(PALETTE[c][:, None, None], h, 1), w, 2).copy()
    yy, xx = np.mgrid[0:h, 0:w]
    if PATTERN[c] == 1: patch *= (0.7 + 0.3 * ((xx // 3) % 2))[None]
    if PATTERN[c] == 2: patch *= (0.7 + 0.3 * ((yy // 3) % 2))[None]
    if PATTERN[c] == 3: patch *= (0.7 + 0.3 * (((xx + yy) // 3) % 2))[None]
    img[:, y0:y0 + h, x0:x0 + w] = patch + 0.05 * r.randn(3, h, w)
    return img, np.array([x0, y0, x0 + w, y0 + h], np.float32), c + 1


class Dataset(torch.utils.data.Dataset):
    def __init__(self, n, seed):
        r = np.random.RandomState(seed); self.items = [make_sample(r) for _ in range(n)]
    def __len__(self): return len(self.items)
    def __getitem__(self, i):
        img, box, lab = self.items[i]
        return i, torch.tensor(img), 1.0, torch.tensor(box)[None], torch.tensor([lab])


class Model(nn.Module):                                 # stand-in for Model(backbone, num_classes, ...)
    def __init__(self, num_classes):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))   # stride 8 -> 8 x 8
        self.rpn = nn.Conv2d(64, 64, 3, padding=1)
        self.objectness = nn.Conv2d(64, 2, 1); self.transformer = nn.Conv2d(64, 4, 1)
        self.hidden = nn.Sequential(nn.Linear(64 * 3 * 3, 128), nn.ReLU())
        self.proposal_class = nn.Linear(128, num_classes); self.proposal_transformer = nn.Linear(128, 4 * num_classes)
        ys, xs = torch.meshgrid(torch.arange(8), torch.arange(8), indexing='ij')
        cx, cy = (xs.float() + 0.5) * 8, (ys.float() + 0.5) * 8
        s = Config.ANCHOR_SIZES[0]
        self.register_buffer('anchors', torch.stack([cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2], -1).view(-1, 4))

    @staticmethod
    def encode(src, dst):
        sw, sh = src[:, 2] - src[:, 0], src[:, 3] - src[:, 1]; sx, sy = src[:, 0] + sw / 2, src[:, 1] + sh / 2
        dw, dh = dst[:, 2] - dst[:, 0], dst[:, 3] - dst[:, 1]; dx, dy = dst[:, 0] + dw / 2, dst[:, 1] + dh / 2
        return torch.stack([(dx - sx) / sw, (dy - sy) / sh, torch.log(dw / sw), torch.log(dh / sh)], 1)

    def forward(self, image_batch, bboxes_batch, labels_batch):
        f = self.features(image_batch); r = F.relu(self.rpn(f))
        obj = self.objectness(r).permute(0, 2, 3, 1).reshape(-1, 64, 2)
        tr = self.transformer(r).permute(0, 2, 3, 1).reshape(-1, 64, 4)
        losses = [[], [], [], []]
        for b in range(image_batch.shape[0]):
            gt = bboxes_batch[b]; lab = labels_batch[b]
            cx, cy = (gt[0, 0] + gt[0, 2]) / 2, (gt[0, 1] + gt[0, 3]) / 2
            pos = int(cy // 8) * 8 + int(cx // 8)
            score = obj[b, :, 1] - obj[b, :, 0]                          # anchor objectness as a softmax over the 64 anchors
            losses[0].append(F.cross_entropy(score[None], torch.tensor([pos])))
            t = self.encode(self.anchors[pos:pos + 1], gt)
            losses[1].append(F.smooth_l1_loss(tr[b, pos:pos + 1], t, beta=1.0))
            neg = (pos + 1 + int(torch.randint(62, (1,)))) % 64          # one background proposal
            rois = []
            for p in (pos, neg):
                y, x = p // 8, p % 8
                rois.append(F.pad(f[b:b + 1], (1, 1, 1, 1))[:, :, y:y + 3, x:x + 3].reshape(1, -1))
            h = self.hidden(torch.cat(rois))
            cls = self.proposal_class(h)
            losses[2].append(F.cross_entropy(cls, torch.cat([lab, torch.zeros(1, dtype=torch.long)])))
            reg = self.proposal_transformer(h[:1]).view(NUM_CLASSES, 4)[lab]
            losses[3].append(F.smooth_l1_loss(reg, t, beta=1.0))
        return [torch.stack(l) for l in losses]

    @torch.no_grad()
    def detect(self, image, true_anchor):
        f = self.features(image[None]); r = F.relu(self.rpn(f))
        obj = self.objectness(r).permute(0, 2, 3, 1).reshape(64, 2)
        p = int((obj[:, 1] - obj[:, 0]).argmax()); y, x = true_anchor // 8, true_anchor % 8
        h = self.hidden(F.pad(f, (1, 1, 1, 1))[:, :, y:y + 3, x:x + 3].reshape(1, -1))
        return p, int(self.proposal_class(h)[0, 1:].argmax()) + 1


def _train():
    dataset = Dataset(1500, seed=1)
    dataloader = torch.utils.data.DataLoader(dataset, batch_size=Config.BATCH_SIZE, shuffle=True)
    logging.info('Found {:d} samples'.format(len(dataset)))
    model = Model(NUM_CLASSES)
    optimizer = optim.SGD(model.parameters(), lr=Config.LEARNING_RATE, momentum=Config.MOMENTUM, weight_decay=Config.WEIGHT_DECAY)
    scheduler = WarmUpMultiStepLR(optimizer, milestones=Config.STEP_LR_SIZES, gamma=Config.STEP_LR_GAMMA,
                                  factor=Config.WARM_UP_FACTOR, num_iters=Config.WARM_UP_NUM_ITERS)
    step = 0; time_checkpoint = time.time(); losses = deque(maxlen=100); should_stop = False
    wr = csv.writer(open('metrics.csv', 'w', newline=''))
    wr.writerow(['step', 'loss', 'avg_loss', 'anchor_objectness_loss', 'anchor_transformer_loss',
                 'proposal_class_loss', 'proposal_transformer_loss', 'lr', 'test_class_accuracy', 'test_anchor_recall'])
    logging.info('Start training with CPU (batch size {:d})'.format(Config.BATCH_SIZE))
    while not should_stop:
        for _, (_, image_batch, _, bboxes_batch, labels_batch) in enumerate(dataloader):
            batch_size = image_batch.shape[0]
            a, b, c, d = model.train().forward(image_batch, bboxes_batch, labels_batch)
            anchor_objectness_loss, anchor_transformer_loss = a.mean(), b.mean()
            proposal_class_loss, proposal_transformer_loss = c.mean(), d.mean()
            loss = anchor_objectness_loss + anchor_transformer_loss + proposal_class_loss + proposal_transformer_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            losses.append(loss.item())
            step += 1
            if step == Config.NUM_STEPS_TO_FINISH:
                should_stop = True
            row = [step, round(loss.item(), 5), '', round(anchor_objectness_loss.item(), 5), round(anchor_transformer_loss.item(), 5),
                   round(proposal_class_loss.item(), 5), round(proposal_transformer_loss.item(), 5), optimizer.param_groups[0]['lr'], '', '']
            if step % Config.NUM_STEPS_TO_DISPLAY == 0:
                elapsed_time = time.time() - time_checkpoint; time_checkpoint = time.time()
                steps_per_sec = Config.NUM_STEPS_TO_DISPLAY / elapsed_time
                samples_per_sec = batch_size * steps_per_sec
                eta = (Config.NUM_STEPS_TO_FINISH - step) / steps_per_sec / 3600
                avg_loss = sum(losses) / len(losses)
                lr = scheduler.get_lr()[0]
                row[2] = round(avg_loss, 5)
                logging.info(f'[Step {step}] Avg. Loss = {avg_loss:.6f}, Learning Rate = {lr:.8f} ({samples_per_sec:.2f} samples/sec; ETA {eta:.1f} hrs)')
            if step % Config.NUM_STEPS_TO_SNAPSHOT == 0 or should_stop:
                model.eval(); hit = correct = 0
                for img, box, lab in test_items:
                    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
                    ta = int(cy // 8) * 8 + int(cx // 8)
                    p, cls = model.detect(torch.tensor(img), ta)
                    hit += int(p == ta); correct += int(cls == lab)
                row[8] = round(correct / len(test_items), 4); row[9] = round(hit / len(test_items), 4)
                logging.info(f'Model has been saved to outputs/checkpoints/model-{step}.pth')
                logging.info(f'Test: anchor recall = {hit / len(test_items):.4f}, proposal class accuracy = {correct / len(test_items):.4f}')
            wr.writerow(row)
            if should_stop:
                break
    logging.info('Done')


if __name__ == '__main__':
    test_items = [make_sample(np.random.RandomState(10_000 + i)) for i in range(200)]
    logging.info('Arguments:')
    for k, v in dict(dataset='voc2007', backbone='resnet101', data_dir='./data', outputs_dir='./outputs', resume_checkpoint=None).items():
        logging.info(f'\t{k} = {v}')
    logging.info(Config.describe())
    _train()
