# ARISE-Initiative/robomimic BC-Transformer-GMM (the robocasa branch's bc_xfmr config) in miniature: a small
# causal transformer over windows of 10 low-dimensional observations (end-effector position, object position,
# gripper state) with a GMM action head (5 modes, softplus std with min_std 1e-4, tanh on the means),
# trained by maximum likelihood (Loss = -Log_Likelihood of the 7-d demonstrated actions), Adam lr 1e-4 with a
# linear warm-up over the first epoch, batch 64, 30 epochs of 25 gradient steps, on 60 synthetic scripted
# "reach and grasp" demonstrations of 60 steps; "validate": false as in the config; robomimic-style
# "Train Epoch N" + JSON log blocks.
import csv, json, math, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F
import torch.distributions as D

np.random.seed(5); torch.manual_seed(5); torch.set_num_threads(1)
N_DEMOS, T, SEQ, ACT, MODES = 60, 60, 10, 7, 5
obs_list, act_list = [], []
for d in range(N_DEMOS):
    eef = np.random.uniform(-0.3, 0.3, 3); obj = np.random.uniform(-0.3, 0.3, 3); grip = np.array([0.04, -0.04])
    for t in range(T):
        delta = np.clip(5.0 * (obj - eef), -1, 1)
        close = np.linalg.norm(obj - eef) < 0.03
        a = np.concatenate([delta, np.zeros(3), [1.0 if close else -1.0]]) + np.random.randn(7) * np.array([0.05] * 3 + [0.02] * 3 + [0.0])
        obs_list.append(np.concatenate([eef, obj, grip])); act_list.append(np.clip(a, -1, 1))
        eef = eef + 0.04 * delta + np.random.randn(3) * 0.002
        if close: grip = np.array([0.0, 0.0])
obs = torch.tensor(np.array(obs_list), dtype=torch.float32).view(N_DEMOS, T, 8)
acts = torch.tensor(np.array(act_list), dtype=torch.float32).view(N_DEMOS, T, ACT)
windows = [(d, t) for d in range(N_DEMOS) for t in range(T - SEQ + 1)]

class TransformerGMMActor(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.embed = nn.Linear(8, dim); self.pos = nn.Parameter(torch.zeros(1, SEQ, dim))
        layer = nn.TransformerEncoderLayer(dim, 4, 4 * dim, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.mean = nn.Linear(dim, MODES * ACT); self.scale = nn.Linear(dim, MODES * ACT); self.logits = nn.Linear(dim, MODES)
        self.register_buffer('mask', torch.triu(torch.full((SEQ, SEQ), float('-inf')), 1))
    def forward(self, o):
        h = self.encoder(self.embed(o) + self.pos, mask=self.mask)
        means = torch.tanh(self.mean(h)).view(*h.shape[:2], MODES, ACT)
        scales = F.softplus(self.scale(h)).view(*h.shape[:2], MODES, ACT) + 1e-4
        comp = D.Independent(D.Normal(means, scales), 1)
        return D.MixtureSameFamily(D.Categorical(logits=self.logits(h)), comp)

policy = TransformerGMMActor()
opt = torch.optim.Adam(policy.parameters(), lr=1e-4)
steps_per_epoch, warmup = 25, 25
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warmup))
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f); wr.writerow(['epoch', 'loss', 'log_likelihood', 'grad_norm'])
print('\n============= Training Dataset =============')
print(f'SequenceDataset (\n\tpath=synthetic_reach_grasp.hdf5\n\tobs_keys=(\'robot0_eef_pos\', \'obj_pos\', \'robot0_gripper_qpos\')\n\tseq_length={SEQ}\n\tn_demos={N_DEMOS}\n)\n')
for epoch in range(1, 31):
    t0 = time.time(); policy.train(); losses, gnorms = [], []
    for step in range(steps_per_epoch):
        idx = np.random.randint(0, len(windows), 64)
        o = torch.stack([obs[windows[i][0], windows[i][1]:windows[i][1] + SEQ] for i in idx])
        a = torch.stack([acts[windows[i][0], windows[i][1]:windows[i][1] + SEQ] for i in idx])
        dist = policy(o); log_prob = dist.log_prob(a).mean(); loss = -log_prob
        opt.zero_grad(); loss.backward()
        gn = sum(p.grad.pow(2).sum() for p in policy.parameters() if p.grad is not None).sqrt().item()
        opt.step(); sched.step(); losses.append(loss.item()); gnorms.append(gn)
    info = {'Log_Likelihood': -float(np.mean(losses)), 'Loss': float(np.mean(losses)),
            'Optimizer/policy0_lr': opt.param_groups[0]['lr'], 'Policy_Grad_Norms': float(np.mean(gnorms)),
            'Time_Epoch': (time.time() - t0) / 60.0}
    print(f'Train Epoch {epoch}'); print(json.dumps(info, sort_keys=True, indent=4), flush=True)
    wr.writerow([epoch, info['Loss'], info['Log_Likelihood'], info['Policy_Grad_Norms']]); f.flush()
