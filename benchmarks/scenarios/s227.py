# SfMLearner-style PyTorch port (unsupervised depth from view synthesis): a DispNet-like conv
# encoder/decoder predicts disparity (DISP_SCALING * sigmoid(x) + MIN_DISP, in pixels) for the
# target frame; the source frame is warped with grid_sample and the photometric L1 error is the
# loss. Hyper-parameters taken over from the TF code: Adam lr 2e-4, beta1 0.9, batch 4, and the
# weight decay of its nets.py, 0.05, on every layer.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
H, W = 32, 48
DISP_SCALING, MIN_DISP = 4.0, 0.01

def smooth_texture(n):
    t = torch.rand(n, 3, H, W + 16)
    return F.avg_pool2d(t, 5, 1, 2) * 2 - 0.5

def warp(src, disp):
    # sample src at x - disp (disp in pixels), horizontal shift only
    b = src.shape[0]
    ys, xs = torch.meshgrid(torch.linspace(-1, 1, H), torch.linspace(-1, 1, W), indexing="ij")
    xs = xs.expand(b, H, W) - disp[:, 0] * 2.0 / (W - 1)
    grid = torch.stack([xs, ys.expand(b, H, W)], -1)
    return F.grid_sample(src, grid, padding_mode="border", align_corners=True)

def make_pairs(n):
    src = smooth_texture(n)[..., 8:8 + W]
    yy = torch.linspace(0, 1, H).view(1, 1, H, 1).expand(n, 1, H, W).clone()
    disp = 0.3 + 2.5 * yy  # ground plane: small disparity far away (top), large near (bottom)
    for i in range(n):
        for _ in range(2):
            x0, y0 = torch.randint(0, W - 10, (1,)).item(), torch.randint(0, H - 10, (1,)).item()
            disp[i, 0, y0:y0 + 10, x0:x0 + 10] = 0.5 + 3 * torch.rand(1).item()
    tgt = warp(src, disp)
    return src, tgt, disp

class DispNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(6, 32, 3, 2, 1); self.c2 = nn.Conv2d(32, 64, 3, 2, 1); self.c3 = nn.Conv2d(64, 128, 3, 2, 1)
        self.u3 = nn.ConvTranspose2d(128, 64, 4, 2, 1); self.u2 = nn.ConvTranspose2d(128, 32, 4, 2, 1)
        self.u1 = nn.ConvTranspose2d(64, 16, 4, 2, 1); self.pred = nn.Conv2d(16, 1, 3, 1, 1)
    def forward(self, x):
        e1 = F.relu(self.c1(x)); e2 = F.relu(self.c2(e1)); e3 = F.relu(self.c3(e2))
        d3 = F.relu(self.u3(e3)); d2 = F.relu(self.u2(torch.cat([d3, e2], 1)))
        d1 = F.relu(self.u1(torch.cat([d2, e1], 1)))
        return DISP_SCALING * torch.sigmoid(self.pred(d1)) + MIN_DISP

s_tr, t_tr, g_tr = make_pairs(800)
s_va, t_va, g_va = make_pairs(200)
net = DispNet()
opt = torch.optim.Adam(net.parameters(), lr=2e-4, betas=(0.9, 0.999), weight_decay=0.05)

step = 0
with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["step", "loss", "val_loss", "val_disp_err", "disp_std", "weight_norm"])
    for epoch in range(10):
        perm = torch.randperm(800)
        for i in range(0, 800, 4):
            idx = perm[i:i + 4]
            step += 1
            disp = net(torch.cat([t_tr[idx], s_tr[idx]], 1))
            loss = (warp(s_tr[idx], disp) - t_tr[idx]).abs().mean()
            opt.zero_grad(); loss.backward(); opt.step()
            vl = de = ds = wn = ""
            if step % 100 == 0:
                with torch.no_grad():
                    dv = net(torch.cat([t_va, s_va], 1))
                    vl = f"{(warp(s_va, dv) - t_va).abs().mean().item():.4f}"
                    de, ds = f"{(dv - g_va).abs().mean().item():.4f}", f"{dv.std().item():.4f}"
                    wn = f"{sum(p.norm() ** 2 for p in net.parameters()).sqrt().item():.3f}"
                print(f"epoch {epoch} step {step} photo_loss {loss.item():.4f} val_photo {vl} val_disp_err {de} px, pred disp std {ds} (true {g_va.std().item():.3f}) |w| {wn}")
            wr.writerow([step, f"{loss.item():.4f}", vl, de, ds, wn])
        fh.flush()
