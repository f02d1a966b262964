# finetune_alexnet_with_tensorflow (finetune.py) in miniature, ported to PyTorch: the conv layers
# of a small AlexNet-like net stay fixed (stand-in for the pretrained weights) and the fully
# connected layers fc7/fc8 are trained with plain gradient descent (lr 0.01), batch 32, 5 epochs,
# on synthetic 3x32x32 RGB images of 5 classes (1200 train / 400 validation). Preprocessing as in
# the repo's image generator: subtract the per-channel mean [123, 116, 103] from 0-255 pixels; the
# result (about -128..128) is not divided by 255 or by the standard deviation.
from datetime import datetime
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(0); torch.manual_seed(0); torch.set_num_threads(1)

def make(n, rng):
    yy, xx = np.mgrid[0:32, 0:32]
    imgs = np.zeros((n, 3, 32, 32), np.float32); labels = rng.randint(0, 5, n)
    palette = np.array([[200, 60, 60], [60, 180, 70], [70, 80, 210], [210, 200, 60], [160, 70, 190]], np.float32)
    for i, c in enumerate(labels):
        cx, cy, r = rng.uniform(10, 22), rng.uniform(10, 22), rng.uniform(5, 9)
        if c % 2 == 0:
            mask = (xx - cx) ** 2 + (yy - cy) ** 2 < r ** 2
        else:
            mask = (np.abs(xx - cx) < r) & (np.abs(yy - cy) < r * 0.6)
        bg = rng.uniform(40, 220, 3)
        col = palette[c] * rng.uniform(0.8, 1.1)
        imgs[i] = bg[:, None, None] * (1 - mask) + col[:, None, None] * mask + rng.normal(0, 12, (3, 32, 32))
    return np.clip(imgs, 0, 255), labels

rng = np.random.RandomState(3)
xtr, ytr = make(1200, rng); xva, yva = make(400, rng)
mean = np.array([123., 116., 103.], np.float32)[None, :, None, None]
xtr = torch.tensor(xtr - mean); xva = torch.tensor(xva - mean)
ytr = torch.tensor(ytr); yva = torch.tensor(yva)

class AlexNetish(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 5, 1, 2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, 1, 1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(64, 96, 3, 1, 1), nn.ReLU(), nn.MaxPool2d(2))
        self.fc6 = nn.Linear(96 * 16, 256)
        self.fc7 = nn.Linear(256, 256)
        self.fc8 = nn.Linear(256, num_classes)
    def forward(self, x):
        x = self.features(x).flatten(1)
        x = F.dropout(F.relu(self.fc6(x)), 0.5, self.training)
        x = F.dropout(F.relu(self.fc7(x)), 0.5, self.training)
        return self.fc8(x)

model = AlexNetish()
for m in model.features:
    if isinstance(m, nn.Conv2d):   # stand-in for pretrained conv weights (He-scaled)
        nn.init.kaiming_normal_(m.weight, nonlinearity='relu'); nn.init.zeros_(m.bias)
train_layers = ['fc8', 'fc7']
var_list = [p for n, p in model.named_parameters() if n.split('.')[0] in train_layers]
for n, p in model.named_parameters():
    p.requires_grad = n.split('.')[0] in train_layers
optimizer = torch.optim.SGD(var_list, lr=0.01)
batch_size, num_epochs, display_step = 32, 5, 12
print("{} Start training...".format(datetime.now()))
for epoch in range(num_epochs):
    print("{} Epoch number: {}".format(datetime.now(), epoch + 1))
    model.train(); perm = torch.randperm(len(xtr))
    for step in range(len(xtr) // batch_size):
        j = perm[step * batch_size:(step + 1) * batch_size]
        loss = F.cross_entropy(model(xtr[j]), ytr[j])
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        if step % display_step == 0:
            gn = torch.sqrt(sum((p.grad ** 2).sum() for p in var_list)).item()
            print("  step {:3d}  cross_ent: {:.4f}  grad norm: {:.3e}".format(step, loss.item(), gn))
    model.eval()
    with torch.no_grad():
        acc = (model(xva).argmax(1) == yva).float().mean().item()
    print("{} Validation Accuracy = {:.4f}".format(datetime.now(), acc))
