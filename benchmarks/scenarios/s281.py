# Remote-sensing segmentation in miniature (geo-deep-learning style sample preparation): 32x32 sample
# tiles are cut from large 4-band scenes with a high overlap (stride 4 px, i.e. 87.5% overlap), and the
# automatic split then assigns tiles at random to trn / val, so neighbouring, nearly identical tiles
# land on both sides. A small fully-convolutional net (building vs background), Adam 1e-3, batch 32,
# 10 epochs; the 'tst' tiles come from a separate scene, as in the project's test set.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(91)

def scene(H=128):
    lab = torch.zeros(H, H)
    for _ in range(40):
        y, x = torch.randint(0, H - 8, (2,), generator=g); h, w = torch.randint(3, 9, (2,), generator=g)
        lab[y:y + h, x:x + w] = 1
    tex = F.avg_pool2d(torch.randn(1, 4, H, H, generator=g), 5, 1, 2)[0] * 3
    img = tex + 0.6 * lab[None] * torch.tensor([1.0, 0.4, -0.3, 0.8])[:, None, None] + 0.5 * torch.randn(4, H, H, generator=g)
    return img, lab
def tiles(img, lab, stride):
    xs, ys = [], []
    for y in range(0, img.size(1) - 32 + 1, stride):
        for x in range(0, img.size(2) - 32 + 1, stride):
            xs.append(img[:, y:y + 32, x:x + 32]); ys.append(lab[y:y + 32, x:x + 32])
    return torch.stack(xs), torch.stack(ys).long()
A_img, A_lab = scene(); B_img, B_lab = scene()
X, Y = tiles(A_img, A_lab, 4)
perm = torch.randperm(len(X), generator=g)
n_val = len(X) // 5
Xva, Yva, Xtr, Ytr = X[perm[:n_val]], Y[perm[:n_val]], X[perm[n_val:]], Y[perm[n_val:]]
Xte, Yte = tiles(B_img, B_lab, 32)
print('samples: trn {}, val {}, tst {}'.format(len(Xtr), len(Xva), len(Xte)))

net = nn.Sequential(nn.Conv2d(4, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(),
                    nn.Conv2d(64, 64, 3, padding=2, dilation=2), nn.ReLU(), nn.Conv2d(64, 2, 1))
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
def iou(out, y):
    p = out.argmax(1); inter = ((p == 1) & (y == 1)).sum().item(); uni = ((p == 1) | (y == 1)).sum().item()
    return inter / max(uni, 1)
for epoch in range(10):
    net.train(); tl, n = 0.0, 0
    order = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr), 32):
        idx = order[i:i + 32]
        out = net(Xtr[idx]); loss = F.cross_entropy(out, Ytr[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        tl += loss.item() * len(idx); n += len(idx)
    net.eval()
    with torch.no_grad():
        ov = net(Xva); ot = net(Xte)
        print('Epoch {} - trn Loss: {:.4f} - val Loss: {:.4f} val iou: {:.4f} - tst Loss: {:.4f} tst iou: {:.4f}'.format(
            epoch, tl / n, F.cross_entropy(ov, Yva).item(), iou(ov, Yva), F.cross_entropy(ot, Yte).item(), iou(ot, Yte)))
