# Wide Residual Network (Zagoruyko & Komodakis, "Wide Residual Networks", BMVC 2016, arXiv:1605.07146), a small
# WRN-10-2 as in the common PyTorch port xternalz/WideResNet-pytorch (pre-activation BasicBlocks with BN-ReLU-conv,
# three groups, widen factor 2, global average pooling, SGD with Nesterov momentum, weight decay 5e-4, step
# schedule), trained on synthetic 12x12 RGB texture images of 4 classes. Printed like Keras model.fit().
import sys, time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(3)

N_TRAIN, N_VAL = 1280, 400
CLASSES = ["hstripes", "vstripes", "diagonal", "checker"]
SIZE = 12
DEPTH, WIDEN = 10, 2
BATCH = 32
EPOCHS = 6
LR = 0.05
MOMENTUM = 0.9
WD = 5e-4
MILESTONES = [4, 5]


def make_images(n, g):
    y = torch.randint(0, 4, (n,), generator=g)
    r = torch.arange(SIZE).float()
    yy, xx = torch.meshgrid(r, r, indexing="ij")
    freq = 0.6 + 0.9 * torch.rand(n, 1, 1, generator=g)
    phase = 6.28 * torch.rand(n, 1, 1, generator=g)
    pats = torch.stack([torch.sin(freq * yy + phase), torch.sin(freq * xx + phase),
                        torch.sin(freq * 0.7 * (xx + yy) + phase),
                        torch.sin(freq * xx + phase) * torch.sin(freq * yy + phase) * 2], 1)
    pat = pats[torch.arange(n), y]
    col = 0.3 + 0.7 * torch.rand(n, 3, 1, 1, generator=g)
    img = 0.5 + 0.12 * col * pat.unsqueeze(1) + 0.30 * torch.randn(n, 3, SIZE, SIZE, generator=g)
    img = (img.clamp(0, 1) * 255).round() / 255
    return img, y


g = torch.Generator().manual_seed(1605)
Xtr, Ytr = make_images(N_TRAIN, g)
Xva, Yva = make_images(N_VAL, g)
mean, std = Xtr.mean((0, 2, 3), keepdim=True), Xtr.std((0, 2, 3), keepdim=True)
Xtr, Xva = (Xtr - mean) / std, (Xva - mean) / std


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.bn1 = nn.BatchNorm2d(cin)
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.short = None if (cin == cout and stride == 1) else nn.Conv2d(cin, cout, 1, stride, 0, bias=False)

    def forward(self, x):
        o = F.relu(self.bn1(x))
        y = self.conv1(o)
        y = self.conv2(F.relu(self.bn2(y)))
        return y + (x if self.short is None else self.short(o))


class WideResNet(nn.Module):
    def __init__(self, depth, widen, num_classes):
        super().__init__()
        n = (depth - 4) // 6
        ch = [16, 16 * widen, 32 * widen, 64 * widen]
        self.conv1 = nn.Conv2d(3, ch[0], 3, 1, 1, bias=False)
        blocks = []
        for gi, stride in enumerate([1, 2, 2]):
            for bi in range(n):
                blocks.append(BasicBlock(ch[gi] if bi == 0 else ch[gi + 1], ch[gi + 1], stride if bi == 0 else 1))
        self.blocks = nn.Sequential(*blocks)
        self.bn = nn.BatchNorm2d(ch[3])
        self.fc = nn.Linear(ch[3], num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, nn.Linear):
                nn.init.zeros_(m.bias)

    def forward(self, x):
        x = self.blocks(self.conv1(x))
        x = F.relu(self.bn(x))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


model = WideResNet(DEPTH, WIDEN, len(CLASSES))
# keep the convolutional trunk fixed, train BN and the classifier
for name, p in model.named_parameters():
    if "conv" in name or "short" in name:
        p.requires_grad = False
opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM, weight_decay=WD, nesterov=True)
sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=MILESTONES, gamma=0.2)
steps = (N_TRAIN + BATCH - 1) // BATCH
print(f"Model: WRN-{DEPTH}-{WIDEN}, {sum(p.numel() for p in model.parameters()):,} trainable params")
print(f"Train on {N_TRAIN} samples, validate on {N_VAL} samples")
for epoch in range(EPOCHS):
    print(f"Epoch {epoch + 1}/{EPOCHS}")
    model.train()
    t0 = time.time()
    perm = torch.randperm(N_TRAIN)
    tl, tc, tn = 0.0, 0, 0
    for s in range(steps):
        idx = perm[s * BATCH:(s + 1) * BATCH]
        out = model(Xtr[idx])
        loss = F.cross_entropy(out, Ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        tl += loss.item() * len(idx)
        tc += (out.argmax(1) == Ytr[idx]).sum().item()
        tn += len(idx)
        if (s + 1) % 10 == 0 and s + 1 < steps:
            done = int(30 * (s + 1) / steps)
            eta = (time.time() - t0) / (s + 1) * (steps - s - 1)
            sys.stdout.write(f"\r{s + 1}/{steps} [{'=' * (done - 1)}>{'.' * (30 - done)}] - ETA: {eta:.0f}s - loss: {tl / tn:.4f} - accuracy: {tc / tn:.4f}")
    model.eval()
    with torch.no_grad():
        vo = model(Xva)
        vl = F.cross_entropy(vo, Yva).item()
        va = (vo.argmax(1) == Yva).float().mean().item()
    dt = time.time() - t0
    sys.stdout.write(f"\r{steps}/{steps} [==============================] - {dt:.0f}s {1000 * dt / steps:.0f}ms/step - loss: {tl / tn:.4f} - accuracy: {tc / tn:.4f} - val_loss: {vl:.4f} - val_accuracy: {va:.4f} - lr: {opt.param_groups[0]['lr']:.4f}\n")
    sched.step()
