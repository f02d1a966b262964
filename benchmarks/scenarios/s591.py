# jongwook/onsets-and-frames issue "RuntimeError: Tensor stacks" (27) in miniature: train.py of the repository
# (MAESTRO, batch_size 8, shuffle=True, drop_last=True, cycle(loader), Adam lr 0.0006, StepLR(10000, 0.98),
# clip_grad_norm_ 3 after the step as in train.py, losses loss/onset, loss/offset, loss/frame, loss/velocity summed)
# with onsets_and_frames/dataset.py: PianoRollAudioDataset.load reads each file with
# soundfile.read(audio_path, dtype='int16') and keeps torch.ShortTensor(audio), documented as "shape = [num_samples]",
# and __getitem__ crops audio[begin:end] of sequence_length samples at a random hop-aligned position. The recipe
# expects 16 kHz mono FLACs; one file of the training folder is still stereo, so its crop has shape
# [sequence_length, 2] and the DataLoader's default_collate fails on the first batch that holds it with
# "RuntimeError: stack expects each tensor to be equal size, but got [..., 2] at entry .. and [...] at entry ..".
# Scaled down / changed: 160 synthetic 2-second piano-like tracks (decaying harmonic tones at random MIDI pitches,
# 16 kHz, int16) with their onset/offset/note/velocity .tsv files written into ./data/MAESTRO/train in the working
# directory instead of MAESTRO; read with the standard-library wave module in place of soundfile (same shapes:
# [n] for mono, [n, 2] for stereo); sequence_length 16384 instead of 327680; no .pt cache; a small model (log-mel
# input, 229 bins, one bidirectional GRU per stack, model_complexity 16) instead of the full OnsetsAndFrames
# network; tqdm replaced by a line every 5 iterations; metrics.csv (every iteration) instead of tensorboard.
import csv
import math
import os
import wave

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import clip_grad_norm_
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
torch.set_num_threads(1)

SAMPLE_RATE = 16000
HOP_LENGTH = SAMPLE_RATE * 32 // 1000
ONSET_LENGTH = OFFSET_LENGTH = SAMPLE_RATE * 32 // 1000
HOPS_IN_ONSET = ONSET_LENGTH // HOP_LENGTH
HOPS_IN_OFFSET = OFFSET_LENGTH // HOP_LENGTH
MIN_MIDI, MAX_MIDI = 21, 108
N_MELS, MEL_FMIN, MEL_FMAX, WINDOW_LENGTH = 229, 30, SAMPLE_RATE // 2, 2048

# ---- synthetic MAESTRO-like folder ----
root = os.path.join('data', 'MAESTRO', 'train')
os.makedirs(root, exist_ok=True)
rng = np.random.RandomState(27)
N_TRACKS, SECONDS = 160, 2.0
STEREO_TRACK = 57  # this one was never converted to mono
for k in range(N_TRACKS):
    n = int(SECONDS * SAMPLE_RATE)
    t = np.arange(n) / SAMPLE_RATE
    y = np.zeros(n)
    notes = []
    for _ in range(rng.randint(4, 9)):
        pitch = rng.randint(40, 90)
        on = rng.uniform(0, SECONDS - 0.3)
        off = min(SECONDS, on + rng.uniform(0.15, 0.9))
        vel = rng.randint(30, 110)
        f0 = 440.0 * 2 ** ((pitch - 69) / 12)
        m = (t >= on) & (t < off)
        tt = t[m] - on
        tone = sum(np.sin(2 * np.pi * h * f0 * tt) / h for h in (1, 2, 3) if h * f0 < 7900)
        y[m] += (vel / 127) * 0.25 * tone * np.exp(-3 * tt)
        notes.append((on, off, pitch, vel))
    y += 0.003 * rng.randn(n)
    pcm = np.clip(y * 32767, -32768, 32767).astype(np.int16)
    channels = 1
    if k == STEREO_TRACK:
        pcm = np.stack([pcm, (0.9 * pcm).astype(np.int16)], axis=1)
        channels = 2
    name = os.path.join(root, 'track_%03d' % k)
    with wave.open(name + '.wav', 'wb') as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(SAMPLE_RATE)
        w.writeframes(pcm.tobytes())
    np.savetxt(name + '.tsv', np.array(sorted(notes)), fmt='%.6f', delimiter='\t',
               header='onset,offset,note,velocity')


def soundfile_read(path, dtype='int16'):
    with wave.open(path, 'rb') as w:
        ch, sr, n = w.getnchannels(), w.getframerate(), w.getnframes()
        a = np.frombuffer(w.readframes(n), dtype=np.int16).copy()
    return (a.reshape(-1, ch) if ch > 1 else a), sr


class PianoRollAudioDataset(Dataset):
    def __init__(self, path, groups, sequence_length=None, seed=42):
        self.path, self.sequence_length = path, sequence_length
        self.random = np.random.RandomState(seed)
        self.data = []
        print(f"Loading {len(groups)} group{'s' if len(groups) > 1 else ''} of MAESTRO at {path}")
        for group in groups:
            for input_files in self.files(group):
                self.data.append(self.load(*input_files))

    def files(self, group):
        wavs = sorted(f for f in os.listdir(os.path.join(self.path, group)) if f.endswith('.wav'))
        return [(os.path.join(self.path, group, f), os.path.join(self.path, group, f.replace('.wav', '.tsv')))
                for f in wavs]

    def __getitem__(self, index):
        data = self.data[index]
        result = dict(path=data['path'])
        audio_length = len(data['audio'])
        step_begin = self.random.randint(audio_length - self.sequence_length) // HOP_LENGTH
        n_steps = self.sequence_length // HOP_LENGTH
        step_end = step_begin + n_steps
        begin = step_begin * HOP_LENGTH
        end = begin + self.sequence_length
        result['audio'] = data['audio'][begin:end]
        result['label'] = data['label'][step_begin:step_end, :]
        result['velocity'] = data['velocity'][step_begin:step_end, :]
        result['audio'] = result['audio'].float().div_(32768.0)
        result['onset'] = (result['label'] == 3).float()
        result['offset'] = (result['label'] == 1).float()
        result['frame'] = (result['label'] > 1).float()
        result['velocity'] = result['velocity'].float().div_(128.0)
        return result

    def __len__(self):
        return len(self.data)

    def load(self, audio_path, tsv_path):
        audio, sr = soundfile_read(audio_path, dtype='int16')
        assert sr == SAMPLE_RATE
        audio = torch.ShortTensor(audio)
        audio_length = len(audio)
        n_keys = MAX_MIDI - MIN_MIDI + 1
        n_steps = (audio_length - 1) // HOP_LENGTH + 1
        label = torch.zeros(n_steps, n_keys, dtype=torch.uint8)
        velocity = torch.zeros(n_steps, n_keys, dtype=torch.uint8)
        midi = np.loadtxt(tsv_path, delimiter='\t', skiprows=1, ndmin=2)
        for onset, offset, note, vel in midi:
            left = int(round(onset * SAMPLE_RATE / HOP_LENGTH))
            onset_right = min(n_steps, left + HOPS_IN_ONSET)
            frame_right = min(n_steps, int(round(offset * SAMPLE_RATE / HOP_LENGTH)))
            offset_right = min(n_steps, frame_right + HOPS_IN_OFFSET)
            f = int(note) - MIN_MIDI
            label[left:onset_right, f] = 3
            label[onset_right:frame_right, f] = 2
            label[frame_right:offset_right, f] = 1
            velocity[left:frame_right, f] = int(vel)
        return dict(path=audio_path, audio=audio, label=label, velocity=velocity)


def mel_filters():
    def hz2mel(f):
        return 2595 * np.log10(1 + f / 700)

    mels = np.linspace(hz2mel(MEL_FMIN), hz2mel(MEL_FMAX), N_MELS + 2)
    hz = 700 * (10 ** (mels / 2595) - 1)
    bins = np.fft.rfftfreq(WINDOW_LENGTH, 1 / SAMPLE_RATE)
    fb = np.zeros((N_MELS, len(bins)))
    for i in range(N_MELS):
        lo, c, hi = hz[i], hz[i + 1], hz[i + 2]
        fb[i] = np.maximum(0, np.minimum((bins - lo) / (c - lo + 1e-9), (hi - bins) / (hi - c + 1e-9)))
    return torch.tensor(fb, dtype=torch.float32)


MEL = mel_filters()
WINDOW = torch.hann_window(WINDOW_LENGTH)


def melspectrogram(audio):
    spec = torch.stft(audio, WINDOW_LENGTH, HOP_LENGTH, window=WINDOW, center=True, return_complex=True).abs()
    return torch.log(torch.clamp(MEL @ spec, min=1e-5))


class Stack(nn.Module):
    def __init__(self, n_in, n_out, c):
        super().__init__()
        self.fc = nn.Linear(n_in, c * 2)
        self.rnn = nn.GRU(c * 2, c, batch_first=True, bidirectional=True)
        self.out = nn.Linear(c * 2, n_out)

    def forward(self, x):
        h, _ = self.rnn(F.relu(self.fc(x)))
        return self.out(h)


class OnsetsAndFrames(nn.Module):
    def __init__(self, input_features, output_features, model_complexity=16):
        super().__init__()
        self.onset_stack = Stack(input_features, output_features, model_complexity)
        self.offset_stack = Stack(input_features, output_features, model_complexity)
        self.frame_stack = nn.Linear(input_features, output_features)
        self.combined_stack = Stack(output_features * 3, output_features, model_complexity)
        self.velocity_stack = Stack(input_features, output_features, model_complexity)

    def forward(self, mel):
        onset_pred = torch.sigmoid(self.onset_stack(mel))
        offset_pred = torch.sigmoid(self.offset_stack(mel))
        activation_pred = torch.sigmoid(self.frame_stack(mel))
        combined = torch.cat([onset_pred.detach(), offset_pred.detach(), activation_pred], dim=-1)
        frame_pred = torch.sigmoid(self.combined_stack(combined))
        velocity_pred = self.velocity_stack(mel)
        return onset_pred, offset_pred, activation_pred, frame_pred, velocity_pred

    def run_on_batch(self, batch):
        audio_label = batch['audio']
        mel = melspectrogram(audio_label.reshape(-1, audio_label.shape[-1])[:, :-1]).transpose(-1, -2)
        mel = mel[:, :batch['onset'].shape[1]]
        onset_pred, offset_pred, _, frame_pred, velocity_pred = self(mel)
        losses = {
            'loss/onset': F.binary_cross_entropy(onset_pred, batch['onset']),
            'loss/offset': F.binary_cross_entropy(offset_pred, batch['offset']),
            'loss/frame': F.binary_cross_entropy(frame_pred, batch['frame']),
            'loss/velocity': (batch['onset'] * (batch['velocity'] - velocity_pred) ** 2).sum()
            / batch['onset'].sum().clamp(min=1),
        }
        return frame_pred, losses


def cycle(iterable):
    while True:
        for item in iterable:
            yield item


iterations, batch_size, sequence_length = 300, 8, 16384
learning_rate, learning_rate_decay_steps, learning_rate_decay_rate = 0.0006, 10000, 0.98
clip_gradient_norm = 3

dataset = PianoRollAudioDataset(os.path.join('data', 'MAESTRO'), groups=['train'], sequence_length=sequence_length)
loader = DataLoader(dataset, batch_size, shuffle=True, drop_last=True)
model = OnsetsAndFrames(N_MELS, MAX_MIDI - MIN_MIDI + 1, 16)
optimizer = torch.optim.Adam(model.parameters(), learning_rate)
scheduler = StepLR(optimizer, step_size=learning_rate_decay_steps, gamma=learning_rate_decay_rate)

f = open('metrics.csv', 'w', newline='')
wr = csv.writer(f)
wr.writerow(['iteration', 'loss', 'loss/onset', 'loss/offset', 'loss/frame', 'loss/velocity'])
loop = range(1, iterations + 1)
for i, batch in zip(loop, cycle(loader)):
    predictions, losses = model.run_on_batch(batch)
    loss = sum(losses.values())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()
    if clip_gradient_norm:
        clip_grad_norm_(model.parameters(), clip_gradient_norm)
    wr.writerow([i, '%.5f' % loss.item()] + ['%.5f' % v.item() for v in losses.values()])
    f.flush()
    if i % 5 == 0:
        print('%d/%d  loss %.4f  onset %.4f  offset %.4f  frame %.4f  velocity %.4f'
              % (i, iterations, loss.item(), *[v.item() for v in losses.values()]))
f.close()
