# I-AutoRec (Sedhain, Menon, Sanner & Xie, "AutoRec: Autoencoders Meet Collaborative Filtering", WWW 2015):
# each item is a partially observed vector of ratings by all users; a one-hidden-layer autoencoder
# (sigmoid encoder, identity decoder) reconstructs it, and the loss is the squared error on OBSERVED
# ratings only plus an L2 penalty (lambda/2)*||W||^2. Synthetic MovieLens-like data: 400 users x 240 items,
# ratings 1-5 from a rank-6 taste model plus noise, about 12% observed, 90/10 split of the observed ratings.
# Test RMSE is computed on held-out ratings, predictions clipped to [1, 5] as in the paper's evaluation.
# Metrics printed as one JSON dict per line.
import json
import time
import torch
import torch.nn as nn

torch.set_num_threads(1)
torch.manual_seed(15)

N_USERS, N_ITEMS, RANK = 400, 240, 6
DENSITY = 0.3
HIDDEN = 200
LAMBDA = 5.0
LR = 3e-3
BATCH = 16
EPOCHS = 40

g = torch.Generator().manual_seed(2015)
U = torch.randn(N_USERS, RANK, generator=g)
V = torch.randn(N_ITEMS, RANK, generator=g)
bu = 0.4 * torch.randn(N_USERS, generator=g)
bi = 0.5 * torch.randn(N_ITEMS, generator=g)
score = 3.5 + bu[:, None] + bi[None, :] + 0.45 * (U @ V.T) + 0.3 * torch.randn(N_USERS, N_ITEMS, generator=g)
R = score.round().clamp(1, 5).T.contiguous()                 # items x users
observed = torch.rand(N_ITEMS, N_USERS, generator=g) < DENSITY
is_test = torch.rand(N_ITEMS, N_USERS, generator=g) < 0.1
M_train = (observed & ~is_test).float()
M_test = (observed & is_test).float()
R_train = R * M_train                                        # unobserved entries are 0
print(json.dumps({"users": N_USERS, "items": N_ITEMS, "train_ratings": int(M_train.sum()),
                  "test_ratings": int(M_test.sum()), "mean_rating": round(float(R[observed].mean()), 4)}))


class AutoRec(nn.Module):
    def __init__(self, n_in, hidden):
        super().__init__()
        self.encoder = nn.Linear(n_in, hidden)
        self.decoder = nn.Linear(hidden, n_in)

    def forward(self, r):
        return self.decoder(torch.sigmoid(self.encoder(r)))


model = AutoRec(N_USERS, HIDDEN)
opt = torch.optim.Adam(model.parameters(), lr=LR)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=20, gamma=0.5)
print(json.dumps({"model": "I-AutoRec", "hidden": HIDDEN, "params": sum(p.numel() for p in model.parameters()),
                  "lambda": LAMBDA, "lr": LR, "batch": BATCH, "epochs": EPOCHS}))


def loss_fn(pred, r, m):
    return ((pred - r) ** 2 * m).sum()


def evaluate():
    with torch.no_grad():
        pred = model(R_train).clamp(1, 5)
        tr = ((pred - R) ** 2 * M_train).sum() / M_train.sum()
        te = ((pred - R) ** 2 * M_test).sum() / M_test.sum()
    return tr.sqrt().item(), te.sqrt().item()


step = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    model.train()
    perm = torch.randperm(N_ITEMS)
    tot = 0.0
    for i in range(0, N_ITEMS, BATCH):
        idx = perm[i:i + BATCH]
        r, m = R_train[idx], M_train[idx]
        pred = model(r)
        reg = LAMBDA / 2 * (model.encoder.weight.pow(2).sum() + model.decoder.weight.pow(2).sum())
        loss = loss_fn(pred, r, m) + reg
        loss.backward()
        opt.step()
        tot += loss.item()
        step += 1
    sched.step()
    tr_rmse, te_rmse = evaluate()
    print(json.dumps({"epoch": epoch, "step": step, "loss": round(tot / ((N_ITEMS + BATCH - 1) // BATCH), 4),
                      "train_rmse": round(tr_rmse, 4), "test_rmse": round(te_rmse, 4),
                      "lr": opt.param_groups[0]["lr"], "elapsed_s": round(time.time() - t0, 2)}))
print(json.dumps({"final_test_rmse": round(te_rmse, 4), "best": "n/a"}))
