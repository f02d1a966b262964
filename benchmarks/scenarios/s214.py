# Speaker-identification net (thin ResNet-style embedding head stand-in: MLP on 64-d pooled
# spectrogram features), split files meta/voxlb2_train.txt and meta/voxlb2_val.txt
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(7)
torch.set_num_threads(1)

n_speakers, dim = 60, 64
g = torch.Generator().manual_seed(5)
centroids = torch.randn(n_speakers, dim, generator=g)

def utterances(n_per_spk):
    spk = torch.arange(n_speakers).repeat_interleave(n_per_spk)
    x = 0.45 * centroids[spk] + torch.randn(len(spk), dim, generator=g)
    return x, spk

# the dataset's list files
all_x, all_y = utterances(30)
perm = torch.randperm(len(all_y), generator=g)
val_idx = perm[:300]
train_idx = perm            # voxlb2_train.txt
X_train, y_train = all_x[train_idx], all_y[train_idx]
X_val, y_val = all_x[val_idx], all_y[val_idx]
X_test, y_test = utterances(10)   # separate recordings (test list)

model = nn.Sequential(
    nn.Linear(dim, 512), nn.ReLU(),
    nn.Linear(512, 512), nn.ReLU(),
    nn.Linear(512, n_speakers),
)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
bs = 64

def evaluate(X, y):
    model.eval()
    with torch.no_grad():
        out = model(X)
        return F.cross_entropy(out, y).item(), (out.argmax(1) == y).float().mean().item()

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["epoch", "loss", "acc", "val_loss", "val_acc", "test_acc"])
    for epoch in range(1, 41):
        model.train()
        p = torch.randperm(len(y_train))
        tl, tc, n = 0.0, 0, 0
        for i in range(0, len(p), bs):
            idx = p[i:i + bs]
            out = model(X_train[idx])
            loss = F.cross_entropy(out, y_train[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tl += loss.item() * len(idx); tc += (out.argmax(1) == y_train[idx]).sum().item(); n += len(idx)
        vl, va = evaluate(X_val, y_val)
        _, te = evaluate(X_test, y_test)
        w.writerow([epoch, f"{tl / n:.4f}", f"{tc / n:.4f}", f"{vl:.4f}", f"{va:.4f}", f"{te:.4f}"])
        fh.flush()
        print(f"Epoch {epoch}/40 - loss: {tl / n:.4f} - acc: {tc / n:.4f} - val_loss: {vl:.4f} - val_acc: {va:.4f} - test_acc: {te:.4f}")
