# Lightning-AI/pytorch-lightning issue 9599 ("Clip norm after scaler.unscale_ in native fp16 training") in
# miniature: a LightningModule trained with Trainer(precision=16, gradient_clip_val=...) under Lightning 1.4.x, where
# the training loop calls clip_gradients right after the backward pass of scaler.scale(loss), while the native-AMP
# precision plugin only calls scaler.unscale_(optimizer) later, in pre_optimizer_step (inside scaler.step). So the
# clipping sees the loss-scaled gradients (scale 65536), cuts their norm to gradient_clip_val, and the scaler then
# divides them by 65536 again before the optimizer step. Written out in plain PyTorch in the order Lightning 1.4.x ran
# it: scaler.scale(loss).backward(); clip_grad_norm_(parameters, gradient_clip_val); scaler.step(optimizer) (which
# unscales); scaler.update(). Scaled down / changed: fp16 autocast is CUDA-only, so the model runs in float32 on the
# CPU with the same torch.amp.GradScaler bookkeeping; an MLP classifier (4 hidden layers of 384, about 0.5 M
# parameters) on a synthetic 16-class task stands in for the reporter's "large model"; configure_optimizers returns
# SGD(lr=0.05, momentum=0.9); gradient_clip_val 0.5; batch 64, 6 epochs; the progress bar is printed once per epoch
# with the logged loss and validation metrics, as Lightning 1.4 shows them; metrics.csv has the loss of every step,
# the norm of the gradients the optimizer applied (grad_2.0_norm_total), the learning rate and the per-epoch
# validation results.
import csv
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)

N_CLASSES = 16
DIM = 32
N_TRAIN, N_VAL = 12800, 1280
BATCH = 64
MAX_EPOCHS = 6
GRADIENT_CLIP_VAL = 0.5

# synthetic data: classes are regions of a random nonlinear feature map of gaussian inputs
g = torch.Generator().manual_seed(1)
proj = torch.randn(DIM, 24, generator=g)
centers = torch.randn(N_CLASSES, 24, generator=g)


def make(n):
    x = torch.randn(n, DIM, generator=g)
    h = torch.tanh(x @ proj / DIM ** 0.5)
    y = (h @ centers.t()).argmax(1)
    return x, y


x_train, y_train = make(N_TRAIN)
x_val, y_val = make(N_VAL)


class LitClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(DIM, 384), nn.ReLU(),
            nn.Linear(384, 384), nn.ReLU(),
            nn.Linear(384, 384), nn.ReLU(),
            nn.Linear(384, 384), nn.ReLU(),
            nn.Linear(384, N_CLASSES))

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch):
        x, y = batch
        return F.cross_entropy(self(x), y)

    def validation_step(self, batch):
        x, y = batch
        logits = self(x)
        return F.cross_entropy(logits, y, reduction='sum').item(), (logits.argmax(1) == y).sum().item()

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.05, momentum=0.9)


model = LitClassifier()
n_params = sum(p.numel() for p in model.parameters())
optimizer = model.configure_optimizers()
scaler = torch.amp.GradScaler('cpu')  # native AMP: init_scale 65536

print('Using native 16bit precision.')
print('GPU available: False, used: False')
print('TPU available: False, using: 0 TPU cores')
print()
print('  | Name | Type       | Params')
print('------------------------------------')
print('0 | net  | Sequential | %.0f K' % (n_params / 1000))
print('------------------------------------')
print('%.0f K     Trainable params' % (n_params / 1000))
print('0         Non-trainable params')
print('%.0f K     Total params' % (n_params / 1000))

f = open('metrics.csv', 'w', newline='')
wr = csv.writer(f)
wr.writerow(['step', 'epoch', 'train_loss', 'grad_2.0_norm_total', 'lr', 'val_loss', 'val_acc'])

n_batches = N_TRAIN // BATCH
step = 0
running = []
for epoch in range(MAX_EPOCHS):
    t0 = time.time()
    model.train()
    perm = torch.randperm(N_TRAIN)
    for b in range(n_batches):
        idx = perm[b * BATCH:(b + 1) * BATCH]
        loss = model.training_step((x_train[idx], y_train[idx]))
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        # Lightning 1.4.x: TrainingBatchLoop clips right after backward ...
        torch.nn.utils.clip_grad_norm_(model.parameters(), GRADIENT_CLIP_VAL)
        # ... and NativeMixedPrecisionPlugin.pre_optimizer_step unscales only now
        scaler.step(optimizer)
        scaler.update()
        grad_norm = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()])).item()
        running.append(loss.item())
        running = running[-20:]
        wr.writerow([step, epoch, '%.6f' % loss.item(), '%.6g' % grad_norm, optimizer.param_groups[0]['lr'], '', ''])
        step += 1
    model.eval()
    with torch.no_grad():
        vl, vc = 0.0, 0
        for b in range(0, N_VAL, 256):
            l, c = model.validation_step((x_val[b:b + 256], y_val[b:b + 256]))
            vl += l
            vc += c
    val_loss, val_acc = vl / N_VAL, vc / N_VAL
    wr.writerow([step - 1, epoch, '', '', '', '%.6f' % val_loss, '%.4f' % val_acc])
    f.flush()
    dt = time.time() - t0
    total = n_batches + (N_VAL + 255) // 256
    print('Epoch %d: 100%%|##########| %d/%d [00:%02d<00:00, %.2fit/s, loss=%.3g, v_num=0, val_loss=%.3f, val_acc=%.3f]'
          % (epoch, total, total, int(dt), total / max(dt, 1e-6), sum(running) / len(running), val_loss, val_acc))
f.close()
