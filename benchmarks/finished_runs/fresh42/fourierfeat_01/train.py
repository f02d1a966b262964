# Fourier-feature MLP fitting a 2-D image from pixel coordinates, as in Tancik et al., "Fourier Features Let Networks
# Learn High Frequency Functions in Low Dimensional Domains" (NeurIPS 2020) and its demo notebook: Gaussian random
# Fourier features gamma(v) = [cos(2 pi B v), sin(2 pi B v)], a 4-layer ReLU MLP with a sigmoid output, MSE on RGB,
# full-batch Adam, trained on every other pixel and tested on the full image (PSNR). Synthetic image, fixed seed.
import math, time
import torch
import torch.nn as nn
from tqdm import tqdm

torch.set_num_threads(1)
torch.manual_seed(0)

RES = 48
MAPPING_SIZE = 128
SCALE = 3.0
WIDTH = 128
DEPTH = 4
LR = 1e-4
ITERS = 600
EVAL_EVERY = 50


def make_image(g):
    yy, xx = torch.meshgrid(torch.linspace(0, 1, RES), torch.linspace(0, 1, RES), indexing="ij")
    img = torch.zeros(RES, RES, 3)
    for c in range(3):
        for _ in range(4):
            fx, fy = (torch.rand(2, generator=g) * 10 + 1).tolist()
            ph = torch.rand(1, generator=g).item() * 6.28
            img[..., c] += torch.sin(2 * math.pi * (fx * xx + fy * yy) / 2 + ph) / 4
    for _ in range(5):  # a few rectangles with sharp edges
        x0, y0 = (torch.rand(2, generator=g) * 0.7).tolist()
        w, h = (torch.rand(2, generator=g) * 0.3 + 0.05).tolist()
        col = torch.rand(3, generator=g) - 0.5
        m = (xx >= x0) & (xx < x0 + w) & (yy >= y0) & (yy < y0 + h)
        img[m] += col
    img = (img - img.min()) / (img.max() - img.min())
    img = torch.round(img * 255) / 255.0  # stored as an 8-bit PNG
    return img


g = torch.Generator().manual_seed(1234)
img = make_image(g)
coords = torch.stack(torch.meshgrid(torch.linspace(0, 1, RES + 1)[:-1], torch.linspace(0, 1, RES + 1)[:-1], indexing="ij"), -1)
train_x, train_y = coords[::2, ::2].reshape(-1, 2), img[::2, ::2].reshape(-1, 3)
test_x, test_y = coords.reshape(-1, 2), img.reshape(-1, 3)

B = torch.randn(MAPPING_SIZE, 2, generator=g) * SCALE


def input_mapping(x):
    proj = 2 * math.pi * x @ B.t()
    return torch.cat([torch.cos(proj), torch.sin(proj)], dim=-1)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        layers, d = [], 2 * MAPPING_SIZE
        for _ in range(DEPTH - 1):
            layers += [nn.Linear(d, WIDTH), nn.ReLU()]
            d = WIDTH
        layers += [nn.Linear(d, 3), nn.Sigmoid()]
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


model = MLP()
opt = torch.optim.Adam(model.parameters(), lr=LR)
loss_fn = nn.MSELoss()
fx_train, fx_test = input_mapping(train_x), input_mapping(test_x)


def psnr(mse):
    return -10.0 * math.log10(max(mse, 1e-12))


print(f"image {RES}x{RES}, train pixels {len(train_x)}, test pixels {len(test_x)}, mapping gauss scale={SCALE} m={MAPPING_SIZE}")
print(f"model: {DEPTH} layers x {WIDTH}, params {sum(p.numel() for p in model.parameters())}, Adam lr={LR}")
best = -1e9
pbar = tqdm(range(1, ITERS + 1), desc="train", mininterval=0.5)
for it in pbar:
    model.train()
    opt.zero_grad()
    pred = model(fx_train)
    loss = loss_fn(pred, train_y)
    loss.backward()
    opt.step()
    pbar.set_postfix(loss=f"{loss.item():.3e}", psnr=f"{psnr(loss.item()):.2f}", refresh=False)
    if it % EVAL_EVERY == 0:
        model.eval()
        with torch.no_grad():
            test_mse = loss_fn(model(fx_test), test_y).item()
        best = max(best, psnr(test_mse))
        tqdm.write(f"iter {it:5d}  train_loss {loss.item():.3e}  train_psnr {psnr(loss.item()):6.2f}  test_psnr {psnr(test_mse):6.2f}")
pbar.close()
print(f"final test psnr {psnr(test_mse):.2f}  best {best:.2f}")
