# dyzy41/ChangeCLIP (configs/0cd_ce/changeclip_levirplus.py before commit d91aa79 "fix poly_lr bug") in miniature:
# binary remote-sensing change detection trained with an mmsegmentation/mmengine IterBasedTrainLoop: AdamW
# (lr 1e-4, betas 0.9/0.999, weight_decay 0.01, no decay on norm layers), param_scheduler = a LinearLR warm-up
# (start_factor 1e-6, iterations 0-1500) then PolyLR(power=1.0, eta_min=0.0, begin=1500, end=20000) while
# train_cfg = dict(type='IterBasedTrainLoop', max_iters=40000, val_interval=1000); the LoggerHook prints every 10
# iterations and validation prints the per-class IoU/Acc/Fscore table and aAcc/mIoU. Scaled down: warm-up 45
# iterations, PolyLR end=600, max_iters=1200, val_interval=60, log lines every 30 iterations. A small Siamese CNN
# (shared encoder, absolute feature difference, upsampling decoder, CrossEntropyLoss) replaces ChangeCLIP (CLIP
# ResNet-50 with text prompts); 600 training and 64 validation synthetic 32 x 32 bi-temporal tile pairs (fields and
# roads, seasonal colour and illumination shifts between the two dates, new rectangular buildings with shadows as
# the "changed" class) replace LEVIR-CD+.
import csv, math, time, datetime
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
rs = np.random.RandomState(0)
S = 32

def tile_pair():
    yy, xx = np.mgrid[0:S, 0:S].astype(np.float32)
    base = np.zeros((3, S, S), np.float32)
    for _ in range(3):                                     # fields
        c = rs.uniform(0.2, 0.6, 3); x0, y0 = rs.randint(0, S, 2); w, h = rs.randint(8, 20, 2)
        m = (xx >= x0) & (xx < x0 + w) & (yy >= y0) & (yy < y0 + h); base[:, m] = c[:, None]
    if rs.rand() < 0.6:                                    # a road
        a = rs.uniform(0, np.pi); d = np.abs((xx - S / 2) * np.sin(a) - (yy - S / 2) * np.cos(a) - rs.uniform(-8, 8))
        base[:, d < 2] = 0.55
    base += rs.normal(0, 0.03, base.shape).astype(np.float32)
    t1 = base.copy()
    t2 = base * rs.uniform(0.8, 1.2) + rs.uniform(-0.08, 0.08, (3, 1, 1)).astype(np.float32)    # season / light
    label = np.zeros((S, S), np.int64)
    for _ in range(rs.randint(0, 4)):                      # new buildings in the second image
        x0, y0 = rs.randint(2, S - 9, 2); w, h = rs.randint(3, 8, 2)
        m = (xx >= x0) & (xx < x0 + w) & (yy >= y0) & (yy < y0 + h)
        sh = (xx >= x0 + 2) & (xx < x0 + w + 2) & (yy >= y0 + h) & (yy < y0 + h + 2)
        t2[:, sh] *= 0.5; t2[:, m] = rs.uniform(0.6, 0.95, 3)[:, None] + rs.normal(0, 0.03, (3, int(m.sum())))
        label[m] = 1
    t2 += rs.normal(0, 0.03, t2.shape).astype(np.float32)
    return t1, t2, label

def make(n):
    d = [tile_pair() for _ in range(n)]
    return (torch.tensor(np.stack([a for a, b, c in d])), torch.tensor(np.stack([b for a, b, c in d])),
            torch.tensor(np.stack([c for a, b, c in d])))

A_tr, B_tr, Y_tr = make(600); A_va, B_va, Y_va = make(64)
classes = ('unchanged', 'changed')

def cbr(i, o, s=1): return nn.Sequential(nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

class SiamCD(nn.Module):                                   # stand-in for ChangeCLIP (CLIP backbone + text-guided decoder)
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(cbr(3, 12), cbr(12, 24, 2), cbr(24, 24), cbr(24, 32, 2), cbr(32, 32))
        self.decode_head = nn.Sequential(cbr(64, 32), nn.Upsample(scale_factor=2, mode='bilinear', align_corners=False),
                                         cbr(32, 24), nn.Upsample(scale_factor=2, mode='bilinear', align_corners=False),
                                         nn.Dropout2d(0.1), nn.Conv2d(24, 2, 1))
    def forward(self, a, b):
        fa, fb = self.backbone(a), self.backbone(b)
        return self.decode_head(torch.cat([torch.abs(fa - fb), fa + fb], 1))

model = SiamCD()
decay, no_decay = [], []
for n_, p in model.named_parameters(): (no_decay if (p.ndim == 1) else decay).append(p)   # 'norm': decay_mult=0.
base_lr = 1e-4
optimizer = torch.optim.AdamW([{'params': decay}, {'params': no_decay, 'weight_decay': 0.}],
                              lr=base_lr, betas=(0.9, 0.999), weight_decay=0.01)
max_iters, val_interval, log_interval = 1200, 60, 30
warmup_end, poly_end = 45, 600                            # configs: LinearLR end=1500, PolyLR begin=1500 end=20000

def lr_at(it):                                             # mmengine LinearLR + PolyLR(eta_min=0, power=1) by iteration
    if it < warmup_end:
        f = 1e-6 + (1 - 1e-6) * it / warmup_end
        return base_lr * f
    if it < poly_end:
        return base_lr * (1 - (it - warmup_end) / (poly_end - warmup_end)) ** 1.0
    return 0.0                                             # the scheduler has ended: lr stays at eta_min

def evaluate():
    model.eval(); inter = np.zeros(2); union = np.zeros(2); tp = np.zeros(2); gt = np.zeros(2); pr = np.zeros(2)
    with torch.no_grad():
        for j in range(0, len(A_va), 16):
            pred = model(A_va[j:j + 16], B_va[j:j + 16]).argmax(1); y = Y_va[j:j + 16]
            for c in range(2):
                p_, g_ = pred == c, y == c
                inter[c] += (p_ & g_).sum().item(); union[c] += (p_ | g_).sum().item()
                gt[c] += g_.sum().item(); pr[c] += p_.sum().item()
    model.train()
    iou = 100 * inter / np.maximum(union, 1); acc = 100 * inter / np.maximum(gt, 1)
    prec = 100 * inter / np.maximum(pr, 1); fs = 2 * prec * acc / np.maximum(prec + acc, 1e-9)
    return iou, acc, fs, prec, 100 * inter.sum() / gt.sum()

def stamp(): return datetime.datetime(2024, 3, 14, 10, 0, 0).strftime('%m/%d %H:%M:%S')

f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['iter', 'lr', 'loss', 'acc_seg', 'val_mIoU', 'val_IoU_changed', 'val_Fscore_changed', 'val_aAcc'])
print('%s - mmengine - INFO - Checkpoints will be saved to work_dirs_ce/changeclip_levirplus.' % stamp())
t0 = time.time(); run_loss, run_acc = [], []
for it in range(max_iters):
    for g in optimizer.param_groups: g['lr'] = lr_at(it)
    idx = torch.randint(0, len(A_tr), (8,))
    a, b, y = A_tr[idx], B_tr[idx], Y_tr[idx]
    if torch.rand(1).item() < 0.5: a, b, y = a.flip(-1), b.flip(-1), y.flip(-1)      # RandomFlip
    out = model(a, b)
    loss = F.cross_entropy(out, y)
    optimizer.zero_grad(); loss.backward(); optimizer.step()
    acc_seg = (out.argmax(1) == y).float().mean().item() * 100
    run_loss.append(loss.item()); run_acc.append(acc_seg)
    wr.writerow([it + 1, '%.4e' % lr_at(it), round(loss.item(), 5), round(acc_seg, 2), '', '', '', ''])
    if (it + 1) % log_interval == 0:
        el = time.time() - t0; eta = el / (it + 1) * (max_iters - it - 1)
        print('%s - mmengine - INFO - Iter(train) [%5d/%d]  base_lr: %.4e lr: %.4e  eta: %s  time: %.4f  data_time: 0.0021  '
              'memory: 312  loss: %.4f  decode.loss_ce: %.4f  decode.acc_seg: %.4f'
              % (stamp(), it + 1, max_iters, lr_at(it), lr_at(it), str(datetime.timedelta(seconds=int(eta))),
                 el / (it + 1), np.mean(run_loss[-10:]), np.mean(run_loss[-10:]), run_acc[-1]), flush=True)
    if (it + 1) % val_interval == 0:
        iou, acc, fs, prec, aacc = evaluate()
        print('%s - mmengine - INFO - per class results:' % stamp())
        print('+-----------+-------+-------+--------+-----------+--------+')
        print('|   Class   |  IoU  |  Acc  | Fscore | Precision | Recall |')
        print('+-----------+-------+-------+--------+-----------+--------+')
        for c in range(2):
            print('| %9s | %5.2f | %5.2f | %6.2f | %9.2f | %6.2f |' % (classes[c], iou[c], acc[c], fs[c], prec[c], acc[c]))
        print('+-----------+-------+-------+--------+-----------+--------+')
        print('%s - mmengine - INFO - Iter(val) [64/64]    aAcc: %.4f  mIoU: %.4f  mAcc: %.4f  mFscore: %.4f'
              % (stamp(), aacc, iou.mean(), acc.mean(), fs.mean()), flush=True)
        wr.writerow([it + 1, '%.4e' % lr_at(it), '', '', round(iou.mean(), 3), round(iou[1], 3), round(fs[1], 3), round(aacc, 3)])
f.close()
