# NWPU-MOC-style multi-category object counting: ResNet-ish backbone -> FPN_Head (lateral 1x1
# convs with ReLU, top-down pathway) -> per-category density maps, MSE loss, Adam
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)

N_CAT = 6
class ConvBNReLU(nn.Sequential):
    def __init__(self, cin, cout, s=1):
        super().__init__(nn.Conv2d(cin, cout, 3, s, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.s1 = ConvBNReLU(3, 32, 2)
        self.s2 = ConvBNReLU(32, 64, 2)
        self.s3 = ConvBNReLU(64, 128, 2)
        self.s4 = ConvBNReLU(128, 256, 2)
    def forward(self, x):
        c1 = self.s1(x); c2 = self.s2(c1); c3 = self.s3(c2); c4 = self.s4(c3)
        return [c2, c3, c4]

class FPN_Head(nn.Module):
    def __init__(self, in_channels=(64, 128, 256), channels=128):
        super().__init__()
        self.lateral_convs = nn.ModuleList(
            [nn.Sequential(nn.Conv2d(c, channels, 1), nn.ReLU(inplace=True)) for c in in_channels])
        self.fpn_convs = nn.ModuleList([ConvBNReLU(channels, channels) for _ in in_channels])
        self.pred = nn.Conv2d(channels, N_CAT, 1)
    def forward(self, inputs):
        laterals = [conv(inputs[i]) for i, conv in enumerate(self.lateral_convs)]
        for i in range(len(laterals) - 1, 0, -1):
            prev_shape = laterals[i - 1].shape[2:]
            laterals[i - 1] += F.interpolate(laterals[i], size=prev_shape, mode='nearest')
        outs = [self.fpn_convs[i](laterals[i]) for i in range(len(laterals))]
        out = outs[0] + sum(F.interpolate(o, size=outs[0].shape[2:], mode='bilinear', align_corners=False)
                            for o in outs[1:])
        return F.relu(self.pred(out))

class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = Backbone()
        self.head = FPN_Head()
    def forward(self, x):
        return self.head(self.backbone(x))

imgs = torch.rand(32, 3, 64, 64)
dens = torch.rand(32, N_CAT, 16, 16) * 0.01
model = Counter()
opt = torch.optim.Adam(model.parameters(), lr=1e-4)
with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "loss", "mae"])
    step = 0
    for epoch in range(5):
        for i in range(0, 32, 4):
            x, d = imgs[i:i + 4], dens[i:i + 4]
            pred = model(x)
            loss = F.mse_loss(pred, d) * 1000
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            mae = (pred.sum((2, 3)) - d.sum((2, 3))).abs().mean().item()
            w.writerow([step, epoch, f"{loss.item():.4f}", f"{mae:.3f}"])
            print(f"[ep {epoch}][it {step}] loss: {loss.item():.4f} mae: {mae:.3f}")
