# LPCNet-style sample-rate vocoder in miniature: a frame-rate network turns per-frame acoustic
# features into a conditioning vector, GRU-A/GRU-B run at the sample rate over the embedded
# previous mu-law sample, and a dual fully-connected layer predicts a 256-way distribution over the
# next 8-bit mu-law sample. Adam lr 1e-3, batch 32, sequences of 4 frames x 40 samples.
# The layer setup is copied from an adaptation recipe that sets the sample-rate layers to
# non-trainable after building the model.
import csv, math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)

FRAME, NFR, NFEAT, Q = 40, 4, 6, 256

def mulaw(x):
    y = torch.sign(x) * torch.log1p(255 * x.abs()) / math.log(256.0)
    return ((y + 1) / 2 * 255).round().long().clamp(0, 255)

def make_batch(n, g):
    T = FRAME * NFR
    f0 = 0.02 + 0.06 * torch.rand(n, NFR, generator=g)          # per-frame pitch (cycles/sample)
    amp = 0.2 + 0.6 * torch.rand(n, NFR, generator=g)
    f0s = f0.repeat_interleave(FRAME, 1)
    ams = amp.repeat_interleave(FRAME, 1)
    phase = torch.cumsum(2 * math.pi * f0s, 1)
    x = ams * (0.7 * torch.sin(phase) + 0.3 * torch.sin(2 * phase)) + 0.02 * torch.randn(n, T, generator=g)
    q = mulaw(x.clamp(-1, 1))
    feats = torch.stack([f0 * 10, amp, (f0 * 10) ** 2, amp ** 2, f0 * amp * 10, torch.ones_like(f0)], -1)
    return feats, q

class LPCNetLite(nn.Module):
    def __init__(self):
        super().__init__()
        self.frame_net = nn.Sequential(nn.Conv1d(NFEAT, 64, 3, padding=1), nn.Tanh(),
                                       nn.Conv1d(64, 64, 3, padding=1), nn.Tanh())
        self.embed = nn.Embedding(Q, 32)
        self.rnn = nn.GRU(32 + 64, 96, batch_first=True)
        self.rnn2 = nn.GRU(96, 32, batch_first=True)
        self.md = nn.Linear(32, Q)   # "dual FC" output layer

    def forward(self, feats, prev):
        cond = self.frame_net(feats.transpose(1, 2)).transpose(1, 2)
        cond = cond.repeat_interleave(FRAME, 1)
        h, _ = self.rnn(torch.cat([self.embed(prev), cond], -1))
        h, _ = self.rnn2(h)
        return self.md(h)

model = LPCNetLite()
# sample-rate network layers set non-trainable (from the adaptation recipe)
model.rnn.requires_grad_(False)
model.rnn2.requires_grad_(False)
model.md.requires_grad_(False)
model.embed.requires_grad_(False)

total = sum(p.numel() for p in model.parameters())
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(f"Total params: {total}  Trainable params: {trainable}")
opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-3)

g = torch.Generator().manual_seed(1)
vfeats, vq = make_batch(128, torch.Generator().manual_seed(99))
with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["step", "epoch", "loss", "val_loss", "lr"])
    step = 0
    for epoch in range(1, 7):
        for it in range(50):
            step += 1
            feats, q = make_batch(32, g)
            prev = torch.cat([torch.full((32, 1), 128, dtype=torch.long), q[:, :-1]], 1)
            logits = model(feats, prev)
            loss = F.cross_entropy(logits.reshape(-1, Q), q.reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            vl = ""
            if step % 25 == 0:
                with torch.no_grad():
                    vprev = torch.cat([torch.full((128, 1), 128, dtype=torch.long), vq[:, :-1]], 1)
                    vl = f"{F.cross_entropy(model(vfeats, vprev).reshape(-1, Q), vq.reshape(-1)).item():.4f}"
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} val_loss {vl}")
            wr.writerow([step, epoch, f"{loss.item():.4f}", vl, 1e-3])
        fh.flush()
