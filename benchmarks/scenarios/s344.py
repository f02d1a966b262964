# Triplet-loss image embedding in miniature, after omoindrot/tensorflow-triplet-loss (batch-hard online mining,
# margin 0.5, Euclidean distances, no L2 normalisation of the embedding): synthetic 16x16 grayscale "object" images
# of 24 identities (each a random smooth blob pattern, seen through random crops with up to 4 pixels of shift,
# brightness jitter and pixel noise as data augmentation), a small VGG-style CNN (3 blocks of two 3x3 conv-BN-ReLU
# layers and max pooling) with a 256-unit hidden layer and a 128-d linear embedding, Adam lr 3e-2, batches of 96
# (12 identities x 8 images), 10 epochs of 20 steps. Prints the batch-hard triplet loss, the mean pairwise embedding
# distance and the fraction of triplets still active per epoch, plus 1-NN retrieval accuracy of 480 held-out query
# images against a 240-image gallery; writes metrics.csv.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(335)
NID, MARGIN = 24, 0.5
protos = F.avg_pool2d(torch.rand(NID, 1, 20, 20, generator=g), 3, 1, 1)
protos = (protos - protos.mean((2, 3), keepdim=True)) / protos.std((2, 3), keepdim=True)


def sample(ids):
    n = len(ids)
    x = torch.empty(n, 1, 16, 16)
    for k in range(n):
        i, j = torch.randint(0, 5, (2,), generator=g).tolist()
        im = protos[ids[k], :, i:i + 16, j:j + 16]
        if False:
            im = im.flip(-1)
        x[k] = im
    x = x * (0.8 + 0.4 * torch.rand(n, 1, 1, 1, generator=g)) + 0.3 * torch.randn(n, 1, 16, 16, generator=g)
    return x


def block(i, o):
    return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(), nn.Conv2d(o, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(), nn.MaxPool2d(2))


model = nn.Sequential(block(1, 32), block(32, 64), block(64, 128), nn.Flatten(), nn.Linear(128 * 4, 256), nn.ReLU(), nn.Linear(256, 128))


def batch_hard(emb, y):
    d = torch.cdist(emb, emb)
    same = y[:, None] == y[None, :]
    eye = torch.eye(len(y), dtype=torch.bool)
    hardest_pos = (d * (same & ~eye)).max(1).values
    hardest_neg = (d + d.max() * same).min(1).values
    tl = F.relu(hardest_pos - hardest_neg + MARGIN)
    return tl.mean(), (tl > 1e-6).float().mean(), d[~eye].mean()


gal_y = torch.arange(NID).repeat_interleave(10)
qry_y = torch.arange(NID).repeat_interleave(20)
gal_x, qry_x = sample(gal_y), sample(qry_y)
opt = torch.optim.Adam(model.parameters(), lr=3e-2)
rows = []
for epoch in range(1, 11):
    model.train()
    L, A, D = [], [], []
    for step in range(20):
        ids = torch.randperm(NID, generator=g)[:12].repeat_interleave(8)
        loss, active, dist = batch_hard(model(sample(ids)), ids)
        opt.zero_grad(); loss.backward(); opt.step()
        L.append(loss.item()); A.append(active.item()); D.append(dist.item())
    model.eval()
    with torch.no_grad():
        eg, eq = model(gal_x), model(qry_x)
        nn1 = torch.cdist(eq, eg).argmin(1)
        acc = (gal_y[nn1] == qry_y).float().mean().item()
    r = dict(epoch=epoch, triplet_loss=sum(L) / len(L), mean_pairwise_dist=sum(D) / len(D), active_triplets=sum(A) / len(A), val_1nn_acc=acc)
    rows.append(r)
    print(f"epoch {epoch:2d} loss {r['triplet_loss']:.4f} | mean pairwise dist {r['mean_pairwise_dist']:.4f} | active triplets {r['active_triplets']:.3f} | val 1-NN acc {acc:.3f}")
with open('metrics.csv', 'w', newline='') as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
