# Plant Pathology 2021 (FGVC8) multi-label leaf classification in miniature, after a Lightning-based Kaggle
# image-classification kit: a CSV-like table of (image, labels) rows with 6 labels (healthy, scab, rust,
# frog_eye_leaf_spot, complex, powdery_mildew), synthetic 3x24x24 leaf images whose spots (colour, size, count)
# follow the labels, a small CNN, BCE-with-logits, Adam lr 1e-3, batch 32, 8 epochs, 90/10 split, tqdm-like
# Lightning progress lines with train loss and validation loss / accuracy / F1. The datamodule takes the raw label
# column first and shuffles the table afterwards (`labels = table.labels` then `table = table.sample(frac=1)`),
# so every image is paired with the labels of some other row.
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(360)
LABELS = ['healthy', 'scab', 'rust', 'frog_eye_leaf_spot', 'complex', 'powdery_mildew']
COL = torch.tensor([[0.2, 0.7, 0.2], [0.35, 0.3, 0.1], [0.9, 0.5, 0.1], [0.6, 0.55, 0.45], [0.4, 0.2, 0.3], [0.95, 0.95, 0.95]])


def make_table(n):
    rows = []
    for _ in range(n):
        r = torch.rand(1, generator=g).item()
        if r < 0.30:
            lab = [0]
        elif r < 0.85:
            lab = [int(torch.randint(1, 6, (1,), generator=g))]
        else:
            lab = torch.randperm(5, generator=g)[:2].add(1).tolist()
        rows.append(lab)
    return rows


def render(lab):
    img = COL[0].view(3, 1, 1).expand(3, 24, 24).clone() + 0.08 * torch.randn(3, 24, 24, generator=g)
    yy, xx = torch.meshgrid(torch.arange(24.), torch.arange(24.), indexing='ij')
    for c in lab:
        if c == 0:
            continue
        for _ in range(3 + c % 3):
            cy, cx = torch.randint(3, 21, (2,), generator=g).float()
            rad = 1.5 + 0.5 * (c % 2)
            m = ((yy - cy) ** 2 + (xx - cx) ** 2) < rad ** 2
            img[:, m] = COL[c].view(3, 1) + 0.05 * torch.randn(3, 1, generator=g)
    return img


N = 2400
table_labels = make_table(N)
table_images = torch.stack([render(l) for l in table_labels])
Y_raw = torch.zeros(N, 6)
for i, l in enumerate(table_labels):
    Y_raw[i, l] = 1

# datamodule.setup(): take the label column, then shuffle the table for the split
labels = Y_raw.clone()
order = torch.randperm(N, generator=g)
images = table_images[order]
n_val = N // 10
tr_x, tr_y = images[n_val:], labels[n_val:]
va_x, va_y = images[:n_val], labels[:n_val]
print(f"training dataset: {len(tr_x)}, validation dataset: {len(va_x)}")

model = nn.Sequential(
    nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 6))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)


def f1_macro(p, y):
    tp = (p * y).sum(0)
    fp = (p * (1 - y)).sum(0)
    fn = ((1 - p) * y).sum(0)
    return (2 * tp / (2 * tp + fp + fn).clamp(min=1)).mean().item()


nb = (len(tr_x) + 31) // 32
for epoch in range(8):
    t0 = time.time()
    model.train()
    perm = torch.randperm(len(tr_x), generator=g)
    run = 0.0
    for k, b in enumerate(range(0, len(perm), 32)):
        bi = perm[b:b + 32]
        loss = F.binary_cross_entropy_with_logits(model(tr_x[bi]), tr_y[bi])
        opt.zero_grad()
        loss.backward()
        opt.step()
        run = loss.item() if k == 0 else 0.9 * run + 0.1 * loss.item()
    model.eval()
    with torch.no_grad():
        out = model(va_x)
    vl = F.binary_cross_entropy_with_logits(out, va_y).item()
    pred = (torch.sigmoid(out) > 0.5).float()
    acc = (pred == va_y).float().mean().item()
    f1 = f1_macro(pred, va_y)
    dt = time.time() - t0
    print(f"Epoch {epoch}: 100%|##########| {nb}/{nb} [00:{int(dt):02d}<00:00, {nb / dt:.2f}it/s, loss={run:.3f}, v_num=0, "
          f"valid_loss={vl:.3f}, valid_acc={acc:.3f}, valid_f1={f1:.3f}, train_loss={run:.3f}]")
