# 40-class garbage-image classification head in miniature (pooled 128-d image features -> MLP),
# trained with the repo's LabelSmoothingCrossEntropy (smoothing 0.1) and a linear LR warm-up
# followed by cosine decay; Adam base lr 1e-3, batch 128, 139 iterations per epoch, 5 epochs.
# As in the report, every 10 iterations it also prints the plain nn.CrossEntropyLoss of the batch.
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)

NUM_CLASSES, BATCH, EPOCH_ITERS, EPOCHS = 40, 128, 139, 5
g = torch.Generator().manual_seed(31)
centers = torch.randn(NUM_CLASSES, 128, generator=g) * 1.2
def make(n):
    y = torch.randint(0, NUM_CLASSES, (n,), generator=g)
    return centers[y] + torch.randn(n, 128, generator=g), y
Xtr, ytr = make(BATCH * EPOCH_ITERS)
Xva, yva = make(2000)

class LabelSmoothingCrossEntropy(nn.Module):
    def __init__(self, smoothing=0.1):
        super().__init__()
        self.smoothing = smoothing
    def forward(self, x, target):
        logprobs = F.log_softmax(x, dim=-1)
        nll_loss = -logprobs.gather(dim=-1, index=target.unsqueeze(1)).squeeze(1)
        smooth_loss = -logprobs.mean(dim=-1)
        return ((1.0 - self.smoothing) * nll_loss + self.smoothing * smooth_loss).mean()

model = nn.Sequential(nn.Linear(128, 256), nn.ReLU(), nn.Dropout(0.2), nn.Linear(256, NUM_CLASSES))
criterion = LabelSmoothingCrossEntropy(0.1)
plain_ce = nn.CrossEntropyLoss()
base_lr, warmup_iters, max_iter = 1e-3, 2 * EPOCH_ITERS, EPOCHS * EPOCH_ITERS
optimizer = torch.optim.Adam(model.parameters(), lr=base_lr)

def lr_at(it):
    if it < warmup_iters:
        return base_lr * (it + 1) / warmup_iters
    return 0.5 * base_lr * (1 + math.cos(math.pi * (it - warmup_iters) / (max_iter - warmup_iters)))

iteration = 0
for epoch in range(EPOCHS):
    model.train()
    perm = torch.randperm(len(Xtr))
    for epochiter in range(EPOCH_ITERS):
        lr = lr_at(iteration)
        for pg in optimizer.param_groups:
            pg['lr'] = lr
        idx = perm[epochiter * BATCH:(epochiter + 1) * BATCH]
        out = model(Xtr[idx])
        loss = criterion(out, ytr[idx])
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        iteration += 1
        if iteration % 10 == 0:
            acc = 100.0 * (out.argmax(1) == ytr[idx]).float().mean().item()
            print(f"{loss.item()} {plain_ce(out, ytr[idx]).item()}")
            print(f"Epoch:{epoch} || epochiter: {epochiter}/{EPOCH_ITERS}|| Totel iter {iteration} || Loss: {loss.item():.6f}||ACC: {acc:.3f} ||LR: {lr:.8f}")
    model.eval()
    with torch.no_grad():
        vo = model(Xva)
        print(f"==> val: smoothing loss {criterion(vo, yva).item():.4f}  CE {plain_ce(vo, yva).item():.4f}  acc {100*(vo.argmax(1)==yva).float().mean().item():.2f}")
