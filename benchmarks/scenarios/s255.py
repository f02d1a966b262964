# DeepSNiF-style self-supervised denoiser for imaging mass cytometry channels (IMC-Denoise in
# miniature): a small conv net is trained blind-spot style (masked pixels predicted from their
# neighbourhood, MSE on the masked pixels) on synthetic shot-noise images of one marker channel.
# Adam, train_initial_lr = 1 (as set in the reporter's notebook call), batch 32, 8 epochs.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)

g = torch.Generator().manual_seed(3)
def cells(n, size=32):
    yy, xx = torch.meshgrid(torch.arange(size).float(), torch.arange(size).float(), indexing="ij")
    imgs = torch.zeros(n, 1, size, size)
    for i in range(n):
        for _ in range(6):
            cy, cx = torch.rand(2, generator=g) * size
            r = 1.5 + 2.5 * torch.rand(1, generator=g)
            imgs[i, 0] += 8.0 * torch.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * r ** 2))
    noisy = torch.poisson(imgs + 0.3, generator=g)
    return noisy

Xtr, Xva = cells(992), cells(128)
train_initial_lr = 1
train_batch_size = 32
train_epoches = 8

net = nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.LeakyReLU(0.2), nn.Conv2d(32, 32, 3, padding=1), nn.LeakyReLU(0.2),
                    nn.Conv2d(32, 32, 3, padding=1), nn.LeakyReLU(0.2), nn.Conv2d(32, 1, 1))
opt = torch.optim.Adam(net.parameters(), lr=train_initial_lr)

def masked_loss(x):
    mask = (torch.rand(x.shape) < 0.02).float()
    shifted = torch.roll(x, shifts=(1, 1), dims=(2, 3))
    inp = x * (1 - mask) + shifted * mask          # replace blind-spot pixels by a neighbour
    pred = net(inp)
    mse = ((pred - x) ** 2 * mask).sum() / mask.sum()
    # DeepSNiF's second-order (Hessian) smoothness penalty on the prediction
    dxx = pred[..., :, 2:] - 2 * pred[..., :, 1:-1] + pred[..., :, :-2]
    dyy = pred[..., 2:, :] - 2 * pred[..., 1:-1, :] + pred[..., :-2, :]
    hess = (dxx ** 2).mean() + (dyy ** 2).mean()
    return mse + 3e-6 * hess ** 2

steps = len(Xtr) // train_batch_size
for epoch in range(1, train_epoches + 1):
    print(f"Epoch {epoch}/{train_epoches}")
    perm = torch.randperm(len(Xtr))
    tot = 0.0
    for s in range(steps):
        xb = Xtr[perm[s * train_batch_size:(s + 1) * train_batch_size]]
        loss = masked_loss(xb)
        opt.zero_grad(); loss.backward(); opt.step()
        tot += loss.item()
    with torch.no_grad():
        vl = masked_loss(Xva).item()
    print(f"{steps}/{steps} [==============================] - loss: {tot/steps:.4f} - val_loss: {vl:.4f}")
    print(f"\nEpoch {epoch:05d}: saving model to trained_weights/weights_144Nd-CD14.hdf5")
