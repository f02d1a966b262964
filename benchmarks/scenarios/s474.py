# Jiahao-UTS/DSLPT (Dynamic Sparse Local Patch Transformer, face alignment) training loop in
# miniature: tools/train_function.py's loop (model returns three stage predictions, loss =
# 0.2 * R_loss_1 + 0.3 * R_loss_2 + 0.5 * R_loss_3, optimizer.zero_grad / backward / step,
# AverageMeter values and averages, a log line every PRINT_FREQ = 10 iterations), AdamW lr 0.0005
# and batch size 16 from Config/default.py, and a validation NME (normalised by the distance of
# the two eye-corner landmarks, as Alignment_Loss does) after every epoch. Each stage predicts a
# Gaussian per landmark coordinate (mean and log sigma) and is trained with its negative
# log-likelihood, the loss the author names in the thread. A small CNN with three refinement
# heads replaces HRNet + transformer; 8 landmarks on synthetic 32 x 32 "faces" replace WFLW's 98.
import csv, math, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(11); torch.manual_seed(11); torch.set_num_threads(1)

NUM_POINT = 8; IMG = 32
base = np.array([[0.35, 0.40], [0.65, 0.40], [0.50, 0.55], [0.38, 0.70], [0.62, 0.70], [0.50, 0.75], [0.25, 0.45], [0.75, 0.45]], np.float32)
yy, xx = np.mgrid[0:IMG, 0:IMG].astype(np.float32) / IMG
def make_set(n):
    X = np.zeros((n, 1, IMG, IMG), np.float32); P = np.zeros((n, NUM_POINT, 2), np.float32)
    for i in range(n):
        s = np.random.uniform(0.8, 1.15); t = np.random.uniform(-0.08, 0.08, 2); a = np.random.uniform(-0.25, 0.25)
        R = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]], np.float32)
        pts = (base - 0.5) @ R.T * s + 0.5 + t + np.random.normal(0, 0.01, base.shape)
        cx, cy = pts[:, 0].mean(), pts[:, 1].mean()
        img = 0.4 * (((xx - cx) / (0.32 * s)) ** 2 + ((yy - cy) / (0.40 * s)) ** 2 < 1)
        for (px, py) in pts:
            img = img + np.exp(-((xx - px) ** 2 + (yy - py) ** 2) / (2 * 0.025 ** 2))
        X[i, 0] = img + np.random.normal(0, 0.05, img.shape); P[i] = pts
    return torch.tensor(X), torch.tensor(P)
train_x, train_p = make_set(2000)
val_x, val_p = make_set(400)

class Sparse_alignment_network(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(4), nn.Flatten(),
            nn.Linear(64 * 16, 256), nn.ReLU())
        self.init_points = nn.Parameter(torch.tensor(base).reshape(-1), requires_grad=False)
        self.stages = nn.ModuleList([nn.Linear(256 + NUM_POINT * 2, NUM_POINT * 4) for _ in range(3)])
    def forward(self, x, ground_truth=None, train=True):
        feat = self.backbone(x); points = self.init_points.expand(x.size(0), -1)
        outs, loss_list = [], []
        for stage in self.stages:
            o = stage(torch.cat([feat, points], 1)).view(-1, NUM_POINT, 4)
            mean = points.view(-1, NUM_POINT, 2) + o[..., :2]; log_sigma = o[..., 2:].clamp(-12, 5)
            outs.append(mean); points = mean.reshape(x.size(0), -1).detach()
            if ground_truth is not None:
                nll = log_sigma + 0.5 * ((ground_truth - mean) / log_sigma.exp()) ** 2 + 0.5 * math.log(2 * math.pi)
                loss_list.append(nll.mean())
        return torch.stack(outs, 1), loss_list

def nme(pred, gt):
    d = torch.norm(pred - gt, dim=-1).mean(-1)
    return (d / torch.norm(gt[:, 0] - gt[:, 1], dim=-1)).mean().item()

class AverageMeter:
    def __init__(self): self.val = self.avg = self.sum = self.count = 0
    def update(self, val, n=1):
        self.val = val; self.sum += val * n; self.count += n; self.avg = self.sum / self.count

model = Sparse_alignment_network()
optimizer = torch.optim.AdamW(model.parameters(), lr=0.0005)
BATCH = 16; PRINT_FREQ = 10; NUM_EPOCH = 5
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'iter', 'loss', 'NME_stage1', 'NME_stage2', 'NME_stage3', 'val_nme'])
for epoch in range(NUM_EPOCH):
    batch_time = AverageMeter(); data_time = AverageMeter(); loss_average = AverageMeter()
    NME_stage1 = AverageMeter(); NME_stage2 = AverageMeter(); NME_stage3 = AverageMeter()
    model.train(); perm = torch.randperm(len(train_x)); n_iter = len(perm) // BATCH; end = time.time()
    for i in range(n_iter):
        idx = perm[i * BATCH:(i + 1) * BATCH]; input, ground_truth = train_x[idx], train_p[idx]
        data_time.update(time.time() - end)
        landmarks, loss_list = model(input, ground_truth, True)
        R_loss_1, R_loss_2, R_loss_3 = loss_list
        loss = 0.2 * R_loss_1 + 0.3 * R_loss_2 + 0.5 * R_loss_3
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        with torch.no_grad():
            NME_stage1.update(nme(landmarks[:, 0], ground_truth), input.size(0))
            NME_stage2.update(nme(landmarks[:, 1], ground_truth), input.size(0))
            NME_stage3.update(nme(landmarks[:, 2], ground_truth), input.size(0))
        loss_average.update(loss.item(), input.size(0))
        batch_time.update(time.time() - end); end = time.time()
        if i % PRINT_FREQ == 0:
            msg = 'Epoch: [{0}][{1}/{2}]\t' \
                  'Time {batch_time.val:.3f}s ({batch_time.avg:.3f}s)\t' \
                  'Speed {speed:.1f} samples/s\t' \
                  'Data {data_time.val:.3f}s ({data_time.avg:.3f}s)\t' \
                  'Loss {loss.val:.5f} ({loss.avg:.5f})\t' \
                  'NME_stage1 {NME_stage1.val:.5f} ({NME_stage1.avg:.5f})\t' \
                  'NME_stage2 {NME_stage2.val:.5f} ({NME_stage2.avg:.5f})\t' \
                  'NME_stage3 {NME_stage3.val:.5f} ({NME_stage3.avg:.5f})\t'.format(
                      epoch, i, n_iter, batch_time=batch_time, speed=input.size(0) / max(batch_time.val, 1e-6),
                      data_time=data_time, loss=loss_average, NME_stage1=NME_stage1, NME_stage2=NME_stage2, NME_stage3=NME_stage3)
            print(msg, flush=True)
            wr.writerow([epoch, epoch * n_iter + i, round(loss.item(), 5), round(NME_stage1.val, 5), round(NME_stage2.val, 5), round(NME_stage3.val, 5), ''])
    model.eval()
    with torch.no_grad():
        val_landmarks, _ = model(val_x)
        val_nme = nme(val_landmarks[:, 2], val_p)
    print('Test Epoch: [{0}]\tNME {1:.5f}'.format(epoch, val_nme), flush=True)
    wr.writerow([epoch, (epoch + 1) * n_iter, '', '', '', '', round(val_nme, 5)]); f.flush()
f.close()
