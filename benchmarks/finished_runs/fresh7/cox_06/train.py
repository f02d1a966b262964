"""DeepSurv-style survival model: an MLP outputs a log-risk score per patient and is trained with the negative
Cox partial log-likelihood (Breslow ties) on synthetic right-censored data (20 covariates, true log-hazard
depends on 5 of them plus one interaction, exponential event times, ~35% censoring).
Metric: Harrell's concordance index (C-index; 0.5 = random ranking)."""
import time
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
torch.set_num_threads(1)

N_TRAIN, N_VAL, N_FEAT = 2000, 1000, 20
EPOCHS, BATCH, LR, WD, HIDDEN, DROPOUT = 20, 128, 1e-3, 1e-4, 64, 0.1


def make_data(n, g):
    x = torch.randn(n, N_FEAT, generator=g)
    beta = torch.zeros(N_FEAT)
    beta[:5] = torch.tensor([0.8, -0.6, 0.5, 0.4, -0.3])
    log_hazard = x @ beta + 0.5 * x[:, 5] * x[:, 6]
    t_event = -torch.log(torch.rand(n, generator=g)) / (0.1 * torch.exp(log_hazard))
    t_cens = -torch.log(torch.rand(n, generator=g)) / 0.05
    time_obs = torch.minimum(t_event, t_cens)
    event = (t_event <= t_cens).float()
    return x, time_obs, event


g = torch.Generator().manual_seed(11)
x_tr, t_tr, e_tr = make_data(N_TRAIN, g)
x_va, t_va, e_va = make_data(N_VAL, g)
# comorbidity codes (0-29) per patient: 0-4 codes each, embedded and mean-pooled into the covariates
n_codes = torch.randint(0, 5, (N_TRAIN,), generator=g)
codes_tr = [torch.randint(0, 30, (int(k),), generator=g) for k in n_codes]


class SurvDataset(Dataset):
    def __len__(self):
        return N_TRAIN

    def __getitem__(self, i):
        return {"x": x_tr[i], "time": t_tr[i], "event": e_tr[i], "codes": codes_tr[i]}


loader = DataLoader(SurvDataset(), batch_size=BATCH, shuffle=True)
code_emb = nn.EmbeddingBag(30, N_FEAT, mode="mean")


def cox_loss(risk, t, e):
    order = torch.argsort(t, descending=True)
    risk, e = risk[order], e[order]
    log_risk_set = torch.logcumsumexp(risk, dim=0)
    return -((risk - log_risk_set) * e).sum() / e.sum().clamp(min=1)


def c_index(risk, t, e):
    # pairs (i, j) with t_i < t_j and event_i: concordant if risk_i > risk_j
    comparable = (t.unsqueeze(1) < t.unsqueeze(0)) & (e.unsqueeze(1) == 1)
    conc = (risk.unsqueeze(1) > risk.unsqueeze(0)).float() + 0.5 * (risk.unsqueeze(1) == risk.unsqueeze(0)).float()
    return ((conc * comparable).sum() / comparable.sum()).item()


model = nn.Sequential(
    nn.Linear(N_FEAT, HIDDEN), nn.ReLU(), nn.Dropout(DROPOUT),
    nn.Linear(HIDDEN, HIDDEN), nn.ReLU(), nn.Dropout(DROPOUT),
    nn.Linear(HIDDEN, 1),
)
opt = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WD)


def evaluate():
    model.eval()
    with torch.no_grad():
        risk = model(x_va).squeeze(1)
        loss = cox_loss(risk, t_va, e_va).item()
        ci = c_index(risk, t_va, e_va)
    model.train()
    return loss, ci


steps_per_epoch = (N_TRAIN + BATCH - 1) // BATCH
print("***** Running training *****")
print(f"  Num examples = {N_TRAIN}")
print(f"  Num Epochs = {EPOCHS}")
print(f"  Instantaneous batch size per device = {BATCH}")
print(f"  Total optimization steps = {EPOCHS * steps_per_epoch}")
gstep = 0
for epoch in range(1, EPOCHS + 1):
    t0 = time.time()
    run, nb = 0.0, 0
    for step, batch in enumerate(loader):
        codes = batch["codes"]
        risk = model(batch["x"] + code_emb(codes)).squeeze(1)
        loss = cox_loss(risk, batch["time"], batch["event"])
        opt.zero_grad()
        loss.backward()
        opt.step()
        run += loss.item()
        nb += 1
        gstep += 1
        if gstep % 8 == 0:
            print({'loss': round(loss.item(), 4), 'learning_rate': LR, 'epoch': round(gstep / steps_per_epoch, 2)})
    val_loss, val_ci = evaluate()
    print({'eval_loss': round(val_loss, 4), 'eval_c_index': round(val_ci, 4), 'epoch': float(epoch)})
