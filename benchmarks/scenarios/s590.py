# wenet-e2e/wespeaker issue "能否上传一下train log" (165) in miniature: the voxceleb/v2 recipe
# ResNet34-TSTP-emb256-fbank80-num_frms200-aug0.6-spTrue-saFalse-ArcMargin-SGD-epoch150 (conf/resnet.yaml): a speaker
# classifier whose embedding feeds an ArcMargin projection (project_type arc_margin, scale 32.0, easy_margin False)
# with the MarginScheduler (initial_margin 0.0, final_margin 0.2, increase_start_epoch 20, fix_start_epoch 40,
# increase_type exp), CrossEntropyLoss on the projected logits, SGD (momentum 0.9, nesterov, weight_decay 1e-4),
# the ExponentialDecrease scheduler (initial_lr 0.1, final_lr 5e-05, warm_up_epoch 6, warm_from_zero), batch_size
# 128, drop_last; the training log prints | Epoch | Batch | Lr | Margin | Loss | Acc | every log_batch_interval
# batches, where Loss and Acc are running averages over the epoch and Acc is computed on the margin-penalised logits
# (accuracy(outputs, targets) after model.projection(embeds, targets), as wespeaker's executor does). After training
# the embeddings of unseen speakers are scored with cosine similarity and the EER is reported.
# Scaled down / changed: synthetic 40-bin "fbank" segments of 50 frames (a spectral profile per speaker, a random
# channel offset per utterance, heavy frame noise) for 240 training speakers (12 segments each) and 40 test speakers
# (6 each) instead of VoxCeleb2; a small 1-D conv network (48 channels) with TSTP pooling (mean and standard
# deviation over time) and a 128-dim embedding instead of ResNet34; 30 epochs instead of 150 with the margin and LR
# schedules scaled to them (margin rise epochs 4-8, warm-up 1 epoch); log every 10 batches; no augmentation, no
# model averaging; metrics.csv has every batch.
import csv
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(42)
torch.set_num_threads(1)
rng = np.random.RandomState(42)

N_SPK, N_UTT, N_TEST_SPK, N_TEST_UTT, FEAT, FRMS = 240, 12, 40, 6, 40, 50


A_SPK = rng.normal(0, 1.0, size=(10, FEAT)) / math.sqrt(10) * 3.0  # speakers differ in a 10-dim subspace
B_CH = rng.normal(0, 1.0, size=(10, FEAT)) / math.sqrt(10) * 3.0   # channels in another one


def make_speakers(n):
    return (rng.normal(0, 1.0, size=(n, 10)) @ A_SPK).astype(np.float32)


def make_utts(profiles, n_utt):
    X, y = [], []
    for s, prof in enumerate(profiles):
        for _ in range(n_utt):
            channel = rng.normal(0, 1.0, size=10) @ B_CH
            frames = prof[None, :] + channel[None, :] + rng.normal(0, 11.0, size=(FRMS, FEAT))
            X.append(frames.T.astype(np.float32))
            y.append(s)
    return torch.from_numpy(np.stack(X)), torch.tensor(y)


train_x, train_y = make_utts(make_speakers(N_SPK), N_UTT)
test_x, test_y = make_utts(make_speakers(N_TEST_SPK), N_TEST_UTT)


class TSTPNet(nn.Module):
    def __init__(self, feat_dim=FEAT, channels=48, embed_dim=128):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(feat_dim, channels, 5, padding=2), nn.BatchNorm1d(channels), nn.ReLU(),
            nn.Conv1d(channels, channels, 3, padding=1), nn.BatchNorm1d(channels), nn.ReLU(),
            nn.Conv1d(channels, channels, 3, padding=1), nn.BatchNorm1d(channels), nn.ReLU())
        self.seg = nn.Linear(2 * channels, embed_dim)

    def forward(self, x):
        h = self.conv(x)
        stats = torch.cat([h.mean(-1), torch.sqrt(h.var(-1) + 1e-7)], dim=1)  # TSTP
        return self.seg(stats)


class ArcMarginProduct(nn.Module):
    def __init__(self, in_features, out_features, scale=32.0, margin=0.0, easy_margin=False):
        super().__init__()
        self.scale, self.easy_margin = scale, easy_margin
        self.weight = nn.Parameter(torch.FloatTensor(out_features, in_features))
        nn.init.xavier_uniform_(self.weight)
        self.update(margin)

    def update(self, margin=0.2):
        self.margin = margin
        self.cos_m, self.sin_m = math.cos(margin), math.sin(margin)
        self.th = math.cos(math.pi - margin)
        self.mmm = 1.0 + math.cos(math.pi - margin)

    def forward(self, x, label):
        cosine = F.linear(F.normalize(x), F.normalize(self.weight))
        sine = torch.sqrt((1.0 - torch.pow(cosine, 2)).clamp(0, 1))
        phi = cosine * self.cos_m - sine * self.sin_m
        if self.easy_margin:
            phi = torch.where(cosine > 0, phi, cosine)
        else:
            phi = torch.where(cosine > self.th, phi, cosine - self.mmm)
        one_hot = torch.zeros_like(cosine).scatter_(1, label.view(-1, 1), 1)
        return self.scale * ((one_hot * phi) + ((1.0 - one_hot) * cosine))


model = TSTPNet()
projection = ArcMarginProduct(128, N_SPK, scale=32.0)
params = list(model.parameters()) + list(projection.parameters())
optimizer = torch.optim.SGD(params, lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4)
criterion = nn.CrossEntropyLoss()

NUM_EPOCHS, BATCH, LOG_INTERVAL = 30, 128, 10
epoch_iter = len(train_x) // BATCH
total_iter = NUM_EPOCHS * epoch_iter
WARM_ITER = 1 * epoch_iter
INIT_LR, FINAL_LR = 0.1, 0.00005
INC_START, FIX_START, INIT_M, FINAL_M = 4 * epoch_iter, 8 * epoch_iter, 0.0, 0.2


def lr_at(it):  # ExponentialDecrease with warm_from_zero
    warm = min(1.0, it / WARM_ITER) if WARM_ITER > 0 else 1.0
    return warm * INIT_LR * math.exp((it / total_iter) * math.log(FINAL_LR / INIT_LR))


def margin_at(it):  # MarginScheduler, increase_type exp
    if it < INC_START:
        return INIT_M
    if it >= FIX_START:
        return FINAL_M
    ratio = 1.0 - math.exp(-(it - INC_START) / (FIX_START - INC_START) * 7.0)
    return INIT_M + (FINAL_M - INIT_M) * ratio


f = open('metrics.csv', 'w', newline='')
wr = csv.writer(f)
wr.writerow(['epoch', 'batch', 'iter', 'lr', 'margin', 'batch_loss', 'batch_acc', 'running_loss', 'running_acc'])
line = '+' + '+'.join(['-' * 10] * 6) + '+'
print(line)
print('|' + '|'.join('%10s' % h for h in ['Epoch', 'Batch', 'Lr', 'Margin', 'Loss', 'Acc']) + '|')
print(line)
it = 0
for epoch in range(1, NUM_EPOCHS + 1):
    model.train()
    perm = torch.randperm(len(train_x))
    loss_sum, correct, seen = 0.0, 0, 0
    for b in range(epoch_iter):
        idx = perm[b * BATCH:(b + 1) * BATCH]
        feats, targets = train_x[idx], train_y[idx]
        lr = lr_at(it)
        for g in optimizer.param_groups:
            g['lr'] = lr
        projection.update(margin_at(it))
        embeds = model(feats)
        outputs = projection(embeds, targets)
        loss = criterion(outputs, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        acc = (outputs.argmax(1) == targets).float().mean().item()
        loss_sum += loss.item() * len(idx)
        correct += acc * len(idx)
        seen += len(idx)
        it += 1
        wr.writerow([epoch, b + 1, it, '%.6g' % lr, '%.4f' % projection.margin, '%.5f' % loss.item(), '%.4f' % acc,
                     '%.5f' % (loss_sum / seen), '%.4f' % (100 * correct / seen)])
        if (b + 1) % LOG_INTERVAL == 0 or b + 1 == epoch_iter:
            print('|%10d|%10d|%10.5g|%10.4g|%10.5g|%10.5g|' % (epoch, b + 1, lr, projection.margin,
                                                               loss_sum / seen, 100 * correct / seen))
print(line)
f.close()

# cosine scoring of unseen speakers: all target and non-target pairs among the test segments
model.eval()
with torch.no_grad():
    emb = F.normalize(model(test_x))
scores = emb @ emb.T
iu = torch.triu_indices(len(test_y), len(test_y), 1)
s = scores[iu[0], iu[1]].numpy()
lab = (test_y[iu[0]] == test_y[iu[1]]).numpy()
order = np.argsort(-s)
lab_sorted = lab[order]
tp = np.cumsum(lab_sorted) / lab.sum()
fp = np.cumsum(~lab_sorted) / (~lab).sum()
fnr = 1 - tp
k = np.argmin(np.abs(fnr - fp))
print('---- test trials (%d target, %d nontarget) -----' % (lab.sum(), (~lab).sum()))
print('EER = %.3f' % (100 * (fnr[k] + fp[k]) / 2))
