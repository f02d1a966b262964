# Fashion-MNIST-style classifier (10 garment classes, 28x28 grey images) trained from the raw
# training files, which are stored sorted by label: all 0s first, followed by all 1s, 2s, ...
# DataLoader is built without shuffle; MLP 784-256-10, SGD lr 0.05 momentum 0.9, batch 100.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader

torch.manual_seed(0)
torch.set_num_threads(1)

C, N_PER, N_VAL = 10, 1200, 2000
templates = torch.rand(C, 28, 28)
templates = F.avg_pool2d(templates.unsqueeze(1), 5, 1, 2).squeeze(1)  # smooth garment-like blobs
templates = (templates - templates.mean()) / templates.std()

def make(labels):
    x = templates[labels] * 0.6 + torch.randn(len(labels), 28, 28)
    return x.reshape(len(labels), -1)

# training files: sorted by label (better compression of the label file)
y_train = torch.arange(C).repeat_interleave(N_PER)
x_train = make(y_train)
y_val = torch.randint(0, C, (N_VAL,))
x_val = make(y_val)

train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=100)
model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, C))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

step = 0
with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["step", "epoch", "loss", "acc", "val_loss", "val_acc"])
    for epoch in range(1, 21):
        model.train()
        for xb, yb in train_loader:
            step += 1
            out = model(xb)
            loss = F.cross_entropy(out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            acc = (out.argmax(1) == yb).float().mean().item()
            vl, va = "", ""
            if step % 30 == 0:
                model.eval()
                with torch.no_grad():
                    vo = model(x_val)
                    vl = f"{F.cross_entropy(vo, y_val).item():.4f}"
                    va = f"{(vo.argmax(1) == y_val).float().mean().item():.4f}"
                model.train()
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} batch_acc {acc:.2f} val_loss {vl} val_acc {va}")
            wr.writerow([step, epoch, f"{loss.item():.4f}", f"{acc:.4f}", vl, va])
        fh.flush()
