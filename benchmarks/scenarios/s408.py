# pytorch/examples imagenet/main.py in miniature: AlexNet-style CNN (scaled down to 32x32 inputs
# and 100 classes), SGD lr 0.01 momentum 0.9 wd 1e-4, batch 32, "--print-freq 1" so every
# iteration prints "Epoch: [0][i/N]  Time x (avg)  Data y (avg)  Loss ...  Prec@1 ...  Prec@5 ...".
# The ImageFolder-style dataset reads every JPEG from a slow network/disk mount and decodes +
# random-resized-crops it on the CPU inside __getitem__; the loader runs the reads synchronously
# (one worker process, no prefetch), and some reads block for a long time, so the model waits
# for data most of the time. File reads are simulated with time.sleep (the I/O latency) plus a
# real numpy decode/resize of a 128x128 "image".
import csv, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

np.random.seed(164); torch.manual_seed(164); torch.set_num_threads(1)
NC, NTRAIN, BS = 100, 1920, 32
protos = np.random.rand(NC, 3, 8, 8).astype(np.float32)
class SlowImageFolder(Dataset):
    def __init__(self, n):
        self.labels = np.random.randint(0, NC, n); self.rng = np.random.RandomState(0)
    def __len__(self): return len(self.labels)
    def __getitem__(self, i):
        c = self.labels[i]
        # "open + read" of the JPEG from the slow mount: usually ~4 ms, sometimes the read stalls
        time.sleep(0.004 if self.rng.rand() > 0.02 else self.rng.uniform(0.3, 1.2))
        big = np.kron(protos[c], np.ones((1, 16, 16), np.float32)) + 0.3 * self.rng.randn(3, 128, 128).astype(np.float32)
        y0, x0 = self.rng.randint(0, 32, 2); crop = big[:, y0:y0 + 96, x0:x0 + 96]
        img = crop.reshape(3, 32, 3, 32, 3).mean((2, 4))           # resize 96 -> 32
        return torch.from_numpy(np.ascontiguousarray(img)), int(c)

class AverageMeter:
    def __init__(self): self.sum, self.count, self.val, self.avg = 0.0, 0, 0.0, 0.0
    def update(self, v, n=1): self.val = v; self.sum += v * n; self.count += n; self.avg = self.sum / self.count

model = nn.Sequential(
    nn.Conv2d(3, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(64, 96, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
    nn.Dropout(), nn.Linear(96 * 16, 256), nn.ReLU(), nn.Dropout(), nn.Linear(256, NC))
optimizer = torch.optim.SGD(model.parameters(), 0.01, momentum=0.9, weight_decay=1e-4)
train_loader = DataLoader(SlowImageFolder(NTRAIN), batch_size=BS, shuffle=True, num_workers=0)
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['iter', 'batch_time', 'data_time', 'loss', 'top1'])
batch_time, data_time, losses, top1, top5 = AverageMeter(), AverageMeter(), AverageMeter(), AverageMeter(), AverageMeter()
model.train(); end = time.time(); n_iter = len(train_loader)
for i, (inp, target) in enumerate(train_loader):
    data_time.update(time.time() - end)
    output = model(inp); loss = F.cross_entropy(output, target)
    _, pred = output.topk(5, 1); correct = pred.eq(target[:, None])
    prec1 = correct[:, :1].float().sum().item() * 100.0 / BS; prec5 = correct.float().sum().item() * 100.0 / BS
    losses.update(loss.item(), BS); top1.update(prec1, BS); top5.update(prec5, BS)
    optimizer.zero_grad(); loss.backward(); optimizer.step()
    batch_time.update(time.time() - end); end = time.time()
    print('Epoch: [0][{0}/{1}]\tTime {bt.val:.3f} ({bt.avg:.3f})\tData {dt.val:.3f} ({dt.avg:.3f})\t'
          'Loss {l.val:.4f} ({l.avg:.4f})\tPrec@1 {t1.val:.3f} ({t1.avg:.3f})\tPrec@5 {t5.val:.3f} ({t5.avg:.3f})'.format(
              i, n_iter, bt=batch_time, dt=data_time, l=losses, t1=top1, t5=top5))
    wr.writerow([i, round(batch_time.val, 4), round(data_time.val, 4), round(loss.item(), 5), prec1])
