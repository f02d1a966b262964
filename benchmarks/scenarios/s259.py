# Image classifier for an on-device (TFLite) app, in miniature: a Keras-style Sequential CNN
# (Conv-Pool x3, Flatten, Dense 128, Dropout(0.2), Dense 5 softmax) trained from scratch on a small
# photo set (400 training / 200 validation images, 5 classes, 32x32 RGB, synthetic), Adam 1e-3,
# batch 32, 30 epochs, no augmentation, no weight decay.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)

g = torch.Generator().manual_seed(8)
K = 5
base = torch.rand(K, 3, 8, 8, generator=g)
def make(n):
    y = torch.randint(0, K, (n,), generator=g)
    x = F.interpolate(base[y], size=32, mode="bilinear", align_corners=False)
    shift = torch.randint(-4, 5, (2,), generator=g)
    x = torch.roll(x, shifts=(int(shift[0]), int(shift[1])), dims=(2, 3))
    x = 0.35 * x + 0.65 * torch.rand(n, 3, 32, 32, generator=g)   # clutter dominates the photo
    return x, y
Xtr, ytr = make(400)
Xva, yva = make(200)

model = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Flatten(), nn.Linear(64 * 16, 128), nn.ReLU(), nn.Dropout(0.2), nn.Linear(128, K))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(1, 31):
    model.train()
    perm = torch.randperm(400)
    tl = tc = 0.0
    for i in range(0, 400, 32):
        idx = perm[i:i + 32]
        out = model(Xtr[idx]); loss = F.cross_entropy(out, ytr[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        tl += loss.item() * len(idx); tc += (out.argmax(1) == ytr[idx]).sum().item()
    model.eval()
    with torch.no_grad():
        vo = model(Xva); vl = F.cross_entropy(vo, yva).item(); va = (vo.argmax(1) == yva).float().mean().item()
    print(f"Epoch {epoch}/30")
    print(f"13/13 [==============================] - loss: {tl/400:.4f} - accuracy: {tc/400:.4f} - val_loss: {vl:.4f} - val_accuracy: {va:.4f}")
