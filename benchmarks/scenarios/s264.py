# Detection-head training in miniature with the reference trainer's conventions: batch_size = 1
# (one image per step), box-regression (smooth L1) + classification (CE) losses, SGD lr 1e-3
# momentum 0.9, and loss meters (running means) that are reset at the start of every epoch and
# plotted / printed every 250 iterations. Pooled 64-d ROI features stand in for the backbone.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)

g = torch.Generator().manual_seed(41)
W_box = torch.randn(64, 4, generator=g) * 0.3
W_cls = torch.randn(64, 5, generator=g)
def make(n):
    x = torch.randn(n, 64, generator=g)
    box = x @ W_box + 0.1 * torch.randn(n, 4, generator=g)
    cls = (x @ W_cls + 1.0 * torch.randn(n, 5, generator=g)).argmax(1)
    return x, box, cls
Xtr, Btr, Ctr = make(2500)
Xva, Bva, Cva = make(300)

head = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 9))
optimizer = torch.optim.SGD(head.parameters(), lr=1e-3, momentum=0.9)

class AverageValueMeter:
    def __init__(self): self.reset()
    def reset(self): self.sum, self.n = 0.0, 0
    def add(self, v): self.sum += v; self.n += 1
    def value(self): return self.sum / max(self.n, 1)

meters = {k: AverageValueMeter() for k in ["roi_loc_loss", "roi_cls_loss", "total_loss"]}
for epoch in range(4):
    for m in meters.values():
        m.reset()
    perm = torch.randperm(len(Xtr))
    for ii, i in enumerate(perm.tolist()):
        out = head(Xtr[i:i + 1])
        loc = F.smooth_l1_loss(out[:, :4], Btr[i:i + 1])
        cls = F.cross_entropy(out[:, 4:], Ctr[i:i + 1])
        total = loc + cls
        optimizer.zero_grad(); total.backward(); optimizer.step()
        meters["roi_loc_loss"].add(loc.item()); meters["roi_cls_loss"].add(cls.item()); meters["total_loss"].add(total.item())
        if (ii + 1) % 250 == 0:
            print("epoch %d iter %4d  " % (epoch, ii + 1) + "  ".join("%s: %.4f" % (k, m.value()) for k, m in meters.items())
                  + "  (this image: %.4f)" % total.item())
    with torch.no_grad():
        o = head(Xva)
        vl = F.smooth_l1_loss(o[:, :4], Bva).item() + F.cross_entropy(o[:, 4:], Cva).item()
        acc = (o[:, 4:].argmax(1) == Cva).float().mean().item()
    print("==> epoch %d eval: total_loss %.4f  cls_acc %.3f" % (epoch, vl, acc))
