# Sigmoid MLP that worked on a tutorial dataset, now trained on healthcare records (cholesterol, blood pressure, income, ...)
import csv
import torch
import torch.nn as nn

torch.manual_seed(4)
torch.set_num_threads(1)

N = 4000
g = torch.Generator().manual_seed(9)
age = 20 + 60 * torch.rand(N, generator=g)
chol = 150 + 100 * torch.rand(N, generator=g)
sbp = 90 + 80 * torch.rand(N, generator=g)
income = 15000 + 90000 * torch.rand(N, generator=g)
bmi = 18 + 20 * torch.rand(N, generator=g)
visits = torch.poisson(torch.full((N,), 3.0), generator=g)
score = 0.04 * (age - 50) + 0.02 * (chol - 200) + 0.03 * (sbp - 130) + 0.1 * (bmi - 28) - 1e-5 * (income - 60000)
y = (score + 0.5 * torch.randn(N, generator=g) > 0).float().unsqueeze(1)
x_data = torch.stack([age, chol, sbp, income, bmi, visits], 1)
x_train, y_train, x_val, y_val = x_data[:3200], y[:3200], x_data[3200:], y[3200:]

model = nn.Sequential(nn.Linear(6, 32), nn.Sigmoid(), nn.Linear(32, 16), nn.Sigmoid(), nn.Linear(16, 1), nn.Sigmoid())
criterion = nn.BCELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "loss", "val_loss", "val_acc"])
    step = 0
    for epoch in range(60):
        perm = torch.randperm(3200)
        for i in range(0, 3200, 64):
            b = perm[i:i + 64]
            loss = criterion(model(x_train[b]), y_train[b])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            w.writerow([step, epoch, f"{loss.item():.4f}", "", ""])
        with torch.no_grad():
            p = model(x_val)
            vl = criterion(p, y_val).item()
            acc = ((p > 0.5).float() == y_val).float().mean().item()
        w.writerow([step, epoch, f"{loss.item():.4f}", f"{vl:.4f}", f"{acc:.4f}"])
        if epoch % 5 == 0 or epoch == 59:
            print(f"Epoch {epoch}, Loss: {loss.item():.4f}, Val Loss: {vl:.4f}, Val Acc: {acc:.4f}")
print("positive rate in validation:", round(y_val.mean().item(), 4))
