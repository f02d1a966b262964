"""Knowledge distillation: a 256-wide teacher MLP is trained first, then a small student MLP is trained
on a mix of the temperature-softened teacher distribution (KL) and the hard labels (CE)."""
import time
import warnings
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

SEED = 0
LR = 0.003
BATCH_SIZE = 64
EPOCHS = 10
WEIGHT_DECAY = 0.0
TEMPERATURE = 4.0
ALPHA = 0.7
DROPOUT = 0.1
IN_DIM = 20
N_CLASSES = 5
N_TRAIN = 3000
N_VAL = 800
LABEL_NOISE = 0.0
TEACHER_EPOCHS = 6
STUDENT_HIDDEN = 32
LOG_EVERY = 15

torch.set_num_threads(1)
torch.manual_seed(SEED)
warnings.warn("teacher checkpoint teacher_mlp.pt not found; training the teacher from scratch")

W1 = torch.randn(IN_DIM, 64) / IN_DIM ** 0.5
W2 = torch.randn(64, N_CLASSES)


def make_split(n):
    x = torch.randn(n, IN_DIM)
    y = (torch.tanh(x @ W1) @ W2).argmax(1)
    flip = torch.rand(n) < LABEL_NOISE
    y = torch.where(flip, torch.randint(0, N_CLASSES, (n,)), y)
    return x, y


X_train, y_train = make_split(N_TRAIN)
X_val, y_val = make_split(N_VAL)
train_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(TensorDataset(X_val, y_val), batch_size=400)
steps_per_epoch = len(train_loader)

# ---- teacher
teacher = nn.Sequential(nn.Linear(IN_DIM, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, N_CLASSES))
t_opt = torch.optim.Adam(teacher.parameters(), lr=2e-3)
for t_epoch in range(1, TEACHER_EPOCHS + 1):
    for xb, yb in train_loader:
        t_opt.zero_grad()
        F.cross_entropy(teacher(xb), yb).backward()
        t_opt.step()
    with torch.no_grad():
        t_acc = (teacher(X_val).argmax(1) == y_val).float().mean().item()
    print(f"[teacher] epoch {t_epoch}/{TEACHER_EPOCHS} val_acc {t_acc:.4f}")
teacher.eval()
for p in teacher.parameters():
    p.requires_grad_(False)


# ---- student
class Student(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(IN_DIM, STUDENT_HIDDEN), nn.ReLU(), nn.Dropout(DROPOUT),
                                  nn.Linear(STUDENT_HIDDEN, STUDENT_HIDDEN), nn.ReLU(), nn.Dropout(DROPOUT))
        self.head = nn.Linear(STUDENT_HIDDEN, N_CLASSES)

    def forward(self, x):
        return self.head(self.body(x))


model = Student()
print(f"student params: {sum(p.numel() for p in model.parameters())} | teacher params: {sum(p.numel() for p in teacher.parameters())}")


def kd_loss(s_logits, t_logits, y):
    soft = F.kl_div(F.log_softmax(s_logits / TEMPERATURE, -1), F.softmax(t_logits / TEMPERATURE, -1), reduction="batchmean")
    return ALPHA * TEMPERATURE ** 2 * soft + (1 - ALPHA) * F.cross_entropy(s_logits, y)


def forward_loss(batch):
    xb, yb = batch
    with torch.no_grad():
        t_logits = teacher(xb)
    s_logits = model(xb)
    loss = kd_loss(s_logits, t_logits, yb)
    acc = (s_logits.argmax(1) == yb).float().mean().item()
    return loss, acc, len(yb)


optimizer = torch.optim.Adam(teacher.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)


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


print("***** Running training *****")
print(f"  Num examples = {len(train_loader.dataset)}")
print(f"  Num Epochs = {EPOCHS}")
print(f"  Total train batch size = {BATCH_SIZE}")
print(f"  Total optimization steps = {EPOCHS * steps_per_epoch}")
window_loss, window_n = 0.0, 0
global_step = 0
t_start = time.time()
for epoch in range(1, EPOCHS + 1):
    model.train()
    t0 = time.time()
    run_loss, run_metric, run_n = 0.0, 0.0, 0
    for step, batch in enumerate(train_loader, 1):
        optimizer.zero_grad()
        loss, metric, n = forward_loss(batch)
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf")).item()
        optimizer.step()
        global_step += 1
        loss_val = loss.item()
        run_loss += loss_val * n
        run_metric += metric * n
        run_n += n
        window_loss += loss_val
        window_n += 1
        if global_step % LOG_EVERY == 0:
            print({"loss": round(window_loss / window_n, 4), "grad_norm": round(grad_norm, 4), "learning_rate": optimizer.param_groups[0]["lr"], "epoch": round(global_step / steps_per_epoch, 2)})
            window_loss, window_n = 0.0, 0
    train_loss, train_metric = run_loss / run_n, run_metric / run_n
    t_eval = time.time()
    val_loss, val_metric = evaluate()
    eval_time = time.time() - t_eval
    epoch_time = time.time() - t0
    lr_now = optimizer.param_groups[0]["lr"]
    print({"eval_loss": round(val_loss, 4), "eval_acc": round(val_metric, 4), "eval_runtime": round(eval_time, 4), "eval_samples_per_second": round(len(val_loader.dataset) / eval_time, 3), "epoch": float(epoch)})
train_runtime = time.time() - t_start
print({"train_runtime": round(train_runtime, 4), "train_samples_per_second": round(EPOCHS * len(train_loader.dataset) / train_runtime, 3), "train_steps_per_second": round(global_step / train_runtime, 3), "train_loss": round(train_loss, 4), "epoch": float(EPOCHS)})
