"""Topic classifier for synthetic token sequences: one attention-pooling layer over token embeddings,
concatenated with an EmbeddingBag mean, then a linear head."""
import time
import warnings
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

SEED = 0
LR = 0.002
BATCH_SIZE = 32
EPOCHS = 8
WEIGHT_DECAY = 0.0
VOCAB = 800
N_CLASSES = 4
MAX_LEN = 40
EMB_DIM = 32
N_TOTAL = 3600
VAL_FRACTION = 0.2
DROPOUT = 0.1
LOG_EVERY = 20

torch.set_num_threads(1)
torch.manual_seed(SEED)

# each topic has 12 keyword ids; documents are random tokens with 3 keywords of their topic planted
keywords = (torch.randperm(VOCAB - 1)[: N_CLASSES * 12] + 1).view(N_CLASSES, 12)


def make_corpus():
    # documents are read topic by topic (as they come out of the per-topic folders)
    per_class = N_TOTAL // N_CLASSES
    labels = torch.arange(N_CLASSES).repeat_interleave(per_class)
    n = len(labels)
    lengths = torch.randint(12, MAX_LEN + 1, (n,))
    tokens = torch.randint(1, VOCAB, (n, MAX_LEN))
    for _ in range(3):
        pos = (torch.rand(n) * lengths).long()
        tokens[torch.arange(n), pos] = keywords[labels, torch.randint(0, 12, (n,))]
    mask = torch.arange(MAX_LEN).unsqueeze(0) < lengths.unsqueeze(1)
    tokens = tokens * mask
    return tokens, labels


tokens, labels = make_corpus()
is_val = torch.rand(len(labels)) < VAL_FRACTION
X_train, y_train = tokens[~is_val], labels[~is_val]
X_val, y_val = tokens[is_val], labels[is_val]
print(f"vocab={VOCAB} train={len(y_train)} val={len(y_val)} avg_len={(X_train > 0).sum(1).float().mean():.1f}")
train_loader = DataLoader(TensorDataset(X_train, y_train), batch_size=BATCH_SIZE, shuffle=False)
val_loader = DataLoader(TensorDataset(X_val, y_val), batch_size=300)
steps_per_epoch = len(train_loader)


class AttnPoolClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, EMB_DIM, padding_idx=0)
        self.bag = nn.EmbeddingBag(VOCAB, EMB_DIM, mode="mean", padding_idx=0)
        self.att_proj = nn.Linear(EMB_DIM, 32)
        self.att_v = nn.Linear(32, 1, bias=False)
        self.dropout = nn.Dropout(DROPOUT)
        self.fc = nn.Linear(2 * EMB_DIM, N_CLASSES)

    def forward(self, tok):
        e = self.emb(tok)
        scores = self.att_v(torch.tanh(self.att_proj(e))).squeeze(-1)
        scores = scores.masked_fill(tok == 0, -1e9)
        attn = torch.softmax(scores, dim=1)
        pooled = (attn.unsqueeze(-1) * e).sum(1)
        h = torch.cat([pooled, self.bag(tok)], dim=1)
        return self.fc(self.dropout(h))


model = AttnPoolClassifier()
criterion = nn.CrossEntropyLoss()


def forward_loss(batch):
    xb, yb = batch
    logits = model(xb)
    loss = criterion(logits, yb)
    acc = (logits.argmax(1) == yb).float().mean().item()
    return loss, acc, len(yb)


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
        if step % LOG_EVERY == 0:
            print(f"[epoch {epoch}][iter {step}/{steps_per_epoch}] loss={loss_val:.4f} acc={metric:.3f} lr={optimizer.param_groups[0]['lr']:.2e}")
    train_loss, train_metric = run_loss / run_n, run_metric / run_n
    t_eval = time.time()
    val_loss, val_metric = evaluate()
    eval_time = time.time() - t_eval
    epoch_time = time.time() - t0
    lr_now = optimizer.param_groups[0]["lr"]
    print(f"[epoch {epoch}] done in {epoch_time:.1f}s | train_loss={train_loss:.4f} val_loss={val_loss:.4f} val_acc={val_metric:.4f}")
