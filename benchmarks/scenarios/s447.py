# tensorflow/models slim inception training with use_batch_norm, in miniature (PyTorch port): a small
# inception-style network (stem conv + two mixed blocks of 1x1 / 3x3 / pooled branches, every conv
# followed by slim-style batch norm, decay 0.9, epsilon 0.001, and ReLU) trained from scratch on a
# two-class data set of 32 x 32 RGB images (800 training, 400 validation, synthetic: class-dependent
# oriented texture plus colour cast and noise), inception preprocessing to [-1, 1], RMSProp lr 0.01
# (decay 0.9, momentum 0.9, epsilon 1.0), batch 32, 6 epochs, softmax cross entropy, slim-like
# "global step" log lines and an evaluation with is_training=False after every epoch. As in slim's
# batch_norm, the moving mean/variance are updated only by the ops collected in tf.GraphKeys.UPDATE_OPS;
# here the train op is built from the optimizer alone (the update ops are never run).
import csv, math, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(3); torch.manual_seed(3); torch.set_num_threads(1)

def make_images(n):
    y = np.random.randint(0, 2, n)
    xs, ys = np.meshgrid(np.arange(32), np.arange(32))
    imgs = np.zeros((n, 3, 32, 32), np.float32)
    for i in range(n):
        f = np.random.uniform(0.35, 0.6); ph = np.random.uniform(0, 2 * np.pi)
        wave = np.sin(f * (xs if y[i] == 0 else ys) + ph)
        cast = np.array([0.78, 0.74, 0.7]) if y[i] == 0 else np.array([0.74, 0.76, 0.74])
        imgs[i] = np.clip(cast[:, None, None] + 0.08 * wave[None] + 0.1 * np.random.randn(3, 32, 32), 0, 1)
    return torch.tensor(imgs * 2 - 1), torch.tensor(y)

train_x, train_y = make_images(800); val_x, val_y = make_images(400)

class SlimBatchNorm(nn.Module):
    """slim.batch_norm: batch statistics when is_training, moving statistics otherwise."""
    def __init__(self, c, decay=0.9, epsilon=0.001):
        super().__init__()
        self.beta = nn.Parameter(torch.zeros(c)); self.decay, self.epsilon = decay, epsilon
        self.register_buffer('moving_mean', torch.zeros(c)); self.register_buffer('moving_variance', torch.ones(c))
        self.update_ops = []
    def forward(self, x, is_training):
        if is_training:
            mean = x.mean((0, 2, 3)); var = x.var((0, 2, 3), unbiased=False)
            self.update_ops = [(mean.detach(), var.detach())]   # pending tf.GraphKeys.UPDATE_OPS
        else:
            mean, var = self.moving_mean, self.moving_variance
        return (x - mean[None, :, None, None]) / torch.sqrt(var[None, :, None, None] + self.epsilon) + self.beta[None, :, None, None]
    def run_update_ops(self):
        for mean, var in self.update_ops:
            self.moving_mean.mul_(self.decay).add_((1 - self.decay) * mean)
            self.moving_variance.mul_(self.decay).add_((1 - self.decay) * var)

class ConvBN(nn.Module):
    def __init__(self, cin, cout, k, stride=1):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, stride, padding=k // 2, bias=False); self.bn = SlimBatchNorm(cout)
    def forward(self, x, is_training):
        return F.relu(self.bn(self.conv(x), is_training))

class Mixed(nn.Module):
    def __init__(self, cin, c):
        super().__init__()
        self.b0 = ConvBN(cin, c, 1); self.b1a = ConvBN(cin, c, 1); self.b1b = ConvBN(c, c, 3); self.b2 = ConvBN(cin, c, 1)
    def forward(self, x, t):
        return torch.cat([self.b0(x, t), self.b1b(self.b1a(x, t), t), self.b2(F.avg_pool2d(x, 3, 1, 1), t)], 1)

class InceptionMini(nn.Module):
    def __init__(self, num_classes=2):
        super().__init__()
        self.stem = ConvBN(3, 24, 3, 2); self.mixed_a = Mixed(24, 16); self.mixed_b = Mixed(48, 24)
        self.logits = nn.Linear(72, num_classes)
    def forward(self, x, is_training):
        x = self.stem(x, is_training); x = self.mixed_a(x, is_training); x = F.max_pool2d(x, 2)
        x = self.mixed_b(x, is_training)
        return self.logits(x.mean((2, 3)))

model = InceptionMini()
optimizer = torch.optim.RMSprop(model.parameters(), lr=0.01, alpha=0.9, momentum=0.9, eps=1.0)
# train_op = slim.learning.create_train_op(total_loss, optimizer, update_ops=[])  -> moving stats never updated

f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'step', 'loss', 'train_accuracy', 'val_loss', 'val_accuracy'])
step = 0
for epoch in range(6):
    perm = torch.randperm(len(train_x)); correct = 0
    for b in range(0, len(train_x), 32):
        t0 = time.time(); idx = perm[b:b + 32]
        logits = model(train_x[idx], is_training=True)
        loss = F.cross_entropy(logits, train_y[idx])
        optimizer.zero_grad(); loss.backward(); optimizer.step(); step += 1
        correct += (logits.argmax(1) == train_y[idx]).sum().item()
        if step % 10 == 0:
            print(f'INFO:tensorflow:global step {step}: loss = {loss.item():.4f} ({time.time() - t0:.3f} sec/step)')
            wr.writerow([epoch + 1, step, loss.item(), '', '', ''])
    train_acc = correct / len(train_x)
    with torch.no_grad():
        vlogits = model(val_x, is_training=False)
        val_loss = F.cross_entropy(vlogits, val_y).item(); val_acc = (vlogits.argmax(1) == val_y).float().mean().item()
    print(f'INFO:tensorflow:Evaluation [epoch {epoch + 1}] train/Accuracy[{train_acc:.4f}]')
    print(f'INFO:tensorflow:eval/Accuracy[{val_acc:.4f}]  eval/Loss[{val_loss:.4f}]')
    wr.writerow([epoch + 1, step, '', train_acc, val_loss, val_acc]); f.flush()
