import os
import time
import math
import argparse
import numpy as np
import torch
import torch.nn as nn
from torch import optim

torch.set_num_threads(1)
fix_seed = 2021
np.random.seed(fix_seed)
torch.manual_seed(fix_seed)

args = argparse.Namespace(
    task_name='long_term_forecast', is_training=1, model_id='SYN_96_24', model='PatchTST', data='synthetic',
    features='M', seq_len=96, label_len=48, pred_len=24, enc_in=4, d_model=32, n_heads=4, e_layers=2,
    d_ff=64, dropout=0.1, patch_len=16, stride=8, revin=True, scale=True, train_epochs=8, batch_size=32,
    patience=3, learning_rate=0.001, lradj='type1', use_amp=False, use_gpu=False, des='Exp', itr=1,
    checkpoints='./checkpoints/')

# ---------------- synthetic multivariate series (4 sensors, daily + half-daily cycles, drift, noise) ----------------
T = 4200
t = np.arange(T)
rng = np.random.RandomState(fix_seed)
series = []
for c in range(args.enc_in):
    level = [20.0, 150.0, 3.0, 60.0][c]
    amp = [5.0, 30.0, 1.0, 12.0][c]
    s = level + amp * np.sin(2 * np.pi * t / 24 + rng.rand() * 6) + 0.5 * amp * np.sin(2 * np.pi * t / 12 + rng.rand() * 6)
    s += 0.3 * amp * np.sin(2 * np.pi * t / 168) + 0.0004 * amp * t
    s += rng.normal(0, 0.35 * amp, T)
    series.append(s)
data = np.stack(series, 1).astype(np.float32)
n_train, n_val = int(T * 0.7), int(T * 0.1)
borders = {'train': (0, n_train), 'val': (n_train - args.seq_len, n_train + n_val), 'test': (n_train + n_val - args.seq_len, T)}
mean, std = data[:n_train].mean(0), data[:n_train].std(0)
if args.scale:
    data = (data - mean) / std

class Dataset_Custom(torch.utils.data.Dataset):
    def __init__(self, flag):
        b0, b1 = borders[flag]
        self.data = torch.tensor(data[b0:b1])
    def __len__(self):
        return len(self.data) - args.seq_len - args.pred_len + 1
    def __getitem__(self, i):
        return self.data[i:i + args.seq_len], self.data[i + args.seq_len:i + args.seq_len + args.pred_len]

def data_provider(flag):
    ds = Dataset_Custom(flag)
    shuffle = flag == 'train'
    print(flag, len(ds))
    return ds, torch.utils.data.DataLoader(ds, batch_size=args.batch_size, shuffle=shuffle, drop_last=flag == 'train')

# ---------------- model: channel-independent patch transformer ----------------
class RevIN(nn.Module):
    def __init__(self, n, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.w = nn.Parameter(torch.ones(n))
        self.b = nn.Parameter(torch.zeros(n))
    def norm(self, x):
        self.mu = x.mean(1, keepdim=True).detach()
        self.sd = torch.sqrt(x.var(1, keepdim=True, unbiased=False) + self.eps).detach()
        return (x - self.mu) / self.sd * self.w + self.b
    def denorm(self, x):
        return (x - self.b) / (self.w + self.eps * self.eps) * self.sd + self.mu

class Model(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.a = a
        self.n_patch = (a.seq_len - a.patch_len) // a.stride + 1
        self.revin = RevIN(a.enc_in) if a.revin else None
        self.embed = nn.Linear(a.patch_len, a.d_model)
        self.pos = nn.Parameter(torch.randn(1, self.n_patch, a.d_model) * 0.02)
        layer = nn.TransformerEncoderLayer(a.d_model, a.n_heads, a.d_ff, a.dropout, batch_first=True, activation='gelu')
        self.encoder = nn.TransformerEncoder(layer, a.e_layers)
        self.head = nn.Sequential(nn.Flatten(1), nn.Dropout(a.dropout), nn.Linear(self.n_patch * a.d_model, a.pred_len))
    def forward(self, x):
        B, L, C = x.shape
        if self.revin is not None:
            x = self.revin.norm(x)
        z = x.permute(0, 2, 1).reshape(B * C, L)
        z = z.unfold(1, self.a.patch_len, self.a.stride)
        z = self.encoder(self.embed(z) + self.pos)
        y = self.head(z).reshape(B, C, -1).permute(0, 2, 1)
        if self.revin is not None:
            y = self.revin.denorm(y)
        return y

from torch.optim.lr_scheduler import _LRScheduler

class WarmUpLR(_LRScheduler):
    """warmup_training learning rate scheduler
    Args:
        optimizer: optimzier(e.g. SGD)
        total_iters: totoal_iters of warmup phase
    """
    def __init__(self, optimizer, total_iters, last_epoch=-1):
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)
    def get_lr(self):
        return [base_lr * self.last_epoch / (self.total_iters + 1e-8) for base_lr in self.base_lrs]

class AverageMeter:
    def __init__(self):
        self.val = 0.0; self.avg = 0.0; self.sum = 0.0; self.count = 0
    def update(self, val, n=1):
        self.val = val; self.sum += val * n; self.count += n; self.avg = self.sum / self.count

EPOCH = 8
MILESTONES = [4, 6]
WARM = 1
LR = 0.004

def train(net, epoch):
    start = time.time()
    net.train()
    losses = AverageMeter()
    for batch_index, (images, labels) in enumerate(training_loader):
        outputs = net(images)
        loss = loss_function(outputs, labels)
        losses.update(loss.item(), images.size(0))
        loss.backward()
        optimizer.step()
        if batch_index % 10 == 0:
            print(
                f'Training Epoch: {epoch} '
                f'[{batch_index * args.batch_size + len(images)}/{len(training_loader) * args.batch_size}]\t'
                f'LR: {optimizer.param_groups[0]["lr"]:0.6f}\n'
            )
            print(f'MSE Loss {losses.val:.4f} ({losses.avg:.4f})\t')
        if epoch <= WARM:
            warmup_scheduler.step()
    finish = time.time()
    print(f'epoch {epoch} training time consumed: {finish - start:.2f}s')

@torch.no_grad()
def eval_training(net, epoch=0):
    start = time.time()
    net.eval()
    test_losses = AverageMeter()
    abs_err = 0.0
    n = 0
    for (images, labels) in test_loader:
        outputs = net(images)
        loss = loss_function(outputs, labels)
        test_losses.update(loss.item(), images.size(0))
        abs_err += (outputs - labels).abs().sum().item()
        n += labels.numel()
    finish = time.time()
    print('Evaluating Network.....')
    print(
        f'Test set: Epoch: {epoch},'
        f'Average loss: {test_losses.avg:.4f},'
        f'MAE: {abs_err / n:.4f},'
        f'Time consumed:{finish - start:.2f}s'
        '\n'
    )
    return test_losses.avg

net = Model(args).float()
_, training_loader = data_provider('train')
_, test_loader = data_provider('val')
loss_function = nn.MSELoss()
optimizer = optim.Adam(net.parameters(), lr=LR)
train_scheduler = optim.lr_scheduler.MultiStepLR(optimizer, milestones=MILESTONES, gamma=0.2)
iter_per_epoch = len(training_loader)
warmup_scheduler = WarmUpLR(optimizer, iter_per_epoch * WARM)
best = float('inf')
for epoch in range(1, EPOCH + 1):
    if epoch > WARM:
        train_scheduler.step(epoch)
    train(net, epoch)
    loss = eval_training(net, epoch)
    if loss < best:
        best = loss
        print(f'saving weights file to checkpoint/PatchTST/PatchTST-{epoch}-best.pth')
