# Photometric-reconstruction training in miniature (SfmLearner-Pytorch style train.py with an
# added --scheduler option). Synthetic data: pairs of 1x24x24 frames where the target frame is
# the source shifted by a per-sample 2-D displacement; a small conv net predicts the displacement
# and the loss is the reconstruction error of the warped source plus a smoothness-like term.
import argparse, time
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)

p = argparse.ArgumentParser()
p.add_argument('--lr', type=float, default=1e-3)
p.add_argument('--scheduler', default='step')
p.add_argument('-b', '--batch-size', type=int, default=48)
p.add_argument('--epochs', type=int, default=6)
args = p.parse_args()

def make_frames(n):
    base = torch.randn(n, 1, 28, 28)
    base = F.avg_pool2d(base, 5, 1, 2) * 3
    d = torch.randint(-2, 3, (n, 2))
    src = base[:, :, 2:26, 2:26]
    tgt = torch.stack([base[i, :, 2 + d[i, 0]:26 + d[i, 0], 2 + d[i, 1]:26 + d[i, 1]] for i in range(n)])
    return src, tgt, d.float()

src, tgt, disp = make_frames(2400)

class PoseNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(2, 16, 3, 2, 1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, 2, 1), nn.ReLU(),
            nn.Conv2d(32, 64, 3, 2, 1), nn.ReLU())
        self.head = nn.Linear(64 * 9, 2)
    def forward(self, a, b):
        h = self.conv(torch.cat([a, b], 1))
        return self.head(h.flatten(1))

def warp(img, d):
    n = img.shape[0]
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0] = 1; theta[:, 1, 1] = 1
    theta[:, 0, 2] = d[:, 1] * 2 / 24
    theta[:, 1, 2] = d[:, 0] * 2 / 24
    grid = F.affine_grid(theta, img.shape, align_corners=False)
    return F.grid_sample(img, grid, align_corners=False, padding_mode='border')

model = PoseNet()
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.999))
scheduler = None
if args.scheduler == 'step':
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=200, gamma=0.5)

print('=> will save everything to checkpoints/synthetic_seq')
print('=> creating model')
n = src.shape[0]
for epoch in range(args.epochs):
    perm = torch.randperm(n)
    t0 = time.time()
    losses = []
    for i in range(n // args.batch_size):
        idx = perm[i * args.batch_size:(i + 1) * args.batch_size]
        a, b = src[idx], tgt[idx]
        pose = model(a, b)
        recon = warp(a, pose)
        photo = (recon - b).abs().mean()
        smooth = 0.01 * pose.pow(2).mean()
        loss = photo + smooth
        optimizer.zero_grad()
        loss.backward()
        if scheduler:
            scheduler.step()
        else:
            optimizer.step()
        losses.append(loss.item())
        if i % 10 == 0:
            print('Train: Time {:.3f} Data 0.000 Loss {:.4f} ({:.4f}) photo {:.4f} lr {:.2e}'.format(
                time.time() - t0, loss.item(), sum(losses) / len(losses), photo.item(),
                optimizer.param_groups[0]['lr']))
    with torch.no_grad():
        pose = model(src[:400], tgt[:400])
        err = (pose - disp[:400]).abs().mean().item()
    print('Epoch {} finished: train loss {:.4f}, pose error {:.4f} px'.format(
        epoch + 1, sum(losses) / len(losses), err))
