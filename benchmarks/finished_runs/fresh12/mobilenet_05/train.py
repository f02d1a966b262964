"""MobileNet-style classifier built from depthwise-separable convolutions (3x3 depthwise conv + BatchNorm +
ReLU, then 1x1 pointwise conv + BatchNorm + ReLU) on synthetic 3x16x16 images. Each image shows one bar at one
of four orientations, drawn mainly in one of two colour channels, over a noisy background with a random offset;
the class (8 classes) is orientation x colour."""
import math
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
CFG = dict(epochs=10, lr=0.1, weight_decay=0.0005, batch_size=64, n_train=2560, n_val=512, width=12, dropout=0.0, flip_aug=True)

_KO = {"loss": "손실", "val_loss": "검증 손실", "acc": "정확도", "val_acc": "검증 정확도", "mse": "MSE",
       "val_mse": "검증 MSE", "meta_loss": "메타 손실", "query_mse": "쿼리 MSE"}


def log_info(msg):
    print(f"[정보] {msg}")


def progress(it, epoch, n_epochs, n):
    return it


def on_step(epoch, n_epochs, i, n, loss, lr, gstep, total):
    pass


def log_epoch(epoch, n_epochs, m, lr):
    body = " | ".join(f"{_KO.get(k, k)}: {v:.4f}" for k, v in m.items())
    print(f"에폭 {epoch:3d}/{n_epochs} | {body} | 학습률: {lr:.2e}")


def log_end(summary):
    print("학습 완료 -> " + ", ".join(f"{_KO.get(k, k)}={v}" for k, v in summary.items()))


def make_images(n, g):
    s = 16
    yy, xx = torch.meshgrid(torch.arange(s).float(), torch.arange(s).float(), indexing="ij")
    y = torch.randint(0, 8, (n,), generator=g)
    orient, colour = y % 4, y // 4
    ang = orient.float() * math.pi / 4 + 0.15 * torch.randn(n, generator=g)
    cx = 7.5 + 2.0 * torch.randn(n, generator=g)
    cy = 7.5 + 2.0 * torch.randn(n, generator=g)
    dx, dy = xx[None] - cx[:, None, None], yy[None] - cy[:, None, None]
    dist = (dx * torch.sin(ang)[:, None, None] - dy * torch.cos(ang)[:, None, None]).abs()
    along = (dx * torch.cos(ang)[:, None, None] + dy * torch.sin(ang)[:, None, None]).abs()
    bar = ((dist < 1.2) & (along < 5.5)).float()
    img = 0.35 * torch.rand(n, 3, s, s, generator=g)
    for c in range(2):
        m = colour == c
        img[m, c] += 0.6 * bar[m]
        img[m, 1 - c] += 0.25 * bar[m]
    img[:, 2] += 0.2 * bar
    img = (img * 255).round().clamp(0, 255)
    return img, y


def dw_sep(cin, cout, stride):
    return nn.Sequential(
        nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False), nn.BatchNorm2d(cin), nn.ReLU(inplace=True),
        nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class MobileNetTiny(nn.Module):
    def __init__(self, width, dropout):
        super().__init__()
        w = width
        self.stem = nn.Sequential(nn.Conv2d(3, w, 3, 1, 1, bias=False), nn.BatchNorm2d(w), nn.ReLU(inplace=True))
        self.features = nn.Sequential(dw_sep(w, 2 * w, 1), dw_sep(2 * w, 2 * w, 2), dw_sep(2 * w, 4 * w, 1),
                                      dw_sep(4 * w, 4 * w, 2), dw_sep(4 * w, 8 * w, 2))
        self.drop = nn.Dropout(dropout)
        self.fc = nn.Linear(8 * w, 8)
        self.apply(self._init_weights)

    @staticmethod
    def _init_weights(m):
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
        elif isinstance(m, nn.BatchNorm2d):
            nn.init.ones_(m.weight)
            nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, 0, 0.01)
            nn.init.zeros_(m.bias)

    def forward(self, x):
        x = self.features(self.stem(x))
        x = x.mean((2, 3))
        return self.fc(self.drop(x))


g = torch.Generator().manual_seed(11)
x_tr, y_tr = make_images(CFG["n_train"], g)
x_va, y_va = make_images(CFG["n_val"], g)
x_tr = x_tr[torch.randperm(CFG["n_train"], generator=g)]
y_tr = y_tr[torch.randperm(CFG["n_train"], generator=g)]
MEAN, STD = x_tr.mean((0, 2, 3), keepdim=True), x_tr.std((0, 2, 3), keepdim=True)


def preprocess(x):
    return (x - MEAN) / STD


model = MobileNetTiny(CFG["width"], CFG["dropout"])
optimizer = torch.optim.SGD(model.parameters(), lr=CFG["lr"], momentum=0.9, weight_decay=CFG["weight_decay"], nesterov=True)
steps_per_epoch = CFG["n_train"] // CFG["batch_size"]
total_steps = CFG["epochs"] * steps_per_epoch
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=CFG["lr"], total_steps=total_steps, pct_start=0.2)
log_info(f"MobileNetTiny width={CFG['width']} params={sum(p.numel() for p in model.parameters())} "
         f"train={CFG['n_train']} val={CFG['n_val']} batch={CFG['batch_size']}")


def evaluate():
    model.eval()
    with torch.no_grad():
        logits = model(preprocess(x_va))
        loss = F.cross_entropy(logits, y_va).item()
        acc = (logits.argmax(1) == y_va).float().mean().item()
    return loss, acc


t_start = time.time()
gstep = 0
for epoch in range(1, CFG["epochs"] + 1):
    model.train()
    order = torch.randperm(CFG["n_train"])
    tot, correct, seen = 0.0, 0, 0
    for i in progress(range(steps_per_epoch), epoch, CFG["epochs"], steps_per_epoch):
        idx = order[i * CFG["batch_size"]:(i + 1) * CFG["batch_size"]]
        xb, yb = preprocess(x_tr[idx]), y_tr[idx]
        if CFG["flip_aug"]:
            flip = torch.rand(len(idx)) < 0.5
            xb = torch.where(flip[:, None, None, None], xb.flip(2).flip(3), xb)
        logits = model(xb)
        loss = F.cross_entropy(logits, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        gstep += 1
        tot += loss.item() * len(idx)
        correct += (logits.argmax(1) == yb).sum().item()
        seen += len(idx)
        on_step(epoch, CFG["epochs"], i, steps_per_epoch, loss.item(), optimizer.param_groups[0]["lr"], gstep, total_steps)
    val_loss, val_acc = evaluate()
    log_epoch(epoch, CFG["epochs"], {"loss": tot / seen, "acc": correct / seen, "val_loss": val_loss, "val_acc": val_acc},
              optimizer.param_groups[0]["lr"])

log_end({"epochs": CFG["epochs"], "val_acc": round(val_acc, 4), "time_s": round(time.time() - t_start, 1)})
