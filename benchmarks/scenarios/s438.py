# SeanNaren/deepspeech.pytorch issue "Doesn't train with shuffled labels" in miniature: a DeepSpeech-
# style character model (here 2-layer bidirectional GRU, hidden 96, over 16-d "spectrogram" frames,
# linear output over the label set) trained with CTC on synthetic utterances: 1200 training and 200
# validation utterances of 1-3 words from a 40-word vocabulary, every character rendered as a fixed
# random 16-d pattern over 2-3 frames plus noise. labels is the repository's
# "_'ABCDEFGHIJKLMNOPQRSTUVWXYZ " with the blank '_' first, shuffled as in the report:
#     labels = ''.join(random.sample(labels, len(labels)))
#     decoder = GreedyDecoder(labels, blank_index=labels.index('_'))
# the loss is nn.CTCLoss(reduction='sum', zero_infinity=True); transcripts are encoded with
# labels_map = {labels[i]: i}. Adam 1e-3, batch 20, 12 epochs, deepspeech.pytorch-style
# "Epoch: [e][i/n]  Loss ... (avg)" lines and "Validation Summary Epoch: [e]  Average WER ... Average CER ...".
import csv, random
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

random.seed(354); np.random.seed(354); torch.manual_seed(354); torch.set_num_threads(1)
labels = "_'ABCDEFGHIJKLMNOPQRSTUVWXYZ "
labels = ''.join(random.sample(labels, len(labels)))
print('labels:', repr(labels), 'blank_index used by the decoder:', labels.index('_'))
labels_map = {labels[i]: i for i in range(len(labels))}
C = len(labels); FD = 16
pat = {ch: np.random.randn(FD).astype(np.float32) * 1.5 for ch in labels}
WORDS = [''.join(random.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ'") for _ in range(random.randint(2, 6))) for _ in range(40)]
def utt():
    text = ' '.join(random.choice(WORDS) for _ in range(random.randint(1, 3)))
    frames = [np.random.randn(2, FD).astype(np.float32) * 0.3]
    for ch in text:
        frames.append(np.repeat(pat[ch][None], random.randint(2, 3), 0) + 0.4 * np.random.randn(1, FD).astype(np.float32))
    frames.append(np.random.randn(2, FD).astype(np.float32) * 0.3)
    return np.concatenate(frames), text
train = [utt() for _ in range(1200)]; val = [utt() for _ in range(200)]
def batchify(items):
    T = max(len(x) for x, _ in items); X = np.zeros((len(items), T, FD), np.float32)
    for i, (x, _) in enumerate(items): X[i, :len(x)] = x
    tg = [labels_map[c] for _, t in items for c in t]
    return torch.tensor(X), torch.tensor([len(x) for x, _ in items]), torch.tensor(tg), torch.tensor([len(t) for _, t in items])
class DeepSpeech(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(FD, 96, num_layers=2, bidirectional=True, batch_first=True); self.fc = nn.Linear(192, C)
    def forward(self, x): return self.fc(self.rnn(x)[0])
class GreedyDecoder:
    def __init__(self, labels, blank_index=0): self.labels, self.blank_index = labels, blank_index
    def decode(self, probs, sizes):
        out = []
        for p, n in zip(probs.argmax(-1), sizes):
            s, prev = [], None
            for k in p[:n].tolist():
                if k != prev and k != self.blank_index: s.append(self.labels[k])
                prev = k
            out.append(''.join(s))
        return out
def lev(a, b):
    d = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        p, d[0] = d[0], i
        for j in range(1, len(b) + 1):
            p, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, p + (a[i - 1] != b[j - 1]))
    return d[len(b)]
decoder = GreedyDecoder(labels, blank_index=labels.index('_'))
model = DeepSpeech(); criterion = nn.CTCLoss(reduction='sum', zero_infinity=True); optimizer = torch.optim.Adam(model.parameters(), 1e-3)
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['epoch', 'iter', 'loss', 'avg_loss', 'wer', 'cer'])
bs = 20; nb = len(train) // bs
for epoch in range(1, 13):
    random.shuffle(train); tot = 0.0
    for i in range(nb):
        x, xl, tg, tl = batchify(train[i * bs:(i + 1) * bs])
        out = model(x).log_softmax(-1).transpose(0, 1)
        loss = criterion(out, tg, xl, tl) / bs
        optimizer.zero_grad(); loss.backward(); torch.nn.utils.clip_grad_norm_(model.parameters(), 400); optimizer.step()
        tot += loss.item()
        if (i + 1) % 20 == 0:
            print('Epoch: [{0}][{1}/{2}]\tLoss {3:.4f} ({4:.4f})\t'.format(epoch, i + 1, nb, loss.item(), tot / (i + 1)))
            wr.writerow([epoch, i + 1, loss.item(), tot / (i + 1), '', ''])
    model.eval()
    with torch.no_grad():
        x, xl, _, _ = batchify(val); hyp = decoder.decode(model(x).softmax(-1), xl.tolist())
    model.train()
    ref = [t for _, t in val]
    wer = 100.0 * sum(lev(h.split(), r.split()) for h, r in zip(hyp, ref)) / sum(len(r.split()) for r in ref)
    cer = 100.0 * sum(lev(h.replace(' ', ''), r.replace(' ', '')) for h, r in zip(hyp, ref)) / sum(len(r.replace(' ', '')) for r in ref)
    print('Validation Summary Epoch: [{0}]\tAverage WER {1:.3f}\tAverage CER {2:.3f}\t'.format(epoch, wer, cer))
    wr.writerow([epoch, nb, '', tot / nb, wer, cer])
print('ref:', ref[0], '| hyp:', hyp[0])
