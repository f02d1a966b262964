# SpeechBrain LibriSpeech CTC recipe in miniature with an unfrozen pre-trained encoder: a small conv + BiGRU
# "wav2vec2" encoder is first pre-trained on synthetic frame-level phone targets (the stand-in for the hub
# checkpoint), then a new DNN + CTC output layer is put on top and everything is fine-tuned with two optimizers:
# Adadelta lr_model 0.9 for the head and Adam lr_wav2vec for the encoder, both annealed NewBob-style when the
# valid loss stops improving. The encoder learning rate is set to 5e-2 (the recipe's value scaled for this toy
# encoder, as far too high as 1e-4 is for wav2vec2-base). Prints the recipe's epoch line; writes metrics.csv.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(311)
V, T, D, L = 10, 48, 20, 6          # tokens (0 = blank), frames, feature dim, label length
proto = torch.randn(V, D, generator=g) * 1.2


def batch(n):
    ys, xs, fr = [], [], []
    for _ in range(n):
        lab = torch.randint(1, V, (L,), generator=g)
        dur = torch.randint(5, 9, (L,), generator=g)
        seq = torch.repeat_interleave(lab, dur)
        seq = F.pad(seq, (0, T - len(seq)), value=0)[:T]
        x = proto[seq] + 0.7 * torch.randn(T, D, generator=g)
        ys.append(lab); xs.append(x); fr.append(seq)
    return torch.stack(xs), torch.stack(ys), torch.stack(fr)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(D, 64, 3, padding=1)
        self.rnn = nn.GRU(64, 64, batch_first=True, bidirectional=True)

    def forward(self, x):
        h = F.gelu(self.conv(x.transpose(1, 2))).transpose(1, 2)
        return self.rnn(h)[0]


enc = Encoder()
# stage 0: "pre-training" (stands in for the downloaded checkpoint)
pre_head = nn.Linear(128, V)
popt = torch.optim.Adam(list(enc.parameters()) + list(pre_head.parameters()), lr=2e-3)
for step in range(120):
    x, _, fr = batch(32)
    loss = F.cross_entropy(pre_head(enc(x)).reshape(-1, V), fr.reshape(-1))
    popt.zero_grad(); loss.backward(); popt.step()
print(f'pretrained encoder frame loss {loss.item():.3f}')

head = nn.Sequential(nn.Linear(128, 128), nn.LeakyReLU(), nn.Linear(128, 128), nn.LeakyReLU(), nn.Linear(128, V))
lr_model, lr_wav2vec = 0.9, 5e-2
opt_model = torch.optim.Adadelta(head.parameters(), lr=lr_model, rho=0.95, eps=1e-8)
opt_w2v = torch.optim.Adam(enc.parameters(), lr=lr_wav2vec)
xva, yva, _ = batch(128)


def greedy_cer(logp, ys):
    errs, tot = 0, 0
    for lp, y in zip(logp, ys):
        p = lp.argmax(-1).tolist()
        hyp, prev = [], 0
        for t in p:
            if t != prev and t != 0:
                hyp.append(t)
            prev = t
        ref = y.tolist()
        d = list(range(len(hyp) + 1))
        for i, r in enumerate(ref, 1):
            nd = [i]
            for j, h in enumerate(hyp, 1):
                nd.append(min(d[j] + 1, nd[j - 1] + 1, d[j - 1] + (r != h)))
            d = nd
        errs += d[-1]; tot += len(ref)
    return 100.0 * errs / tot


def ctc(logp, ys):
    n = logp.shape[0]
    return F.ctc_loss(logp.transpose(0, 1), ys, torch.full((n,), T, dtype=torch.long),
                      torch.full((n,), L, dtype=torch.long), blank=0, zero_infinity=True)


rows, best = [], 1e9
for epoch in range(1, 11):
    enc.train(); head.train(); tl = 0.0
    for it in range(20):
        x, y, _ = batch(16)
        logp = F.log_softmax(head(enc(x)), -1)
        loss = ctc(logp, y)
        opt_model.zero_grad(); opt_w2v.zero_grad(); loss.backward()
        opt_model.step(); opt_w2v.step(); tl += loss.item()
    enc.eval(); head.eval()
    with torch.no_grad():
        lp = F.log_softmax(head(enc(xva)), -1)
        vl = ctc(lp, yva).item(); cer = greedy_cer(lp, yva)
        blank_frac = (lp.argmax(-1) == 0).float().mean().item()
    rows.append(dict(epoch=epoch, lr_model=lr_model, lr_wav2vec=lr_wav2vec, train_loss=tl / 20, valid_loss=vl,
                     valid_cer=cer, blank_frame_frac=blank_frac))
    print(f'epoch: {epoch}, lr_model: {lr_model:.2e}, lr_wav2vec: {lr_wav2vec:.2e} - train loss: {tl / 20:.2f} '
          f'- valid loss: {vl:.2f}, valid CER: {cer:.2f}')
    if vl > best * 0.9975:   # NewBob annealing
        lr_model *= 0.8; lr_wav2vec *= 0.9
        for pg in opt_model.param_groups: pg['lr'] = lr_model
        for pg in opt_w2v.param_groups: pg['lr'] = lr_wav2vec
    best = min(best, vl)
with open('metrics.csv', 'w', newline='') as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader(); w.writerows(rows)
