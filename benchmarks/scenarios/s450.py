# seungwonpark/melgan trainer on a custom data set, in miniature: 240 mono 22050 Hz wav pieces (synthetic
# voiced/noisy audio standing in for a podcast split on silence with sox, lengths 0.7-3 s), the last 24
# used for validation; the training Dataset takes a random segment_length = 16000 sample crop of each
# wav and the matching mel frames (hop 256, 80 mels), DataLoader batch_size 16 with shuffle=False as in
# the report; a small MelGAN-like generator (conv stack + transposed-conv upsampling x256) and a
# single-scale waveform discriminator trained with the LSGAN losses + feature matching (x10), Adam
# 1e-4 (betas 0.5, 0.9); a validation loop over the 24 held-out pieces first, then tqdm-like
# "g ... d ... | step N" lines.
import math, sys
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

np.random.seed(4); torch.manual_seed(4); torch.set_num_threads(1)
SR, SEG, HOP = 22050, 16000, 256
lengths = np.random.randint(int(0.75 * SR), int(3 * SR), 240)
lengths[[37, 129, 211]] = [15986, 15700, 15872]     # a few pieces sox cut just under segment_length
def synth(n, seed):
    r = np.random.RandomState(seed); t = np.arange(n) / SR
    f0 = r.uniform(90, 220); env = np.abs(np.sin(2 * np.pi * r.uniform(1, 4) * t))
    return (0.3 * env * np.sin(2 * np.pi * f0 * t) + 0.05 * r.randn(n)).astype(np.float32)
wavs = [synth(n, i) for i, n in enumerate(lengths)]
mel_basis = torch.relu(torch.randn(80, 513)).mul(0.05)
def mel(audio):
    spec = torch.stft(audio, 1024, HOP, 1024, torch.hann_window(1024), center=False, return_complex=True).abs()
    return torch.log(torch.clamp(mel_basis @ spec, min=1e-5))

class MelFromDisk(Dataset):
    def __init__(self, wav_list, train):
        self.wavs, self.train = wav_list, train
    def __len__(self):
        return len(self.wavs)
    def __getitem__(self, idx):
        audio = torch.tensor(self.wavs[idx])
        if self.train:
            max_start = max(audio.size(0) - SEG, 0)
            start = np.random.randint(0, max_start + 1)
            audio = audio[start:start + SEG]
        m = mel(F.pad(audio, (0, 1024 - HOP)))
        return m, audio[:m.size(-1) * HOP].unsqueeze(0)

trainloader = DataLoader(MelFromDisk(wavs[:216], True), batch_size=16, shuffle=False, num_workers=0, drop_last=True)
valloader = DataLoader(MelFromDisk(wavs[216:], False), batch_size=1, shuffle=False)

class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        layers = [nn.Conv1d(80, 128, 7, padding=3)]
        ch = 128
        for r in (8, 8, 4):
            layers += [nn.LeakyReLU(0.2), nn.ConvTranspose1d(ch, ch // 2, 2 * r, r, padding=r // 2 + r % 2, output_padding=r % 2)]; ch //= 2
        layers += [nn.LeakyReLU(0.2), nn.Conv1d(ch, 1, 7, padding=3), nn.Tanh()]
        self.net = nn.Sequential(*layers)
    def forward(self, m):
        return self.net(m)

class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Conv1d(1, 16, 15, 4, 7), nn.Conv1d(16, 64, 41, 4, 20, groups=4),
                                     nn.Conv1d(64, 64, 41, 4, 20, groups=16), nn.Conv1d(64, 1, 3, 1, 1)])
    def forward(self, x):
        feats = []
        for i, l in enumerate(self.layers):
            x = l(x); x = F.leaky_relu(x, 0.2) if i < 3 else x; feats.append(x)
        return feats

print('2019-10-24 23:06:54,795 - INFO - Starting new training run.')
G, D = Generator(), Discriminator()
optim_g = torch.optim.Adam(G.parameters(), lr=1e-4, betas=(0.5, 0.9)); optim_d = torch.optim.Adam(D.parameters(), lr=1e-4, betas=(0.5, 0.9))
with torch.no_grad():
    total = 0.0
    for m, a in valloader:
        fake = G(m)[..., :a.size(-1)]; total += F.l1_loss(fake, a).item()
print(f'Validation loop: 100%| {len(valloader)}/{len(valloader)}  avg l1 {total / len(valloader):.4f}', flush=True)
out = open('metrics.csv', 'w'); out.write('step,loss_g,loss_d\n')
step = 0
for epoch in range(3):
    for m, a in trainloader:
        fake = G(m)[..., :a.size(-1)]
        feats_fake = D(fake.detach()); feats_real = D(a)
        loss_d = ((feats_real[-1] - 1) ** 2).mean() + (feats_fake[-1] ** 2).mean()
        optim_d.zero_grad(); loss_d.backward(); optim_d.step()
        feats_fake = D(fake); feats_real = D(a)
        loss_g = ((feats_fake[-1] - 1) ** 2).mean() + 10 * sum(F.l1_loss(ff, fr.detach()) for ff, fr in zip(feats_fake[:-1], feats_real[:-1]))
        optim_g.zero_grad(); loss_g.backward(); optim_g.step(); step += 1
        print(f'g {loss_g.item():.4f} d {loss_d.item():.4f} | step {step}', flush=True)
        out.write(f'{step},{loss_g.item()},{loss_d.item()}\n'); out.flush()
