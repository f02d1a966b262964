# wDAE-GNN few-shot stage-1 feature training: episodic loader builds each batch from per-image
# files (simulated read latency), DataLoader(num_workers=4); logs data-wait vs compute per step
import csv
import time
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

torch.set_num_threads(1)
torch.manual_seed(0)

N_CLS, PER = 64, 40
g = torch.Generator().manual_seed(3)
centers = torch.randn(N_CLS, 3, 1, 1, generator=g)

class MiniImageNetFiles(Dataset):
    def __init__(self):
        self.labels = torch.arange(N_CLS).repeat_interleave(PER)
    def __len__(self):
        return len(self.labels)
    def __getitem__(self, i):
        time.sleep(0.025)                       # open + decode one jpg from network storage
        y = int(self.labels[i])
        gi = torch.Generator().manual_seed(i)
        x = centers[y] + 0.8 * torch.randn(3, 32, 32, generator=gi)
        return x, y

class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.f = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.cls = nn.Linear(64, N_CLS)
    def forward(self, x):
        return self.cls(self.f(x).flatten(1))

if __name__ == "__main__":
    loader = DataLoader(MiniImageNetFiles(), batch_size=64, shuffle=True, num_workers=4)
    model = ConvNet()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    step = 0
    with open("metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["step", "epoch", "loss", "acc", "data_time", "batch_time"])
        for epoch in range(2):
            end = time.time()
            for x, y in loader:
                data_time = time.time() - end
                out = model(x)
                loss = F.cross_entropy(out, y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                step += 1
                batch_time = time.time() - end
                acc = (out.argmax(1) == y).float().mean().item()
                w.writerow([step, epoch, f"{loss.item():.4f}", f"{acc:.4f}", f"{data_time:.4f}", f"{batch_time:.4f}"])
                fh.flush()
                if step % 5 == 0:
                    print(f"==> Iter {step} [epoch {epoch}] loss {loss.item():.4f} acc {100 * acc:.2f} "
                          f"data_time {data_time:.3f}s batch_time {batch_time:.3f}s")
                end = time.time()
