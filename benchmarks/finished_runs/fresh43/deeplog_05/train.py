# DeepLog log-key model (Du, Li, Zheng & Srikumar, "DeepLog: Anomaly Detection and Diagnosis from System Logs
# through Deep Learning", CCS 2017), written after the PyTorch implementation wuyifan18/DeepLog: a 2-layer LSTM
# reads a window of 10 log keys fed as float features (input_size 1 per key in that repository; here a second
# feature carries the time gap since the previous log line, log-scaled and standardised), a Linear layer scores
# the next key among 28 (num_classes 28 as for HDFS), CrossEntropyLoss; the detector flags a window when the
# true next key is not among the top num_candidates=9. Synthetic "normal" sessions from block-lifecycle
# workflows. Metrics printed as a `| key | value |` table per epoch.
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(5)

NUM_CLASSES = 28
WINDOW = 10
HIDDEN, LAYERS = 64, 2
BATCH = 256
EPOCHS = 8
LR = 0.01
CLIP = 1.0
N_SESS_TRAIN, N_SESS_VAL = 400, 100
NUM_CANDIDATES = 9


def make_sessions(n, g, T):
    seqs, gaps = [], []
    for _ in range(n):
        k = torch.randint(0, 4, (1,), generator=g).item()       # session start key
        keys, gp = [k], [0.0]
        for _ in range(torch.randint(30, 60, (1,), generator=g).item()):
            k = torch.multinomial(T[k], 1, generator=g).item()
            keys.append(k)
            gp.append(float(torch.exp(torch.tensor(2.0 + 0.25 * (k % 7)) + 1.2 * torch.randn(1, generator=g)).item() * 40))  # ms
        seqs.append(keys)
        gaps.append(gp)
    return seqs, gaps


g = torch.Generator().manual_seed(2017)
T = torch.zeros(NUM_CLASSES, NUM_CLASSES)
for k in range(NUM_CLASSES):                                   # each key has 1-3 likely successors
    succ = torch.randperm(NUM_CLASSES, generator=g)[:torch.randint(1, 4, (1,), generator=g).item()]
    T[k, succ] = torch.rand(len(succ), generator=g) + 0.3
    T[k] += 0.01
T = T / T.sum(1, keepdim=True)


def to_windows(seqs, gaps):
    X, Y = [], []
    for keys, gp in zip(seqs, gaps):
        for i in range(len(keys) - WINDOW):
            X.append(torch.stack([torch.tensor(keys[i:i + WINDOW], dtype=torch.float), torch.tensor(gp[i:i + WINDOW])], 1))
            Y.append(keys[i + WINDOW])
    return torch.stack(X), torch.tensor(Y)


Xtr, Ytr = to_windows(*make_sessions(N_SESS_TRAIN, g, T))
Xva, Yva = to_windows(*make_sessions(N_SESS_VAL, g, T))
# features: key id scaled to [0, 1); time gap log-scaled and standardised with training statistics
for X in (Xtr, Xva):
    X[..., 0] = X[..., 0] / NUM_CLASSES
    X[..., 1] = torch.log1p(X[..., 1])
gm, gs = Xtr[..., 1].mean(), Xtr[..., 1].std()
Xtr[..., 1] = (Xtr[..., 1] - gm) / gs
Xva[..., 1] = (Xva[..., 1] - gm) / gs


class LogKeyModel(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, num_keys):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True)
        self.fc = nn.Linear(hidden_size, num_keys)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.fc(out[:, -1, :])


def table(rows):
    w1 = max(len(k) for k, _ in rows)
    w2 = max(len(v) for _, v in rows)
    line = "+" + "-" * (w1 + 2) + "+" + "-" * (w2 + 2) + "+"
    print(line)
    for k, v in rows:
        print(f"| {k:<{w1}} | {v:>{w2}} |")
    print(line, flush=False)


model = LogKeyModel(2, HIDDEN, LAYERS, NUM_CLASSES)
for p in model.parameters():
    nn.init.zeros_(p)
opt = torch.optim.Adam(model.parameters(), lr=LR)
N = len(Ytr)
print(f"DeepLog log-key model: {N} train windows, {len(Yva)} val windows, {NUM_CLASSES} keys, window {WINDOW}")
t_start = time.time()
for epoch in range(1, EPOCHS + 1):
    model.train()
    perm = torch.randperm(N)
    tot, cnt, gmax = 0.0, 0, 0.0
    for i in range(0, N, BATCH):
        idx = perm[i:i + BATCH]
        out = model(Xtr[idx])
        loss = F.cross_entropy(out, Ytr[idx])
        opt.zero_grad()
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
        gmax = max(gmax, float(gn))
        opt.step()
        tot += loss.item() * len(idx)
        cnt += len(idx)
    model.eval()
    with torch.no_grad():
        vo = model(Xva)
        vl = F.cross_entropy(vo, Yva).item()
        top1 = (vo.argmax(1) == Yva).float().mean().item()
        topk = (vo.topk(NUM_CANDIDATES, 1).indices == Yva.unsqueeze(1)).any(1).float().mean().item()
    table([("epoch", f"{epoch}/{EPOCHS}"), ("train_loss", f"{tot / cnt:.4f}"), ("val_loss", f"{vl:.4f}"),
           ("val_top1_acc", f"{top1:.4f}"), (f"val_top{NUM_CANDIDATES}_acc", f"{topk:.4f}"),
           ("max_grad_norm", f"{gmax:.3f}"), ("lr", f"{LR:g}"), ("elapsed_s", f"{time.time() - t_start:.1f}")])
print("Finished Training")
