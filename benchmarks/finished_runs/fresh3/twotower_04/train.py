"""Two-tower click model: a user tower (id embedding + MLP) and an item tower (id + category
embeddings + MLP); the score is the dot product of the two towers. Synthetic interactions
are drawn from hidden user/item factors, labels are Bernoulli clicks."""
import json
import math
import time
import warnings
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

with open(Path(__file__).with_name("config.json")) as f:
    cfg = json.load(f)

SEED = cfg["seed"]
LR = cfg["lr"]
WEIGHT_DECAY = cfg["weight_decay"]
BATCH_SIZE = cfg["batch_size"]
EPOCHS = cfg["epochs"]
LOG_EVERY = cfg["log_every"]
EMB_DIM = cfg["emb_dim"]
N_TRAIN = cfg["n_train"]
N_VAL = cfg["n_val"]
N_USERS, N_ITEMS, N_CATS, TRUE_DIM = 200, 150, 12, 6

torch.set_num_threads(1)
torch.manual_seed(SEED)
print(json.dumps(cfg, indent=2))

g = torch.Generator().manual_seed(2024)
U_TRUE = torch.randn(N_USERS, TRUE_DIM, generator=g)
V_TRUE = torch.randn(N_ITEMS, TRUE_DIM, generator=g)
ITEM_CAT = torch.randint(0, N_CATS, (N_ITEMS,), generator=g)
CAT_BIAS = torch.randn(N_CATS, generator=g)


def sample_interactions(n, seed):
    gen = torch.Generator().manual_seed(seed)
    u = torch.randint(0, N_USERS, (n,), generator=gen)
    i = torch.randint(0, N_ITEMS, (n,), generator=gen)
    logit = 3.0 * (U_TRUE[u] * V_TRUE[i]).sum(-1) / math.sqrt(TRUE_DIM) + 0.5 * CAT_BIAS[ITEM_CAT[i]]
    y = torch.bernoulli(torch.sigmoid(logit), generator=gen)
    return u, i, y


u_tr, i_tr, y_tr = sample_interactions(N_TRAIN, SEED + 11)
u_va, i_va, y_va = sample_interactions(N_VAL, SEED + 12)
train_loader = DataLoader(TensorDataset(u_tr, i_tr, y_tr), batch_size=BATCH_SIZE, shuffle=True)
val_loader = DataLoader(TensorDataset(u_va, i_va, y_va), batch_size=1024)
steps_per_epoch = len(train_loader)
print(f"{len(y_tr)} train / {len(y_va)} val interactions, click rate {y_tr.mean():.3f}")


class TwoTower(nn.Module):
    def __init__(self):
        super().__init__()
        self.user_emb = nn.Embedding(N_USERS, EMB_DIM)
        self.item_emb = nn.Embedding(N_ITEMS, EMB_DIM)
        self.cat_emb = nn.Embedding(N_CATS, 8)
        self.user_tower = nn.Sequential(nn.Linear(EMB_DIM, 64), nn.ReLU(), nn.Linear(64, EMB_DIM))
        self.item_tower = nn.Sequential(nn.Linear(EMB_DIM + 8, 64), nn.ReLU(), nn.Linear(64, EMB_DIM))
        self.bias = nn.Parameter(torch.zeros(1))

    def forward(self, u, i):
        uvec = self.user_tower(self.user_emb(u))
        ivec = self.item_tower(torch.cat([self.item_emb(i), self.cat_emb(ITEM_CAT[i])], dim=-1))
        return (uvec * ivec).sum(-1) + self.bias


model = TwoTower()
model = model.half()  # fp16 weights: halves the embedding tables
print(model)
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)


def forward_loss(batch):
    u, i, y = batch
    logits = model(u, i)
    loss = F.binary_cross_entropy_with_logits(logits, y.half())
    acc = ((logits > 0).float() == y).float().mean().item()
    return loss, {"acc": acc}, len(y)


@torch.no_grad()
def evaluate():
    model.eval()
    tot_loss, tot_acc, tot_n = 0.0, 0.0, 0
    for batch in val_loader:
        loss, metrics, n = forward_loss(batch)
        tot_loss += loss.item() * n
        tot_acc += metrics["acc"] * n
        tot_n += n
    return tot_loss / tot_n, {"acc": tot_acc / tot_n}

import logging

logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s", datefmt="%m/%d/%Y %H:%M:%S", level=logging.INFO)
logger = logging.getLogger("train")
logger.info("***** Running training *****")
logger.info("  Num examples = %d", len(train_loader.dataset))
logger.info("  Num epochs = %d", EPOCHS)
logger.info("  Batch size = %d", train_loader.batch_size)
logger.info("  Total optimization steps = %d", EPOCHS * steps_per_epoch)
for epoch in range(1, EPOCHS + 1):
    model.train()
    run_loss, run_n = 0.0, 0
    for step, batch in enumerate(train_loader, 1):
        optimizer.zero_grad()
        loss, metrics, n = forward_loss(batch)
        loss.backward()
        optimizer.step()
        run_loss += loss.item() * n
        run_n += n
        if step % LOG_EVERY == 0:
            logger.info("epoch %d step %d/%d loss %.4f lr %.2e", epoch, step, steps_per_epoch, loss.item(), optimizer.param_groups[0]["lr"])
    val_loss, val_metrics = evaluate()
    logger.info("epoch %d done | train_loss %.4f | val_loss %.4f | %s", epoch, run_loss / run_n, val_loss, " | ".join(f"val_{k} {v:.4f}" for k, v in val_metrics.items()))
logger.info("Training completed.")
