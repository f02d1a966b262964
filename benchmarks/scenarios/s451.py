# xinjli/allosaurus fine-tuning on a small French corpus, in miniature: a phone recogniser (2-layer
# BiLSTM, hidden 96, over 40-d filterbank-like features, linear phone head) fine-tuned with CTC on 160
# synthetic utterances of 40-120 frames (24 phones + blank, each phone a noisy template), Adam lr 1e-3,
# batch 8, 3 epochs, a loss line every 2 steps and a phone-error estimate per epoch. Features are
# normalised per utterance by the repository-style feature_cmvn() (mean and std from running sums:
# std = sqrt(E[x^2] - E[x]^2), then (x - mean) / std). A few CommonVoice-like clips contain stretches
# of digital silence, so one feature dimension can be constant (the log floor) for a whole clip.
import csv, math
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(2); torch.manual_seed(2); torch.set_num_threads(1)
P, DIM = 24, 40
templates = np.random.randn(P, DIM).astype(np.float32) * 2.0
epoch_orders = [np.random.permutation(140) for _ in range(3)]
silent_clips = set(epoch_orders[0][[83, 110]].tolist())

def feature_cmvn(feature):
    frame_cnt = feature.shape[0]
    spk_sum = np.sum(feature, axis=0)
    spk_mean = spk_sum / frame_cnt
    spk_square_sum = np.sum(feature * feature, axis=0)
    spk_std = np.sqrt(spk_square_sum / frame_cnt - spk_mean * spk_mean)
    return (feature - spk_mean) / spk_std

utts = []
for i in range(160):
    n_ph = np.random.randint(5, 13); phones = np.random.randint(0, P, n_ph)
    frames = np.concatenate([np.repeat(templates[p][None], np.random.randint(6, 11), 0) for p in phones])
    feat = (frames + 0.6 * np.random.randn(*frames.shape) + 8.0).astype(np.float32)   # log-mel-like offset
    if i in silent_clips:      # clips with digital silence: the top band sits at the log floor throughout
        feat[:, DIM - 1] = np.float32(-15.942385)
    utts.append((torch.tensor(feature_cmvn(feat)), torch.tensor(phones + 1)))

class PhoneRecognizer(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(DIM, 96, num_layers=2, bidirectional=True, batch_first=True)
        self.phone = nn.Linear(192, P + 1)
    def forward(self, x):
        return self.phone(self.lstm(x)[0])

model = PhoneRecognizer(); optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
ctc = nn.CTCLoss(blank=0, zero_infinity=False)
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f); wr.writerow(['epoch', 'step', 'loss', 'per'])
step = 0
for epoch in range(3):
    order = epoch_orders[epoch]
    for b in range(0, 140, 8):
        batch = [utts[i] for i in order[b:b + 8]]
        xs = nn.utils.rnn.pad_sequence([u[0] for u in batch], batch_first=True)
        in_len = torch.tensor([len(u[0]) for u in batch]); tgt = torch.cat([u[1] for u in batch]); tgt_len = torch.tensor([len(u[1]) for u in batch])
        logp = F.log_softmax(model(xs), -1).transpose(0, 1)
        loss = ctc(logp, tgt, in_len, tgt_len)
        optimizer.zero_grad(); loss.backward(); optimizer.step(); step += 1
        if step % 2 == 0:
            print(f'epoch {epoch} step {step} loss {loss.item():.4f}')
            wr.writerow([epoch, step, loss.item(), ''])
    with torch.no_grad():   # greedy phone error rate on the 20 held-out utterances
        errs = tot = 0
        for x, ph in utts[140:]:
            pred = model(x[None]).argmax(-1)[0].tolist(); hyp = [p for k, p in enumerate(pred) if p != 0 and (k == 0 or p != pred[k - 1])]
            d = np.arange(len(hyp) + 1)
            for r in ph.tolist():
                nd = [d[0] + 1]
                for j, h in enumerate(hyp): nd.append(min(d[j + 1] + 1, nd[j] + 1, d[j] + (h != r)))
                d = np.array(nd)
            errs += d[-1]; tot += len(ph)
    print(f'epoch {epoch} validation phone error rate {errs / tot:.3f}')
    wr.writerow([epoch, step, '', errs / tot]); f.flush()
