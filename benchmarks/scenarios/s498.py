# wangtianrui/DCCRN issue "Training & val loss" in miniature: the repository's training setup (asteroid
# System on pytorch-lightning; loss = -si_snr(est, clean); Adam lr 0.001; ReduceLROnPlateau(factor 0.5,
# patience 3, verbose) on val_loss ("half_lr"), EarlyStopping(monitor="val_loss", patience=20) and a
# ModelCheckpoint keeping the top 5 by val_loss) with a small real-valued STFT mask network (encoder
# convs, LSTM, complex ratio mask) in place of DCCRN, on synthetic noisy/clean pairs (harmonic "speech"
# plus coloured noise at -5..10 dB SNR, 1 s at 8 kHz, 192 training and 48 validation clips) instead of
# DNS-Challenge data, batch 8 instead of 2, 20 epochs instead of 1000. Lightning-style epoch lines
# (progress bar at 100% with loss and val_loss) and the callbacks' verbose lines are printed.
import csv, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
SR, N = 8000, 8000
rs = np.random.RandomState(0)

def clip():
    t = np.arange(N) / SR
    f0 = rs.uniform(90, 250) * (1 + 0.08 * np.sin(2 * np.pi * rs.uniform(0.5, 3) * t))
    ph = 2 * np.pi * np.cumsum(f0) / SR
    speech = sum(np.sin(k * ph + rs.uniform(0, 6.28)) * rs.uniform(0.3, 1) / k for k in range(1, 8))
    speech *= (np.sin(2 * np.pi * rs.uniform(1.5, 4) * t + rs.uniform(0, 6.28)) > -0.2)
    noise = np.convolve(rs.randn(N + 15), rs.uniform(-1, 1, 16), 'valid')
    snr = rs.uniform(-5, 10)
    noise *= np.sqrt((speech ** 2).mean() / (noise ** 2).mean() / 10 ** (snr / 10))
    return (speech + noise).astype(np.float32), speech.astype(np.float32)

tr = [clip() for _ in range(192)]; va = [clip() for _ in range(48)]
Xtr = torch.tensor(np.stack([a for a, b in tr])); Ytr = torch.tensor(np.stack([b for a, b in tr]))
Xva = torch.tensor(np.stack([a for a, b in va])); Yva = torch.tensor(np.stack([b for a, b in va]))

def si_snr(s1, s2, eps=1e-8):                         # as model.si_snr in the repository
    s1 = s1 - s1.mean(-1, keepdim=True); s2 = s2 - s2.mean(-1, keepdim=True)
    s_target = (s1 * s2).sum(-1, keepdim=True) * s2 / ((s2 ** 2).sum(-1, keepdim=True) + eps)
    e_noise = s1 - s_target
    return (10 * torch.log10((s_target ** 2).sum(-1) / ((e_noise ** 2).sum(-1) + eps) + eps)).mean()

def loss(inputs, label): return -(si_snr(inputs, label))

class MaskNet(nn.Module):                             # stand-in for DCCRN (n_fft 512, win 400, hop 100 -> 256/200/50)
    def __init__(self, n_fft=256, win=200, hop=50, H=96):
        super().__init__(); self.n_fft, self.win, self.hop = n_fft, win, hop
        self.register_buffer('window', torch.hann_window(win))
        F_ = n_fft // 2 + 1
        self.enc = nn.Sequential(nn.Conv1d(F_, H, 3, padding=1), nn.PReLU(), nn.Conv1d(H, H, 3, padding=1), nn.PReLU())
        self.lstm = nn.LSTM(H, H, batch_first=True)
        self.out = nn.Linear(H, 2 * F_)
        with torch.no_grad(): self.out.bias[:F_] = 2.0           # start close to a pass-through mask
    def forward(self, x):
        spec = torch.stft(x, self.n_fft, self.hop, self.win, self.window, return_complex=True)      # [B, F, T]
        mag = torch.log1p(spec.abs())
        h = self.enc(mag).transpose(1, 2); h, _ = self.lstm(h)
        m = self.out(h).transpose(1, 2); mr, mi = m.chunk(2, 1)
        mask = torch.tanh(torch.sqrt(mr ** 2 + mi ** 2 + 1e-8)) * torch.exp(1j * torch.atan2(mi, mr + 1e-8))   # DCCRN "E" mask
        return torch.istft(spec * mask, self.n_fft, self.hop, self.win, self.window, length=x.shape[-1])

model = MaskNet()
optimizer = torch.optim.Adam(model.parameters(), lr=0.001, weight_decay=0.)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5, patience=3)
batch_size, epochs, n_batches = 8, 20, len(Xtr) // 8
print('  | Name      | Type    | Params\n-----------------------------------------\n0 | model     | MaskNet | %d\n1 | loss_func | function | 0' % sum(p.numel() for p in model.parameters()))
top_k, best, wait = [], float('inf'), 0
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['epoch', 'step', 'loss', 'val_loss', 'lr'])
for epoch in range(epochs):
    model.train(); perm = torch.randperm(len(Xtr)); t0 = time.time(); run = []
    for i in range(n_batches):
        idx = perm[i * batch_size:(i + 1) * batch_size]
        lo = loss(model(Xtr[idx]), Ytr[idx])
        optimizer.zero_grad(); lo.backward(); optimizer.step(); run.append(lo.item())
        wr.writerow([epoch, epoch * n_batches + i, round(lo.item(), 4), '', optimizer.param_groups[0]['lr']])
    model.eval()
    with torch.no_grad():
        val_loss = float(np.mean([loss(model(Xva[j:j + 8]), Yva[j:j + 8]).item() for j in range(0, len(Xva), 8)]))
    dt = time.time() - t0
    print('Epoch %d: 100%%|##########| %d/%d [00:%02d<00:00, %.2fit/s, loss=%.3f, v_num=0, val_loss=%.3f]'
          % (epoch, n_batches + 6, n_batches + 6, min(dt, 59), (n_batches + 6) / dt, np.mean(run[-20:]), val_loss))
    wr.writerow([epoch, (epoch + 1) * n_batches, '', round(val_loss, 4), optimizer.param_groups[0]['lr']])
    if len(top_k) < 5 or val_loss < max(top_k):
        top_k = sorted(top_k + [val_loss])[:5]
        print('Epoch %05d: val_loss reached %.5f (best %.5f), saving model to logs/_ckpt_epoch_%d.ckpt as top 5'
              % (epoch, val_loss, min(top_k), epoch))
    else:
        print('Epoch %05d: val_loss  was not in top 5' % epoch)
    old_lr = optimizer.param_groups[0]['lr']; scheduler.step(val_loss)
    if optimizer.param_groups[0]['lr'] < old_lr:
        print('Epoch %5d: reducing learning rate of group 0 to %.4e.' % (epoch, optimizer.param_groups[0]['lr']))
    if val_loss < best: best, wait = val_loss, 0
    else:
        wait += 1
        if wait >= 20: print('Epoch %05d: early stopping' % epoch); break
    import sys; sys.stdout.flush()
