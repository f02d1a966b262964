# yajiemiao/eesen issue "different Token Accuracy on same sets" in miniature, ported from Eesen (C++/CUDA) to PyTorch:
# an LSTM trained with the CTC objective for handwritten character-string recognition, with the cross-validation set
# set to the training set itself, as the poster did ("I use training set as cv set"). As in Eesen's
# train_ctc_parallel.sh, every epoch trains on the shuffled training utterances in small batches of sequences (SGD with
# momentum 0.9 on the summed CTC objective, learning rate 0.001), the TRAIN token accuracy
# is accumulated over the batches while the epoch runs, the VALID token accuracy is computed afterwards with the model
# at the end of the epoch, and the line "EPOCH %d RUNNING ... ENDS [date]: lrate %g, TRAIN ACCURACY %.4f%%, VALID
# ACCURACY %.4f%%" is printed (token accuracy = 100 * (1 - edit distance / reference length) of the greedy CTC
# output, so it can be negative). From epoch 8 on, the learning rate is halved once the valid accuracy improves by
# less than 0.5 points (Eesen-style halving). Scaled down: a one-layer bidirectional LSTM (64 units per direction) on
# 600 synthetic "pen-stroke" feature sequences (12-dimensional frames; strings of 3-7 characters from a 20-character alphabet, each
# character a noisy 3-5-frame stroke pattern with random gaps) instead of the poster's handwriting images, 12 epochs.
# metrics.csv has the per-batch CTC loss and token accuracy and the per-epoch train and valid token accuracy.
import csv, math, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
rs = np.random.RandomState(0)
NCHAR, D = 20, 12
PROTO = [rs.normal(0, 1, (rs.randint(3, 6), D)).astype(np.float32) for _ in range(NCHAR)]


def utterance():
    n = rs.randint(3, 8)
    labels = rs.randint(0, NCHAR, n)
    frames = [rs.normal(0, 0.3, (rs.randint(1, 3), D))]
    for c in labels:
        p = PROTO[c]
        if rs.uniform() < 0.5:  # stretch the stroke by repeating one frame
            k = rs.randint(len(p)); p = np.concatenate([p[:k + 1], p[k:]])
        frames.append(p + rs.normal(0, 0.7, p.shape))
        frames.append(rs.normal(0, 0.3, (rs.randint(1, 3), D)))
    return np.concatenate(frames).astype(np.float32), labels + 1  # 0 is the CTC blank


utts = [utterance() for _ in range(600)]
train_set = utts
cv_set = utts  # "My cv set is same as training set"


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(D, 64, batch_first=True, bidirectional=True)
        self.out = nn.Linear(128, NCHAR + 1)

    def forward(self, x):
        h, _ = self.lstm(x)
        return self.out(h)


def batchify(items):
    T = max(len(x) for x, _ in items)
    X = torch.zeros(len(items), T, D)
    for i, (x, _) in enumerate(items): X[i, :len(x)] = torch.from_numpy(x)
    xl = torch.tensor([len(x) for x, _ in items]); yl = torch.tensor([len(y) for _, y in items])
    Y = torch.from_numpy(np.concatenate([y for _, y in items])).long()
    return X, xl, Y, yl


def edit_distance(a, b):
    d = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        prev, d[0] = d[0], i
        for j in range(1, len(b) + 1):
            cur = d[j]
            d[j] = min(d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] != b[j - 1]))
            prev = cur
    return d[len(b)]


def greedy(logits, xl):
    best = logits.argmax(-1)
    outs = []
    for i in range(len(xl)):
        seq, last = [], 0
        for t in best[i, :xl[i]].tolist():
            if t != last and t != 0: seq.append(t)
            last = t
        outs.append(seq)
    return outs


def errors(logits, xl, items):
    hyp = greedy(logits, xl)
    return sum(edit_distance(h, list(y)) for h, (_, y) in zip(hyp, items)), sum(len(y) for _, y in items)


model = Model()
lrate = 0.001
opt = torch.optim.SGD(model.parameters(), lr=lrate, momentum=0.9)
ctc = nn.CTCLoss(blank=0, reduction='sum', zero_infinity=True)
num_sequence = 10
HALVING_AFTER_EPOCH = 8
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'step', 'ctc_loss_per_frame', 'batch_token_acc', 'train_token_acc', 'valid_token_acc', 'lrate'])
step = 0; prev_valid = None; halving = False
for epoch in range(1, 13):
    order = rs.permutation(len(train_set))
    err = tot = 0; model.train()
    for i in range(0, len(order), num_sequence):
        items = [train_set[k] for k in order[i:i + num_sequence]]
        X, xl, Y, yl = batchify(items)
        logits = model(X)
        lp = F.log_softmax(logits, -1).transpose(0, 1)
        loss = ctc(lp, Y, xl, yl)
        opt.zero_grad(); loss.backward(); opt.step()
        e, n = errors(logits.detach(), xl, items); err += e; tot += n; step += 1
        wr.writerow([epoch, step, round(loss.item() / xl.sum().item(), 5), round(100 * (1 - e / n), 3), '', '', lrate])
    train_acc = 100 * (1 - err / tot)
    model.eval(); err = tot = 0
    with torch.no_grad():
        for i in range(0, len(cv_set), 50):
            items = cv_set[i:i + 50]
            X, xl, Y, yl = batchify(items)
            e, n = errors(model(X), xl, items); err += e; tot += n
    valid_acc = 100 * (1 - err / tot)
    print('EPOCH %d RUNNING ... ENDS [%s]: lrate %g, TRAIN ACCURACY %.4f%%, VALID ACCURACY %.4f%%'
          % (epoch, time.strftime('%Y-%b-%d %H:%M:%S'), lrate, train_acc, valid_acc), flush=True)
    wr.writerow([epoch, step, '', '', round(train_acc, 4), round(valid_acc, 4), lrate]); f.flush()
    if epoch >= HALVING_AFTER_EPOCH and prev_valid is not None and valid_acc - prev_valid < 0.5: halving = True
    if halving:
        lrate /= 2
        for g in opt.param_groups: g['lr'] = lrate
    prev_valid = valid_acc
f.close()
