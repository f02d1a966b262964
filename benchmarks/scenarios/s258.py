# "Simple face" task (child vs adult face photos, binary) trained locally as in a federated-learning
# client, in miniature: a small CNN on 24x24 grey synthetic faces. The client's dataset is read
# folder by folder (all "child" images first, then all "adult"), and batches are taken in that
# order without shuffling. Adam lr 1e-3, batch 32, 8 epochs, 20% validation split held out
# (stratified).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)

g = torch.Generator().manual_seed(5)
yy, xx = torch.meshgrid(torch.linspace(-1, 1, 24), torch.linspace(-1, 1, 24), indexing="ij")
def faces(n, adult):
    imgs = []
    for _ in range(n):
        s = (0.75 if adult else 0.6) + 0.08 * torch.randn(1, generator=g)
        eye_y = (-0.15 if adult else 0.05) + 0.06 * torch.randn(1, generator=g)
        head = ((xx / (s * 0.8)) ** 2 + (yy / s) ** 2 < 1).float() * 0.6
        eyes = torch.exp(-((yy - eye_y) ** 2 + (xx.abs() - 0.3) ** 2) / 0.01)
        img = head - 0.5 * eyes + 0.35 * torch.randn(24, 24, generator=g)
        imgs.append(img)
    return torch.stack(imgs)[:, None]

child, adult = faces(600, False), faces(600, True)
Xtr = torch.cat([child[:480], adult[:480]]); ytr = torch.cat([torch.zeros(480), torch.ones(480)])
Xva = torch.cat([child[480:], adult[480:]]); yva = torch.cat([torch.zeros(120), torch.ones(120)])

model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Flatten(), nn.Linear(16 * 36, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
BATCH = 32
for epoch in range(8):
    model.train()
    for b in range(len(Xtr) // BATCH):
        xb, yb = Xtr[b * BATCH:(b + 1) * BATCH], ytr[b * BATCH:(b + 1) * BATCH]
        logit = model(xb).squeeze(1)
        loss = F.binary_cross_entropy_with_logits(logit, yb)
        opt.zero_grad(); loss.backward(); opt.step()
        if b % 6 == 5:
            acc = ((logit > 0).float() == yb).float().mean().item()
            print(f"  batch {b + 1}/{len(Xtr) // BATCH}: loss = {loss.item():.4f}, acc = {acc:.3f}")
    model.eval()
    with torch.no_grad():
        vl = model(Xva).squeeze(1)
        val_loss = F.binary_cross_entropy_with_logits(vl, yva).item()
        val_acc = ((vl > 0).float() == yva).float().mean().item()
        p_adult = (vl > 0).float().mean().item()
    print(f"onEpochEnd {epoch + 1}/8: val_loss = {val_loss:.4f}, val_acc = {val_acc:.3f} (predicts 'adult' for {p_adult:.0%} of validation faces)")
