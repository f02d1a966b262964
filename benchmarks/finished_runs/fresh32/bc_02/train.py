"""Behaviour cloning of a shortest-path expert in random 7x7 grid mazes (imitation learning as supervised learning).
Each maze has walls with density 0.22 (regenerated until the goal is reachable from the start); the expert's action
(up/down/left/right) at a cell is a step along a BFS shortest path to the goal, ties broken in a fixed order. The
observation is a 3x7x7 grid (walls, agent, goal). Training states are every state visited along the expert's
trajectories in 700 mazes; validation: action accuracy on the expert states of 150 other mazes and the success rate
of greedy roll-outs of the learned policy from their start cells (goal reached within 24 steps). Policy: two 3x3
convs with ReLU, flatten, a 64-unit hidden layer with dropout, 4 action logits, cross-entropy (chance accuracy
0.25).
"""
import math
import random
import sys
import time
from collections import deque
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
random.seed(0)
H = W = 7
N_MAZES_TR, N_MAZES_VA = 700, 150
LR, BATCH, EPOCHS = 0.0005, 16, 8
DROPOUT = 0.2
MOVES = [(-1, 0), (1, 0), (0, -1), (0, 1)]

rng = random.Random(3)


def bfs_dist(walls, goal):
    dist = [[-1] * W for _ in range(H)]
    dist[goal[0]][goal[1]] = 0
    q = deque([goal])
    while q:
        r, c = q.popleft()
        for dr, dc in MOVES:
            nr, nc = r + dr, c + dc
            if 0 <= nr < H and 0 <= nc < W and not walls[nr][nc] and dist[nr][nc] < 0:
                dist[nr][nc] = dist[r][c] + 1
                q.append((nr, nc))
    return dist


def expert_action(dist, pos):
    r, c = pos
    for a, (dr, dc) in enumerate(MOVES):
        nr, nc = r + dr, c + dc
        if 0 <= nr < H and 0 <= nc < W and dist[nr][nc] == dist[r][c] - 1 and dist[nr][nc] >= 0:
            return a
    return 0


def make_maze():
    while True:
        walls = [[rng.random() < 0.22 for _ in range(W)] for _ in range(H)]
        free = [(r, c) for r in range(H) for c in range(W) if not walls[r][c]]
        start, goal = rng.sample(free, 2)
        dist = bfs_dist(walls, goal)
        if dist[start[0]][start[1]] >= 4:
            return walls, start, goal, dist


def obs(walls, pos, goal):
    o = torch.zeros(3, H, W)
    o[0] = torch.tensor(walls, dtype=torch.float)
    o[1, pos[0], pos[1]] = 1.0
    o[2, goal[0], goal[1]] = 1.0
    return o


def demos(n_mazes):
    X, Y, mazes = [], [], []
    for _ in range(n_mazes):
        walls, start, goal, dist = make_maze()
        mazes.append((walls, start, goal))
        pos = start
        while pos != goal:
            a = expert_action(dist, pos)
            X.append(obs(walls, pos, goal))
            Y.append(a)
            pos = (pos[0] + MOVES[a][0], pos[1] + MOVES[a][1])
    return torch.stack(X), torch.tensor(Y), mazes


Xtr, Ytr, _ = demos(N_MAZES_TR)
Xva, Yva, VAL_MAZES = demos(N_MAZES_VA)
N_TRAIN, N_VAL = len(Xtr), len(Xva)
N_BATCHES = math.ceil(N_TRAIN / BATCH)


class Policy(nn.Module):
    def __init__(self, p=DROPOUT):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 32, 3, padding=1)
        self.fc = nn.Linear(32 * H * W, 64)
        self.drop = nn.Dropout(p)
        self.head = nn.Linear(64, 4)

    def forward(self, x):
        h = F.relu(self.conv1(x))
        h = F.relu(self.conv2(h))
        h = F.relu(self.fc(h.flatten(1)))
        return self.head(self.drop(h))


def rollout_success(max_steps=24):
    pos = [m[1] for m in VAL_MAZES]
    done = [False] * len(VAL_MAZES)
    for _ in range(max_steps):
        o = torch.stack([obs(m[0], p, m[2]) for m, p in zip(VAL_MAZES, pos)])
        act = model(o).argmax(1).tolist()
        for k, (m, p) in enumerate(zip(VAL_MAZES, pos)):
            if done[k]:
                continue
            nr, nc = p[0] + MOVES[act[k]][0], p[1] + MOVES[act[k]][1]
            if 0 <= nr < H and 0 <= nc < W and not m[0][nr][nc]:
                pos[k] = (nr, nc)
            if pos[k] == m[2]:
                done[k] = True
    return sum(done) / len(done)


model = Policy()
opt = torch.optim.Adam(model.parameters(), lr=LR)
LOG_EVERY = 100


def log_start(info):
    print(f"Engine run starting with max_epochs={info['epochs']}.")


def log_step(ep, i, n, loss, lr, extra):
    if i % LOG_EVERY == 0:
        print(f"Epoch[{ep}] Iteration[{(ep - 1) * n + i}/{n * EPOCHS}] Loss: {loss:.2f}")


def log_epoch(ep, E, m):
    print(f"Training Results - Epoch: {ep}  Avg accuracy: {m['ta']:.2f} Avg loss: {m['tl']:.2f}")
    print(f"Validation Results - Epoch: {ep}  Avg accuracy: {m['vm']:.2f} Avg loss: {m['vl']:.2f} Success rate: {m['success']:.2f}")
    print(f"Epoch[{ep}] Complete. Time taken: 00:00:{m['secs']:06.3f}")


def log_end(m, hist):
    print(f"Engine run complete. Time taken: 00:{int(m['el']) // 60:02d}:{m['el'] % 60:06.3f}")


def train_batches():
    perm = torch.randperm(N_TRAIN)
    for i in range(0, N_TRAIN, BATCH):
        idx = perm[i:i + BATCH]
        yield Xtr[idx], Ytr[idx]


def step_fn(batch):
    x, y = batch
    opt.zero_grad()
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    loss.backward()
    opt.step()
    return loss.item(), {"acc": (logits.argmax(1) == y).float().mean().item()}


def evaluate():
    logits = model(Xva)
    vl = F.cross_entropy(logits, Yva).item()
    acc = (logits.argmax(1) == Yva).float().mean().item()
    return vl, acc, {"success": rollout_success()}


def run_epochs():
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    log_start({"n_params": n_params, "n_train": N_TRAIN, "n_val": N_VAL, "lr": LR, "batch": BATCH, "epochs": EPOCHS,
               "n_batches": N_BATCHES})
    t_start = time.time()
    best = None
    step = 0
    hist = []
    for ep in range(1, EPOCHS + 1):
        t0 = time.time()
        model.train()
        tot, nb, accs = 0.0, 0, 0.0
        t_data = 0.0
        t_last = time.time()
        for i, batch in enumerate(train_batches(), 1):
            t_data += time.time() - t_last
            loss, extra = step_fn(batch)
            step += 1
            tot += loss
            nb += 1
            accs += extra.get("acc", 0.0)
            if i % LOG_EVERY == 0 or i == N_BATCHES:
                extra = dict(extra)
                extra.update({"step": step, "elapsed": time.time() - t_start, "data_time": t_data / i,
                              "iter_time": (time.time() - t0) / i})
                log_step(ep, i, N_BATCHES, loss, opt.param_groups[0]["lr"], extra)
            t_last = time.time()
        model.eval()
        with torch.no_grad():
            res = evaluate()
        vl, vm = res[0], res[1]
        improved = best is None or vm > best
        if improved:
            best = vm
        m = {"ep": ep, "tl": tot / nb, "ta": accs / nb, "vl": vl, "vm": vm, "lr": opt.param_groups[0]["lr"],
             "secs": time.time() - t0, "el": time.time() - t_start, "best": best, "improved": improved, "step": step,
             "nb": nb}
        if len(res) > 2:
            m.update(res[2])
        hist.append(m)
        log_epoch(ep, EPOCHS, m)
    log_end(m, hist)


run_epochs()
