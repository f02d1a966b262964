"""Small ResNet (two residual stages with BatchNorm) classifying 16x16 synthetic shape images
(horizontal bar / vertical bar / diagonal / box) placed at random positions in noise."""
import io
import time
import warnings
from pathlib import Path
import yaml
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

with open(Path(__file__).with_name("config.yaml")) as f:
    cfg = yaml.safe_load(f)

SEED = cfg["seed"]
LR = cfg["lr"]
MOMENTUM = cfg["momentum"]
WEIGHT_DECAY = cfg["weight_decay"]
BATCH_SIZE = cfg["batch_size"]
EPOCHS = cfg["epochs"]
LOG_EVERY = cfg["log_every"]
N_TRAIN = cfg["n_train"]
N_VAL = cfg["n_val"]
IMG_SIZE = cfg["img_size"]
NOISE = cfg["noise"]
WIDTH = cfg["width"]
STEP_SIZE = cfg["step_size"]
GAMMA = cfg["gamma"]

torch.set_num_threads(1)
torch.manual_seed(SEED)
print(f"config: {cfg}")


def make_images(n):
    y = torch.randint(0, 4, (n,))
    img = NOISE * torch.randn(n, 1, IMG_SIZE, IMG_SIZE)
    r = torch.randint(3, IMG_SIZE - 3, (n, 1, 1))
    c = torch.randint(3, IMG_SIZE - 3, (n, 1, 1))
    rr = torch.arange(IMG_SIZE).view(1, -1, 1) - r
    cc = torch.arange(IMG_SIZE).view(1, 1, -1) - c
    hbar = (rr == 0) & (cc.abs() <= 3)
    vbar = (cc == 0) & (rr.abs() <= 3)
    diag = (rr == cc) & (rr.abs() <= 3)
    box = ((rr.abs() == 2) & (cc.abs() <= 2)) | ((cc.abs() == 2) & (rr.abs() <= 2))
    shapes = torch.stack([hbar, vbar, diag, box], 1)
    img[:, 0] += shapes[torch.arange(n), y].float()
    dropped = torch.rand(n) < 0.01  # ~1% of frames come back blank from the capture pipeline
    img[dropped] = 0.0
    return img, y


def standardize(x):
    # per-image standardisation
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    std = x.std(dim=(1, 2, 3), keepdim=True)
    return (x - mean) / std.clamp_min(1e-6)


X_train, y_train = make_images(N_TRAIN)
X_val, y_val = make_images(N_VAL)
X_train, X_val = standardize(X_train), standardize(X_val)
train_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(TensorDataset(X_val, y_val), batch_size=200)
steps_per_epoch = len(train_loader)


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


class ResNet(nn.Module):
    def __init__(self, width, n_classes=4):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, width, 3, padding=1, bias=False), nn.BatchNorm2d(width), nn.ReLU())
        self.layer1 = BasicBlock(width, width)
        self.layer2 = BasicBlock(width, 2 * width, stride=2)
        self.fc = nn.Linear(2 * width, n_classes)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


model = ResNet(WIDTH)
print(f"ResNet-mini: {sum(p.numel() for p in model.parameters()) / 1e3:.1f}K params")
criterion = nn.CrossEntropyLoss()


def forward_loss(batch):
    xb, yb = batch
    logits = model(xb)
    loss = criterion(logits, yb)
    acc = (logits.argmax(1) == yb).float().mean().item()
    return loss, acc, len(yb)


optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM, weight_decay=WEIGHT_DECAY)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=STEP_SIZE, gamma=GAMMA)


@torch.no_grad()
def evaluate():
    model.eval()
    tot_loss, tot_metric, tot_n = 0.0, 0.0, 0
    for batch in val_loader:
        loss, metric, n = forward_loss(batch)
        tot_loss += loss.item() * n
        tot_metric += metric * n
        tot_n += n
    return tot_loss / tot_n, tot_metric / tot_n


global_step = 0
t_start = time.time()
model.train()
for epoch in range(1, EPOCHS + 1):
    t0 = time.time()
    run_loss, run_metric, run_n = 0.0, 0.0, 0
    print(f"Epoch {epoch}/{EPOCHS}")
    for step, batch in enumerate(train_loader, 1):
        optimizer.zero_grad()
        loss, metric, n = forward_loss(batch)
        loss.backward()
        optimizer.step()
        global_step += 1
        loss_val = loss.item()
        run_loss += loss_val * n
        run_metric += metric * n
        run_n += n
    train_loss, train_metric = run_loss / run_n, run_metric / run_n
    t_eval = time.time()
    val_loss, val_metric = evaluate()
    eval_time = time.time() - t_eval
    scheduler.step()
    epoch_time = time.time() - t0
    lr_now = optimizer.param_groups[0]["lr"]
    print(f"{steps_per_epoch}/{steps_per_epoch} [==============================] - {epoch_time:.0f}s {1000 * epoch_time / steps_per_epoch:.0f}ms/step - loss: {train_loss:.4f} - accuracy: {train_metric:.4f} - val_loss: {val_loss:.4f} - val_accuracy: {val_metric:.4f}")

buf = io.BytesIO()
torch.save(model.state_dict(), buf)
print(f"saved checkpoint resnet_mini_final.pt ({buf.tell() / 1024:.1f} KiB)")
