"""SimCLR-style contrastive pre-training with the InfoNCE / NT-Xent loss on synthetic unlabeled vectors.
Each 64-dim sample mixes 32 "content" features (a nonlinear view of one of 10 latent class prototypes) with 32
high-variance nuisance features. Two augmented views (feature dropout, jitter, freshly re-drawn nuisance
features) of each sample are positives; the other 2N-2 views in the batch are negatives. Labels are used only
for evaluation: k-NN (k=5) accuracy of validation embeddings against the training embeddings."""
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)

N_TRAIN, N_VAL, CLASSES, CONTENT, NUISANCE = 4000, 1000, 10, 32, 32
EPOCHS, BATCH, LR, TEMP = 25, 256, 1e-3, 0.2

g = torch.Generator().manual_seed(5)
protos = torch.randn(CLASSES, 8, generator=g) * 1.0
mix = torch.randn(8, CONTENT, generator=g) / 8 ** 0.5


def make_data(n):
    y = torch.randint(CLASSES, (n,), generator=g)
    z = protos[y] + 0.7 * torch.randn(n, 8, generator=g)
    content = torch.tanh(z @ mix) * 2
    nuisance = 3.0 * torch.randn(n, NUISANCE, generator=g)
    return torch.cat([content, nuisance], 1), y


x_tr, y_tr = make_data(N_TRAIN)
x_va, y_va = make_data(N_VAL)


def augment(x):
    keep = (torch.rand(x.shape[0], CONTENT) > 0.2).float()
    content = x[:, :CONTENT] * keep + 0.15 * torch.randn(x.shape[0], CONTENT)
    nuisance = 3.0 * torch.randn(x.shape[0], NUISANCE)
    return torch.cat([content, nuisance], 1)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(CONTENT + NUISANCE, 128), nn.ReLU(), nn.Linear(128, 64))
        self.head = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 32))

    def forward(self, x):
        h = self.backbone(x)
        return h, self.head(h)


def info_nce(z1, z2, temp):
    z = F.normalize(torch.cat([z1, z2]), dim=1)
    sim = z @ z.t() / temp
    n = z1.shape[0]
    sim.fill_diagonal_(float("-inf"))
    probs = sim.softmax(dim=1)  # similarity -> probability over the 2N-1 candidates
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    return F.cross_entropy(probs, targets)


def knn_acc(model, k=5):
    model.eval()
    with torch.no_grad():
        bank = F.normalize(model(x_tr)[0], dim=1)
        q = F.normalize(model(x_va)[0], dim=1)
        idx = (q @ bank.t()).topk(k, dim=1).indices
        votes = F.one_hot(y_tr[idx], CLASSES).sum(1)
        acc = (votes.argmax(1) == y_va).float().mean().item()
        zv1, zv2 = model(augment(x_va))[1], model(augment(x_va))[1]
        vloss = info_nce(zv1[:BATCH], zv2[:BATCH], TEMP).item()
    model.train()
    return acc, vloss


model = Encoder()
opt = torch.optim.Adam(model.parameters(), lr=LR)
steps_per_epoch = N_TRAIN // BATCH
gstep = 0
for epoch in range(1, EPOCHS + 1):
    t0 = time.time()
    perm = torch.randperm(N_TRAIN)
    run, nb = 0.0, 0
    for step in range(steps_per_epoch):
        xb = x_tr[perm[step * BATCH:(step + 1) * BATCH]]
        _, z1 = model(augment(xb))
        _, z2 = model(augment(xb))
        loss = info_nce(z1, z2, TEMP)
        opt.zero_grad()
        loss.backward()
        opt.step()
        run += loss.item()
        nb += 1
        gstep += 1
        if gstep % 5 == 0:
            print({'loss': round(loss.item(), 4), 'grad_norm': round(sum(p.grad.norm() ** 2 for p in model.parameters()).sqrt().item(), 4), 'learning_rate': LR, 'epoch': round(gstep / steps_per_epoch, 2)})
    acc, vloss = knn_acc(model)
    print({'eval_loss': round(vloss, 4), 'eval_knn_acc': round(acc, 4), 'eval_runtime': round(time.time() - t0, 4), 'epoch': float(epoch)})
