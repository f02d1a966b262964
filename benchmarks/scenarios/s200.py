# retrain.py-style icon classifier: frozen bottleneck features -> new softmax layer, GradientDescent learning_rate=0.01
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(6)
torch.set_num_threads(1)

C, D = 12, 2048
g = torch.Generator().manual_seed(17)
centers = torch.rand(C, D, generator=g) * 0.6
y = torch.randint(0, C, (3600,), generator=g)
bottlenecks = torch.relu(centers[y] + 0.6 * torch.randn(3600, D, generator=g)) * 0.03   # ReLU'd pooled features
Xtr, ytr, Xva, yva = bottlenecks[:3000], y[:3000], bottlenecks[3000:], y[3000:]

final_layer = nn.Linear(D, C)
nn.init.trunc_normal_(final_layer.weight, std=0.001)
nn.init.zeros_(final_layer.bias)
optimizer = torch.optim.SGD(final_layer.parameters(), lr=0.01)
how_many_training_steps, eval_step_interval, train_batch_size = 2000, 100, 100

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "cross_entropy", "train_accuracy", "validation_accuracy"])
    for i in range(how_many_training_steps):
        b = torch.randint(0, 3000, (train_batch_size,))
        logits = final_layer(Xtr[b])
        cross_entropy = F.cross_entropy(logits, ytr[b])
        optimizer.zero_grad()
        cross_entropy.backward()
        optimizer.step()
        is_last = i + 1 == how_many_training_steps
        if i % eval_step_interval == 0 or is_last:
            train_acc = (logits.argmax(1) == ytr[b]).float().mean().item() * 100
            with torch.no_grad():
                val_acc = (final_layer(Xva).argmax(1) == yva).float().mean().item() * 100
            w.writerow([i, f"{cross_entropy.item():.4f}", f"{train_acc:.1f}", f"{val_acc:.1f}"])
            print(f"Step {i}: Train accuracy = {train_acc:.1f}%")
            print(f"Step {i}: Cross entropy = {cross_entropy.item():.6f}")
            print(f"Step {i}: Validation accuracy = {val_acc:.1f}% (N={len(yva)})")
        else:
            w.writerow([i, f"{cross_entropy.item():.4f}", "", ""])
