# Singing-voice-separation RNN in miniature (MIR-1K style): 3-layer GRU (hidden 64) reads mixture magnitude
# spectrogram frames (64 bins, 40-frame clips) and outputs two soft masks (voice / accompaniment, normalised
# to sum to one) applied to the mixture; loss = mean squared error of both masked estimates against the true
# source magnitudes, summed over bins. The accompaniment contains a broadband random part that overlaps the
# voice harmonics and cannot be told apart from the mixture alone, so the loss has an irreducible floor.
# Adam 1e-3, batch 32, 600 steps, validation every 50 steps. Writes metrics.csv and prints like the repo.
import csv
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(305)
F_, T_ = 64, 40


def clips(n):
    bins = torch.arange(F_).float()
    voice = torch.zeros(n, T_, F_); acc = torch.zeros(n, T_, F_)
    for i in range(n):
        f0 = 3 + 4 * float(torch.rand(1, generator=g))
        vib = torch.sin(torch.arange(T_).float() / 3 + float(torch.rand(1, generator=g)) * 6) * 0.4
        for h in range(1, 8):
            centre = (f0 + vib) * h
            voice[i] += torch.exp(-(bins - centre.unsqueeze(1)) ** 2 / 0.8) / h ** 0.5
        on = (torch.rand(T_, generator=g) > 0.25).float().unsqueeze(1)
        voice[i] *= on * (0.8 + 0.4 * torch.rand(1, generator=g))
        tilt = torch.exp(-bins / (20 + 20 * float(torch.rand(1, generator=g))))
        acc[i] = tilt * (0.6 + 0.3 * torch.rand(T_, 1, generator=g)) + 0.35 * torch.rand(T_, F_, generator=g)
    return voice + acc, voice, acc


mix_tr, v_tr, a_tr = clips(800)
mix_va, v_va, a_va = clips(200)


class SVSRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(F_, 64, num_layers=3, batch_first=True)
        self.out = nn.Linear(64, 2 * F_)

    def forward(self, m):
        h, _ = self.rnn(torch.log1p(m))
        y = torch.relu(self.out(h)).view(m.size(0), m.size(1), 2, F_) + 1e-6
        masks = y / y.sum(2, keepdim=True)
        return masks[:, :, 0] * m, masks[:, :, 1] * m


def loss_fn(pv, pa, v, a):
    return (((pv - v) ** 2).sum(-1) + ((pa - a) ** 2).sum(-1)).mean()


model = SVSRNN()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
rows = []
for step in range(1, 601):
    model.train()
    idx = torch.randint(0, len(mix_tr), (32,), generator=g)
    pv, pa = model(mix_tr[idx])
    loss = loss_fn(pv, pa, v_tr[idx], a_tr[idx])
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 50 == 0:
        model.eval()
        with torch.no_grad():
            vv, va = model(mix_va)
            vloss = loss_fn(vv, va, v_va, a_va).item()
            tv, ta = model(mix_tr[:200])
            tloss = loss_fn(tv, ta, v_tr[:200], a_tr[:200]).item()
        print(f'Step: {step} Train Loss: {loss.item():.4f} (train eval {tloss:.4f}) Validation Loss: {vloss:.4f}')
        rows.append(dict(step=step, train_loss=loss.item(), train_eval_loss=tloss, val_loss=vloss))
with open('metrics.csv', 'w', newline='') as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
