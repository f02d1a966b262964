# keras-team/keras model.fit(..., shuffle=True, validation_split=0.10) in miniature, ported to PyTorch:
# a Keras-style Dense classifier (64 -> 256 relu -> dropout 0.3 -> 128 relu -> 6 softmax), categorical
# cross entropy, Adam 1e-3, batch_size 32, 20 epochs, on 6000 synthetic 64-d samples of 6 classes
# that are stored class by class (as they come from the directory / file they were read from).
# Like Keras, validation_split takes the LAST 10% of the arrays as validation data before any
# shuffling, and shuffle=True only shuffles the remaining training part every epoch; Keras-style
# "loss - acc - val_loss - val_acc" lines per epoch.
import csv, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(2); torch.manual_seed(2); torch.set_num_threads(1)
sizes = [1120, 1080, 1040, 1000, 1190, 570]                  # stored in class order 0..5
centres = np.random.randn(6, 64) * 1.0
X = np.concatenate([centres[k] + np.random.randn(n, 64) * 4.0 for k, n in enumerate(sizes)]).astype(np.float32)
y = np.concatenate([np.full(n, k) for k, n in enumerate(sizes)])
X, y = torch.tensor(X), torch.tensor(y)
validation_split = 0.10
split_at = int(len(X) * (1 - validation_split))
X_train, y_train, X_val, y_val = X[:split_at], y[:split_at], X[split_at:], y[split_at:]

model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Dropout(0.3), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 6))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f); wr.writerow(['epoch', 'loss', 'acc', 'val_loss', 'val_acc'])
print(f'Train on {len(X_train)} samples, validate on {len(X_val)} samples')
for epoch in range(20):
    t0 = time.time(); model.train(); perm = torch.randperm(len(X_train)); tl = tc = 0.0
    for b in range(0, len(perm), 32):
        idx = perm[b:b + 32]; out = model(X_train[idx]); loss = F.cross_entropy(out, y_train[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        tl += loss.item() * len(idx); tc += (out.argmax(1) == y_train[idx]).sum().item()
    model.eval()
    with torch.no_grad():
        vo = model(X_val); vl = F.cross_entropy(vo, y_val).item(); va = (vo.argmax(1) == y_val).float().mean().item()
    n = len(X_train)
    print(f'Epoch {epoch + 1}/20')
    print(f'{n}/{n} [==============================] - {time.time() - t0:.0f}s - loss: {tl / n:.4f} - acc: {tc / n:.4f} - val_loss: {vl:.4f} - val_acc: {va:.4f}', flush=True)
    wr.writerow([epoch + 1, tl / n, tc / n, vl, va]); f.flush()
