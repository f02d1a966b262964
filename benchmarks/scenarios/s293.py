# TRACER-style salient object detection in miniature: an encoder-decoder CNN predicts a 1x32x32 saliency
# mask for synthetic 3x32x32 images (one or two coloured blobs on a textured background). Loss as in the
# reference: BCE + IoU structure loss, summed over the batch (hence values around 10-30), Adam 5e-5,
# batch 16, 12 epochs; log lines "Train Loss | MAE" and "Valid Loss | MAE" per epoch.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
torch.set_num_threads(1)


class Saliency(Dataset):
    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        yy, xx = torch.meshgrid(torch.arange(32.), torch.arange(32.), indexing='ij')
        xs, ms = [], []
        for _ in range(n):
            bg = 0.4 * torch.rand(3, 1, 1, generator=g) + 0.25 * torch.rand(3, 32, 32, generator=g)
            m = torch.zeros(32, 32)
            for _ in range(int(torch.randint(1, 3, (1,), generator=g))):
                cx, cy = 6 + 20 * torch.rand(2, generator=g); r = 3 + 5 * torch.rand(1, generator=g)
                m = torch.maximum(m, (((xx - cx) ** 2 + (yy - cy) ** 2) < r ** 2).float())
            fg = 0.5 + 0.5 * torch.rand(3, 1, 1, generator=g)
            xs.append(bg * (1 - m) + fg * m + 0.05 * torch.randn(3, 32, 32, generator=g)); ms.append(m[None])
        self.x, self.m = torch.stack(xs), torch.stack(ms)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.m[i]


def structure_loss(logit, mask):
    bce = F.binary_cross_entropy_with_logits(logit, mask, reduction='none').mean((1, 2, 3))
    p = torch.sigmoid(logit)
    inter = (p * mask).sum((1, 2, 3)); union = (p + mask).sum((1, 2, 3)) - inter
    return (bce + 1 - (inter + 1) / (union + 1)).sum()


model = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(),
                      nn.Upsample(scale_factor=4, mode='bilinear', align_corners=False),
                      nn.Conv2d(32, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 1, 1))
train_loader = DataLoader(Saliency(640, 1), batch_size=16, shuffle=True)
valid_loader = DataLoader(Saliency(160, 2), batch_size=16)
optimizer = torch.optim.Adam(model.parameters(), lr=5e-5)
for epoch in range(1, 13):
    model.train(); tl = 0.0; tm = 0.0
    for x, m in train_loader:
        out = model(x); loss = structure_loss(out, m)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        tl += loss.item(); tm += (torch.sigmoid(out) - m).abs().mean().item() * len(x)
    model.eval(); vl = 0.0; vm = 0.0
    with torch.no_grad():
        for x, m in valid_loader:
            out = model(x); vl += structure_loss(out, m).item(); vm += (torch.sigmoid(out) - m).abs().mean().item() * len(x)
    print('Epoch:[{:03d}/012]'.format(epoch))
    print('Train Loss:{:.3f} | MAE:{:.3f}'.format(tl / len(train_loader), tm / 640))
    print('Valid Loss:{:.3f} | MAE:{:.3f}'.format(vl / len(valid_loader), vm / 160))
    print('=============================', end='')
print()
