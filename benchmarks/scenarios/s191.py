# Teacher -> student feature distillation (EfficientAD-style pre-training of a small teacher from a frozen extractor)
import csv
import torch
import torch.nn as nn

torch.manual_seed(18)
torch.set_num_threads(1)

g = torch.Generator().manual_seed(18)
images = torch.rand(64, 3, 256, 256, generator=g)

# frozen "pretrained" feature extractor: stride-2 stem, 128-channel map at 1/2 resolution
extractor = nn.Sequential(nn.Conv2d(3, 64, 3, stride=2, padding=1), nn.ReLU(), nn.Conv2d(64, 128, 3, padding=1)).eval()
for p in extractor.parameters():
    p.requires_grad_(False)

# small teacher to be trained: PDN with two stride-2 stages -> 1/4 resolution
teacher = nn.Sequential(nn.Conv2d(3, 64, 4, stride=2, padding=1), nn.ReLU(),
                        nn.Conv2d(64, 128, 4, stride=2, padding=1), nn.ReLU(),
                        nn.Conv2d(128, 128, 3, padding=1))
opt = torch.optim.Adam(teacher.parameters(), lr=1e-4, weight_decay=1e-5)

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "train_loss"])
    for step in range(1, 201):
        idx = torch.randint(0, 64, (8,), generator=g)
        x = images[idx]
        with torch.no_grad():
            target = extractor(x)
        prediction = teacher(x)
        loss = torch.mean((target - prediction) ** 2)
        opt.zero_grad()
        loss.backward()
        opt.step()
        w.writerow([step, f"{loss.item():.5f}"])
        if step % 20 == 0:
            print(f"step {step} loss {loss.item():.5f}")
