# A speech-enhancement model trained with torch_stoi's NegSTOILoss as it was before the fix of May 2021
# (torch_stoi/stoi.py, MIT licence, Manuel Pariente; pystoi's constants and thirdoct() copied in): the
# one-third-octave band magnitudes are computed as torch.matmul(OBM, |STFT|^2).pow(0.5) with no EPS, so a band
# whose energy is exactly zero gives an infinite derivative. A small time-domain masking network
# (Conv1d stack -> sigmoid mask, estimate = mask * noisy) on synthetic 10 kHz "speech" (harmonic voiced segments
# with syllable-rate envelope and pauses) plus white noise at 0 dB; utterances are 1.5 s, a few are shorter and
# zero-padded in the batch (digital silence in the mixture, hence in the estimate). Adam 1e-3, batch 8, 2 epochs.
import numpy as np
import torch
from torch import nn
from torch.nn.functional import unfold, pad

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)

# pystoi.stoi constants
FS = 10000; N_FRAME = 256; NUMBAND = 15; MINFREQ = 150; N = 30; BETA = -15.; DYN_RANGE = 40
EPS = 1e-8

def thirdoct(fs, nfft, num_bands, min_freq):
    """ pystoi.utils.thirdoct: one-third octave band matrix """
    f = np.linspace(0, fs, nfft + 1)
    f = f[:int(nfft / 2) + 1]
    k = np.array(range(num_bands)).astype(float)
    cf = np.power(2. ** (1. / 3), k) * min_freq
    freq_low = min_freq * np.power(2., (2 * k - 1) / 6)
    freq_high = min_freq * np.power(2., (2 * k + 1) / 6)
    obm = np.zeros((num_bands, len(f)))
    for i in range(len(cf)):
        f_bin = np.argmin(np.square(f - freq_low[i])); freq_low[i] = f[f_bin]; fl_ii = f_bin
        f_bin = np.argmin(np.square(f - freq_high[i])); freq_high[i] = f[f_bin]; fh_ii = f_bin
        obm[i, fl_ii:fh_ii] = 1
    return obm, cf

def meanvar_norm(x, mask=None, dim=-1):
    x = x - masked_mean(x, dim=dim, mask=mask, keepdim=True)
    x = x / (masked_norm(x, p=2, dim=dim, keepdim=True, mask=mask) + EPS)
    return x

def masked_mean(x, dim=-1, mask=None, keepdim=False):
    if mask is None:
        return x.mean(dim=dim, keepdim=keepdim)
    return (x * mask).sum(dim=dim, keepdim=keepdim) / (mask.sum(dim=dim, keepdim=keepdim) + EPS)

def masked_norm(x, p=2, dim=-1, mask=None, keepdim=False):
    if mask is None:
        return torch.norm(x, p=p, dim=dim, keepdim=keepdim)
    return torch.norm(x * mask, p=p, dim=dim, keepdim=keepdim)

class NegSTOILoss(nn.Module):
    """ torch_stoi.NegSTOILoss (v0.1.2), sample_rate == FS so no resampling, use_vad=True, extended=False """
    def __init__(self, sample_rate=FS, use_vad=True):
        super().__init__()
        self.sample_rate = sample_rate
        self.use_vad = use_vad
        self.intel_frames = N
        self.beta = BETA
        self.dyn_range = DYN_RANGE
        self.win_len = (N_FRAME * sample_rate) // FS
        self.nfft = 2 * self.win_len
        win = torch.from_numpy(np.hanning(self.win_len + 2)[1:-1]).float()
        self.win = nn.Parameter(win, requires_grad=False)
        obm_mat = thirdoct(sample_rate, self.nfft, NUMBAND, MINFREQ)[0]
        self.OBM = nn.Parameter(torch.from_numpy(obm_mat).float(), requires_grad=False)

    def forward(self, est_targets, targets):
        x_spec = self.stft(targets, self.win, self.nfft, overlap=2)
        y_spec = self.stft(est_targets, self.win, self.nfft, overlap=2)
        # Apply OB matrix to the spectrograms as in Eq. (1)
        x_tob = torch.matmul(self.OBM, torch.norm(x_spec, 2, -1) ** 2).pow(0.5)
        y_tob = torch.matmul(self.OBM, torch.norm(y_spec, 2, -1) ** 2).pow(0.5)
        # Perform N-frame segmentation --> (batch, 15, N, n_chunks)
        batch = targets.shape[0]
        x_seg = unfold(x_tob.unsqueeze(2), kernel_size=(1, self.intel_frames),
                       stride=(1, 1)).view(batch, x_tob.shape[1], N, -1)
        y_seg = unfold(y_tob.unsqueeze(2), kernel_size=(1, self.intel_frames),
                       stride=(1, 1)).view(batch, y_tob.shape[1], N, -1)
        mask = self.detect_silent_frames(targets, self.dyn_range, self.win_len, self.win_len // 2)
        mask = pad(mask, [0, x_tob.shape[-1] - mask.shape[-1]])
        mask_f = unfold(mask.unsqueeze(2).float(), kernel_size=(1, self.intel_frames),
                        stride=(1, 1)).view(batch, 1, N, -1)
        norm_const = (masked_norm(x_seg, dim=2, keepdim=True, mask=mask_f) /
                      (masked_norm(y_seg, dim=2, keepdim=True, mask=mask_f) + EPS))
        y_seg_normed = y_seg * norm_const
        clip_val = 10 ** (-self.beta / 20)
        y_prim = torch.min(y_seg_normed, x_seg * (1 + clip_val))
        y_prim = meanvar_norm(y_prim, dim=2, mask=mask_f)
        x_seg = meanvar_norm(x_seg, dim=2, mask=mask_f)
        corr_comp = y_prim * x_seg
        correction = x_seg.shape[1] * x_seg.shape[-1]
        sum_over = list(range(1, x_seg.ndim))
        corr_comp = corr_comp * mask_f
        correction = correction * mask_f.mean() + EPS
        return - torch.sum(corr_comp, dim=sum_over) / correction

    @staticmethod
    def detect_silent_frames(x, dyn_range, framelen, hop):
        x_frames = unfold(x[:, None, None, :], kernel_size=(1, framelen), stride=(1, hop))[..., :-1]
        x_energies = 20 * torch.log10(torch.norm(x_frames, dim=1, keepdim=True) + EPS)
        mask = (torch.max(x_energies, dim=2, keepdim=True)[0] - dyn_range - x_energies) < 0
        return mask

    @staticmethod
    def stft(x, win, fft_size, overlap=4):
        win_len = win.shape[0]
        hop = int(win_len / overlap)
        x_padded = torch.nn.functional.pad(x, pad=[0, hop])
        spec = torch.stft(x_padded, fft_size, hop_length=hop, window=win, center=False,
                          win_length=win_len, return_complex=True)
        return torch.view_as_real(spec)

# ---------------- synthetic data ----------------
rng = np.random.RandomState(1)
SEG = 15000  # 1.5 s at 10 kHz

def synth_speech(n):
    t = np.arange(n) / FS
    f0 = rng.uniform(100, 220) * (1 + 0.1 * np.sin(2 * np.pi * rng.uniform(0.5, 2) * t))
    phase = 2 * np.pi * np.cumsum(f0) / FS
    s = sum((1.0 / h) * np.sin(h * phase + rng.uniform(0, 6.28)) for h in range(1, 12))
    env = np.clip(np.sin(2 * np.pi * rng.uniform(3, 5) * t + rng.uniform(0, 6.28)), 0, None) ** 1.5
    gate = np.repeat(rng.rand(n // 1000 + 1) > 0.25, 1000)[:n]
    return (s * env * gate).astype(np.float32)

class SpeechSet(torch.utils.data.Dataset):
    def __init__(self, n_utt, short_idx):
        self.items = []
        for i in range(n_utt):
            L = int(rng.uniform(0.8, 1.3) * FS) if i in short_idx else SEG
            clean = synth_speech(L)
            clean = clean / (np.abs(clean).max() + 1e-6) * 0.5
            noise = rng.randn(L).astype(np.float32)
            noise *= np.sqrt((clean ** 2).mean() / (noise ** 2).mean())   # 0 dB SNR
            self.items.append((clean + noise, clean))
    def __len__(self):
        return len(self.items)
    def __getitem__(self, i):
        return self.items[i]

def collate_pad(batch):
    L = max(len(m) for m, _ in batch)
    mix = torch.zeros(len(batch), L); cln = torch.zeros(len(batch), L)
    for i, (m, c) in enumerate(batch):
        mix[i, :len(m)] = torch.from_numpy(m); cln[i, :len(c)] = torch.from_numpy(c)
    return mix, cln

train_set = SpeechSet(160, short_idx={57, 121})
val_set = SpeechSet(24, short_idx=set())
train_loader = torch.utils.data.DataLoader(train_set, batch_size=8, shuffle=True, collate_fn=collate_pad)
val_loader = torch.utils.data.DataLoader(val_set, batch_size=8, shuffle=False, collate_fn=collate_pad)

class MaskNet(nn.Module):
    def __init__(self, ch=16, k=17):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv1d(1, ch, k, padding=k // 2), nn.ReLU(),
            nn.Conv1d(ch, ch, k, padding=k // 2, dilation=1), nn.ReLU(),
            nn.Conv1d(ch, ch, k, padding=(k // 2) * 2, dilation=2), nn.ReLU(),
            nn.Conv1d(ch, 1, 1))
    def forward(self, mix):
        mask = torch.sigmoid(self.net(mix.unsqueeze(1))).squeeze(1)
        return mask * mix

model = MaskNet()
loss_func = NegSTOILoss(sample_rate=FS)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
print(model)
print('n_params: %d' % sum(p.numel() for p in model.parameters()))

with torch.no_grad():
    base = torch.cat([loss_func(m, c) for m, c in val_loader]).mean().item()
print('val_loss of the unprocessed mixture: %.4f' % base)

step = 0
was_finite = True
for epoch in range(1, 3):
    model.train()
    running = []
    for i, (mix, clean) in enumerate(train_loader):
        est = model(mix)
        loss = loss_func(est, clean).mean()
        optimizer.zero_grad()
        loss.backward()
        gnorm = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()]))
        optimizer.step()
        step += 1
        running.append(loss.item())
        if i % 4 == 0 or (torch.isfinite(gnorm) != was_finite):
            was_finite = bool(torch.isfinite(gnorm))
            print('Epoch %d [%d/%d] step %d  loss: %.4f  grad_norm: %.4f' % (
                epoch, i, len(train_loader), step, loss.item(), gnorm.item()))
    model.eval()
    with torch.no_grad():
        val = torch.cat([loss_func(model(m), c) for m, c in val_loader]).mean().item()
    print('Epoch %d done  train_loss: %.4f  val_loss: %.4f' % (epoch, float(np.mean(running)), val))
