# Vehicle re-identification with triplet loss only (VeRi-style): embedding MLP over image
# features (stand-in for the CNN backbone output), batch-hard triplet loss with margin 0.3,
# P x K sampling (16 identities x 4 images), Adam lr 3e-4, 2000 iterations. Every 100 iterations
# rank-1 / mAP are measured on 60 held-out vehicle identities (query vs gallery).
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
N_ID, N_IMG, DIN = 360, 16, 128
id_mean = torch.randn(N_ID, DIN)
views = torch.randn(8, DIN) * 1.2  # 8 camera viewpoints shared by all vehicles (nuisance)
view_of = torch.randint(0, 8, (N_ID, N_IMG))
X = id_mean[:, None] * 0.6 + views[view_of] + 0.8 * torch.randn(N_ID, N_IMG, DIN)
train_ids, test_ids = torch.arange(300), torch.arange(300, N_ID)

model = nn.Sequential(nn.Linear(DIN, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Linear(256, 128))
opt = torch.optim.Adam(model.parameters(), lr=3e-4)

def batch_hard_triplet(emb, labels, margin=0.3):
    d = torch.cdist(emb, emb)
    same = labels[:, None] == labels[None]
    hardest_pos = (d * same.float()).max(1).values
    hardest_neg = (d + same.float() * 1e6).min(1).values
    return F.relu(hardest_pos - hardest_neg + margin).mean()

@torch.no_grad()
def evaluate():
    model.eval()
    q = X[test_ids, 0]; g = X[test_ids, 1:].reshape(-1, DIN)
    gl = test_ids.repeat_interleave(N_IMG - 1)
    eq, eg = F.normalize(model(q), dim=1), F.normalize(model(g), dim=1)
    order = (eq @ eg.T).argsort(1, descending=True)
    match = gl[order] == test_ids[:, None]
    rank1 = match[:, 0].float().mean().item()
    cum = match.float().cumsum(1); pos = torch.arange(1, match.shape[1] + 1).float()
    ap = ((cum / pos) * match.float()).sum(1) / match.float().sum(1)
    model.train()
    return rank1, ap.mean().item()

with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["iter", "loss", "rank1", "mAP"])
    run = []
    for it in range(1, 2001):
        ids = train_ids[torch.randperm(300)[:16]]
        imgs = torch.stack([torch.randperm(N_IMG)[:4] for _ in ids])
        xb = X[ids[:, None], imgs].reshape(-1, DIN); lb = ids.repeat_interleave(4)
        loss = batch_hard_triplet(model(xb), lb)
        opt.zero_grad(); loss.backward(); opt.step()
        run.append(loss.item())
        r1 = mp = ""
        if it % 100 == 0:
            r1, mp = evaluate()
            print(f"iter {it}: triplet loss (avg last 100) {sum(run[-100:]) / 100:.4f} | rank-1 {r1:.3f} mAP {mp:.3f}")
            r1, mp = f"{r1:.4f}", f"{mp:.4f}"
        wr.writerow([it, f"{loss.item():.4f}", r1, mp])
    fh.flush()
