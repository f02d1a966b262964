# MC-E/Deep-Generalized-Unfolding-Networks-for-Image-Restoration Deblurring/train.py in miniature
# (MPRNet-style training loop): a small multi-stage restoration network returns a list of stage outputs
# (restored[0] = last stage), CharbonnierLoss + 0.05 * EdgeLoss summed over the stages, Adam lr 2e-4 with
# warm-up + cosine schedule, patch batches of synthetic blurred / sharp image pairs, "Epoch: ...\tTime: ...
# \tLoss: ...\tLearningRate ..." lines and a validation PSNR line every epoch. The loss lines were
# rewritten because np.sum over the per-stage losses raised
# "TypeError: can't convert cuda:0 device type tensor to numpy".
import csv, time, math
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(3); torch.manual_seed(3); torch.set_num_threads(1)

# ---- synthetic GoPro-like pairs: sharp patches of rectangles / discs, blurred by a random motion kernel ----
def sharp_patch(n, size=24):
    img = torch.full((n, 3, size, size), 0.2) + 0.1 * torch.rand(n, 3, 1, 1)
    yy, xx = torch.meshgrid(torch.arange(size), torch.arange(size), indexing='ij')
    for i in range(n):
        for _ in range(np.random.randint(2, 5)):
            c = torch.rand(3, 1, 1)
            cy, cx, r = np.random.randint(0, size, 2).tolist() + [np.random.randint(3, 8)]
            m = ((yy - cy).abs() < r) & ((xx - cx).abs() < r) if np.random.rand() < 0.5 else ((yy - cy) ** 2 + (xx - cx) ** 2 < r * r)
            img[i] = torch.where(m, c.expand(3, size, size), img[i])
    return img
def motion_blur(x):
    out = torch.empty_like(x)
    for i in range(len(x)):
        L = np.random.randint(3, 8); k = torch.zeros(1, 1, 9, 9)
        if np.random.rand() < 0.5: k[0, 0, 4, 4 - L // 2:4 - L // 2 + L] = 1.0 / L
        else: k[0, 0, 4 - L // 2:4 - L // 2 + L, 4] = 1.0 / L
        out[i] = F.conv2d(F.pad(x[i:i + 1], (4, 4, 4, 4), mode='replicate'), k.expand(3, 1, 9, 9).contiguous(), groups=3)[0]
    return (out + 0.01 * torch.randn_like(out)).clamp(0, 1)
train_tar = sharp_patch(640); train_inp = motion_blur(train_tar)
val_tar = sharp_patch(64); val_inp = motion_blur(val_tar)

# ---- losses.py ----
class CharbonnierLoss(nn.Module):
    def __init__(self, eps=1e-3):
        super().__init__(); self.eps = eps
    def forward(self, x, y):
        diff = x - y
        return torch.mean(torch.sqrt((diff * diff) + (self.eps * self.eps)))

class EdgeLoss(nn.Module):
    def __init__(self):
        super().__init__()
        k = torch.Tensor([[.05, .25, .4, .25, .05]])
        self.kernel = torch.matmul(k.t(), k).unsqueeze(0).repeat(3, 1, 1, 1)
        self.loss = CharbonnierLoss()
    def conv_gauss(self, img):
        n_channels, _, kw, kh = self.kernel.shape
        img = F.pad(img, (kw // 2, kh // 2, kw // 2, kh // 2), mode='replicate')
        return F.conv2d(img, self.kernel, groups=n_channels)
    def laplacian_kernel(self, current):
        filtered = self.conv_gauss(current)
        down = filtered[:, :, ::2, ::2]
        new_filter = torch.zeros_like(filtered); new_filter[:, :, ::2, ::2] = down * 4
        filtered = self.conv_gauss(new_filter)
        return current - filtered
    def forward(self, x, y):
        return self.loss(self.laplacian_kernel(x), self.laplacian_kernel(y))

# ---- a small 3-stage unfolding-style network ----
class Stage(nn.Module):
    def __init__(self, ch=24):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(6, ch, 3, 1, 1), nn.PReLU(), nn.Conv2d(ch, ch, 3, 1, 1), nn.PReLU(), nn.Conv2d(ch, 3, 3, 1, 1))
    def forward(self, x_k, y):
        return x_k + self.body(torch.cat([x_k, y], 1))
class DGUNet(nn.Module):
    def __init__(self, stages=3):
        super().__init__(); self.stages = nn.ModuleList([Stage() for _ in range(stages)])
    def forward(self, y):
        x = y; outs = []
        for s in self.stages:
            x = s(x, y); outs.append(x)
        return outs[::-1]

def torchPSNR(tar_img, prd_img):
    imdff = torch.clamp(prd_img, 0, 1) - torch.clamp(tar_img, 0, 1)
    rmse = (imdff ** 2).mean().sqrt()
    return 20 * torch.log10(1 / rmse)

model_restoration = DGUNet()
new_lr, NUM_EPOCHS, BATCH_SIZE, warmup_epochs = 2e-4, 12, 16, 3
optimizer = torch.optim.Adam(model_restoration.parameters(), lr=new_lr, betas=(0.9, 0.999), eps=1e-8)
warm = lambda e: (e + 1) / warmup_epochs if e < warmup_epochs else 0.5 * (1 + math.cos(math.pi * (e - warmup_epochs) / (NUM_EPOCHS - warmup_epochs)))
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, warm)
criterion_char = CharbonnierLoss(); criterion_edge = EdgeLoss()

f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'step', 'loss', 'epoch_loss', 'val_psnr', 'lr'])
print('===> Start Epoch 1 End Epoch {}'.format(NUM_EPOCHS))
print('===> Loading datasets')
best_psnr, best_epoch, step = 0, 0, 0
for epoch in range(1, NUM_EPOCHS + 1):
    epoch_start_time = time.time(); epoch_loss = 0
    model_restoration.train()
    perm = torch.randperm(len(train_inp))
    for i in range(0, len(perm), BATCH_SIZE):
        idx = perm[i:i + BATCH_SIZE]
        target, input_ = train_tar[idx], train_inp[idx]
        optimizer.zero_grad()
        restored = model_restoration(input_)
        # Compute loss at each stage
        loss_char = torch.tensor([criterion_char(restored[j], target) for j in range(len(restored))], requires_grad=True).sum()
        loss_edge = torch.tensor([criterion_edge(restored[j], target) for j in range(len(restored))], requires_grad=True).sum()
        loss = (loss_char) + (0.05 * loss_edge)
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item(); step += 1
        wr.writerow([epoch, step, round(loss.item(), 6), '', '', optimizer.param_groups[0]['lr']])
    #### Evaluation ####
    model_restoration.eval()
    with torch.no_grad():
        restored = model_restoration(val_inp)[0]
        psnr_val_rgb = torchPSNR(val_tar, restored).item()
    if psnr_val_rgb > best_psnr:
        best_psnr, best_epoch = psnr_val_rgb, epoch
    print("[epoch %d PSNR: %.4f --- best_epoch %d Best_PSNR %.4f]" % (epoch, psnr_val_rgb, best_epoch, best_psnr))
    print("------------------------------------------------------------------")
    print("Epoch: {}\tTime: {:.4f}\tLoss: {:.4f}\tLearningRate {:.6f}".format(epoch, time.time() - epoch_start_time, epoch_loss, scheduler.get_last_lr()[0]))
    print("------------------------------------------------------------------", flush=True)
    wr.writerow([epoch, step, '', round(epoch_loss, 5), round(psnr_val_rgb, 4), optimizer.param_groups[0]['lr']]); f.flush()
    scheduler.step()
