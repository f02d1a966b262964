"""Siamese embedding network trained with a contrastive loss on pairs of synthetic feature vectors
(same identity vs. different identity), evaluated by pair-verification accuracy."""
import time
import warnings
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

SEED = 0
LR = 0.001
BATCH_SIZE = 64
EPOCHS = 10
WEIGHT_DECAY = 0.0
MARGIN = 1.0
FEAT_DIM = 32
EMB_DIM = 16
N_IDENTITIES = 12
N_TRAIN_PAIRS = 4000
N_VAL_PAIRS = 1000
LOG_EVERY = 20

torch.set_num_threads(1)
torch.manual_seed(SEED)
print(f"torch {torch.__version__} | device: cpu | seed {SEED}")

# one prototype per identity; every sample is a noisy view of its identity's prototype
prototypes = 0.8 * torch.randn(N_IDENTITIES, FEAT_DIM)


def make_pairs(n):
    a_ids = torch.randint(0, N_IDENTITIES, (n,))
    same = torch.rand(n) < 0.5
    other = (a_ids + torch.randint(1, N_IDENTITIES, (n,))) % N_IDENTITIES
    b_ids = torch.where(same, a_ids, other)
    xa = prototypes[a_ids] + torch.randn(n, FEAT_DIM)
    xb = prototypes[b_ids] + torch.randn(n, FEAT_DIM)
    # append squared features (helps the distance metric)
    xa = torch.cat([xa, xa.pow(2)], dim=1)
    xb = torch.cat([xb, xb.pow(2)], dim=1)
    return xa, xb, same.float()


class PairDataset(Dataset):
    def __init__(self, n_pairs):
        self.xa, self.xb, self.same = make_pairs(n_pairs)

    def __len__(self):
        return len(self.same)

    def __getitem__(self, i):
        return self.xa[i], self.xb[i], self.same[i]


train_set = PairDataset(N_TRAIN_PAIRS)
val_set = PairDataset(N_VAL_PAIRS)
print(f"pairs: train={len(train_set)} val={len(val_set)} (positive rate {train_set.same.mean():.3f})")
train_loader = DataLoader(train_set, batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(val_set, batch_size=500)
steps_per_epoch = len(train_loader)


class EmbeddingNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(FEAT_DIM, 64),
            nn.ReLU(),
            nn.Linear(64, 64),
            nn.ReLU(),
            nn.Linear(64, EMB_DIM),
        )

    def forward(self, x):
        return self.net(x)


def contrastive_loss(ea, eb, same):
    d = F.pairwise_distance(ea, eb)
    return 0.5 * (same * d.pow(2) + (1 - same) * F.relu(MARGIN - d).pow(2)).mean()


model = EmbeddingNet()
print(f"EmbeddingNet: {sum(p.numel() for p in model.parameters()):,} parameters")


def forward_loss(batch):
    xa, xb, same = batch
    ea, eb = model(xa), model(xb)
    loss = contrastive_loss(ea, eb, same)
    pred_same = (F.pairwise_distance(ea, eb) < MARGIN / 2).float()
    acc = (pred_same == same).float().mean().item()
    return loss, acc, len(same)


optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)


@torch.no_grad()
def evaluate():
    model.eval()
    tot_loss, tot_metric, tot_n = 0.0, 0.0, 0
    for batch in val_loader:
        loss, metric, n = forward_loss(batch)
        tot_loss += loss.item() * n
        tot_metric += metric * n
        tot_n += n
    return tot_loss / tot_n, tot_metric / tot_n


print("| epoch | train_loss | train_pair_acc | val_loss | val_pair_acc |       lr |  time |")
print("|------:|-----------:|----------:|---------:|--------:|---------:|------:|")
global_step = 0
t_start = time.time()
for epoch in range(1, EPOCHS + 1):
    model.train()
    t0 = time.time()
    run_loss, run_metric, run_n = 0.0, 0.0, 0
    for step, batch in enumerate(train_loader, 1):
        optimizer.zero_grad()
        loss, metric, n = forward_loss(batch)
        loss.backward()
        optimizer.step()
        global_step += 1
        loss_val = loss.item()
        run_loss += loss_val * n
        run_metric += metric * n
        run_n += n
    train_loss, train_metric = run_loss / run_n, run_metric / run_n
    t_eval = time.time()
    val_loss, val_metric = evaluate()
    eval_time = time.time() - t_eval
    epoch_time = time.time() - t0
    lr_now = optimizer.param_groups[0]["lr"]
    print(f"| {epoch:>5} | {train_loss:>10.4f} | {train_metric:>9.4f} | {val_loss:>8.4f} | {val_metric:>7.4f} | {lr_now:>8.2e} | {epoch_time:>4.1f}s |")

with torch.no_grad():
    emb = model(val_set.xa[:200])
    print(f"embedding norm: mean {emb.norm(dim=1).mean():.3f} std {emb.norm(dim=1).std():.3f}")
