# LayoutNet-style room-layout boundary prediction in miniature: an encoder-decoder CNN with BatchNorm maps a 3x32x64
# panorama-like image (three wall/floor/ceiling regions with noise and texture) to a 1x32x64 boundary
# probability map (BCE). Schedule as in the reference trainer: --warmup_epochs 3 at a constant warm-up
# lr of 1e-6, then lr 0.018 with poly decay (power 0.9), SGD momentum 0.9, batch 16, 14 epochs.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
torch.set_num_threads(1)


class Pano(Dataset):
    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        cols = torch.arange(64.)
        xs, ys = [], []
        for _ in range(n):
            ph, amp = 6.28 * torch.rand(1, generator=g), 3 + 4 * torch.rand(1, generator=g)
            top = 9 + amp * torch.cos(cols / 64 * 12.57 + ph).abs()
            bot = 23 - amp * torch.cos(cols / 64 * 12.57 + ph).abs()
            rows = torch.arange(32.)[:, None]
            region = (rows > top).float() + (rows > bot).float()
            colors = torch.tensor([[0.9, 0.5, 0.1]]).repeat(3, 1) + 0.1 * torch.rand(3, 3, generator=g)
            img = colors[:, region.long()] + 0.1 * torch.randn(3, 32, 64, generator=g)
            edge = (((rows - top).abs() < 1) | ((rows - bot).abs() < 1)).float()
            xs.append(img); ys.append(edge[None])
        self.x, self.y = torch.stack(xs), torch.stack(ys)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


enc = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                    nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
                    nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU())
dec = nn.Sequential(nn.ConvTranspose2d(64, 32, 2, 2), nn.BatchNorm2d(32), nn.ReLU(), nn.ConvTranspose2d(32, 16, 2, 2),
                    nn.BatchNorm2d(16), nn.ReLU(),
                    nn.Conv2d(16, 1, 3, padding=1))
model = nn.Sequential(enc, dec)
train_loader = DataLoader(Pano(320, 1), batch_size=16, shuffle=True)
valid_loader = DataLoader(Pano(120, 2), batch_size=60)
warmup_epochs, warmup_lr, base_lr, epochs = 3, 1e-6, 0.018, 14
optimizer = torch.optim.SGD(model.parameters(), lr=warmup_lr, momentum=0.9)
iters = len(train_loader); total = (epochs - warmup_epochs) * iters; step = 0
for epoch in range(1, epochs + 1):
    model.train(); tl = 0.0
    for x, y in train_loader:
        if epoch <= warmup_epochs:
            lr = warmup_lr
        else:
            lr = base_lr * (1 - step / total) ** 0.9; step += 1
        for pg in optimizer.param_groups:
            pg['lr'] = lr
        loss = F.binary_cross_entropy_with_logits(model(x), y)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        tl += loss.item() * len(x)
    model.eval(); vl = 0.0; err = 0.0
    with torch.no_grad():
        for x, y in valid_loader:
            out = model(x); vl += F.binary_cross_entropy_with_logits(out, y).item() * len(x)
            # boundary-row error: per column, strongest response in the upper / lower half vs the true boundary row
            pt, pb = out[:, 0, :16].argmax(1).float(), out[:, 0, 16:].argmax(1).float()
            yt, yb = y[:, 0, :16].argmax(1).float(), y[:, 0, 16:].argmax(1).float()
            err += (((pt - yt).abs() + (pb - yb).abs()) / 2).mean().item() * len(x)
    print('Ep {:2d}/{} | lr {:.2e} | train loss {:.5f} | valid loss {:.5f} | valid boundary error {:.2f} px'.format(
        epoch, epochs, lr, tl / 320, vl / 120, err / 120))
