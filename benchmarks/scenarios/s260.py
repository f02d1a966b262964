# Tennis-court keypoint detector in miniature: a small fully-convolutional net predicts one Gaussian
# heatmap per court corner (4 keypoints) from 32x32 synthetic broadcast frames, MSE on heatmaps,
# Adam lr 1e-3, batch 8, as in the reference base_trainer.train(): the loop computes
# loss.backward() and optimizer.step() for every batch (there is no optimizer.zero_grad()).
import time
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)

g = torch.Generator().manual_seed(6)
S = 32
yy, xx = torch.meshgrid(torch.arange(S).float(), torch.arange(S).float(), indexing="ij")
def frame():
    cx, cy = 16 + 3 * torch.randn(2, generator=g)
    w, h = 9 + 2 * torch.rand(2, generator=g)
    top = 0.6 + 0.2 * torch.rand(1, generator=g)
    pts = torch.tensor([[cx - w * top, cy - h], [cx + w * top, cy - h], [cx - w, cy + h], [cx + w, cy + h]])
    img = 0.3 * torch.rand(1, S, S, generator=g)
    hm = torch.zeros(4, S, S)
    for k, (px, py) in enumerate(pts):
        hm[k] = torch.exp(-((xx - px) ** 2 + (yy - py) ** 2) / (2 * 1.5 ** 2))
        img[0] += hm[k]
    for a, b in [(0, 1), (2, 3), (0, 2), (1, 3)]:                     # court lines
        for t in torch.linspace(0, 1, 24):
            p = pts[a] * (1 - t) + pts[b] * t
            ix, iy = int(p[0].clamp(0, S - 1)), int(p[1].clamp(0, S - 1))
            img[0, iy, ix] += 0.6
    return img, hm

data = [frame() for _ in range(480)]
X = torch.stack([d[0] for d in data]); H = torch.stack([d[1] for d in data])
Xtr, Htr, Xva, Hva = X[:400], H[:400], X[400:], H[400:]

model = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),
                      nn.Conv2d(32, 32, 3, padding=2, dilation=2), nn.ReLU(), nn.Conv2d(32, 4, 1), nn.Sigmoid())
nn.init.constant_(model[-2].bias, -4.0)        # heatmap head starts near 0 (background)
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
batch_size = 8
n_iter = len(Xtr) // batch_size

def train(epoch):
    model.train()
    losses = []
    start = time.time()
    perm = torch.randperm(len(Xtr))
    for iter_id in range(n_iter):
        idx = perm[iter_id * batch_size:(iter_id + 1) * batch_size]
        out = model(Xtr[idx])
        loss = criterion(out, Htr[idx])
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if iter_id % 10 == 9:
            print('train, epoch = {}, iter_id = {}/{}, loss = {:.6f}, time = {:.2f}'.format(
                epoch, iter_id + 1, n_iter, loss.item(), time.time() - start))
    return sum(losses) / len(losses)

for epoch in range(1, 9):
    train_loss = train(epoch)
    model.eval()
    with torch.no_grad():
        val_loss = criterion(model(Xva), Hva).item()
    print('epoch = {}, train_loss = {:.6f}, val_loss = {:.6f}'.format(epoch, train_loss, val_loss))
