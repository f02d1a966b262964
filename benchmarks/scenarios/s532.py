# mlpnlp/mlpnlp-nmt pull request "Fix default eps value of the Adam optimizer" in miniature, ported from Chainer to
# PyTorch: LSTMEncDecAttn.py (bidirectional LSTM encoder, LSTM decoder with input feeding and attention over the encoder
# states, uniform init 0.1, dropout 0.3, gradient clipping 5, batch 32, dev evaluation at the start of every epoch,
# "Epoch: .. | LL: .. PPL: .. | gN: .." lines every 100 mini-batches there and every 20 here, "# Train END" and
# "# Dev.Data" lines per epoch) trained with --optimizer Adam --lrate 0.001. Before the fix setOptimizer() built the
# optimizer as chaOpt.Adam(alpha=args.lrate, eps=0.1), so here it is torch.optim.Adam(lr=0.001, eps=0.1). Scaled down:
# a synthetic "de -> en" corpus (60 source and 60 target words plus specials, sentences of 4-10 tokens; the target is
# the source mapped word by word through a fixed dictionary with adjacent word pairs swapped, so the model needs
# attention), 3000 training and 300 dev pairs, one layer of 128 units instead of 2 x 512, 8 epochs. metrics.csv has the
# per-token training log-likelihood (LL) / perplexity and the grad norm before clipping every 25 mini-batches, and the
# dev LL / PPL / token accuracy per epoch.
import csv, math, random, sys, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(1); np.random.seed(1); random.seed(1); torch.set_num_threads(1)
PAD, UNK, BOS, EOS = 0, 1, 2, 3
SV = TV = 64
eDim = hDim = 128
batch_size, n_epoch, dropout_rate, clipV, lrate = 32, 8, 0.3, 5.0, 0.001

rs = np.random.RandomState(5)
dictionary = rs.permutation(np.arange(4, TV))          # source word w -> target word dictionary[w - 4]
def make_pair():
    L = rs.randint(4, 11)
    src = list(rs.randint(4, SV, L))
    tgt = [int(dictionary[w - 4]) for w in src]
    for i in range(0, L - 1, 2):
        tgt[i], tgt[i + 1] = tgt[i + 1], tgt[i]
    return src, tgt
train_pairs = [make_pair() for _ in range(3000)]
dev_pairs = [make_pair() for _ in range(300)]
sys.stdout.write('# data sent: %10d  sample: %10d maxlen: %10d\n' % (len(train_pairs), len(train_pairs), 10))

def make_batches(pairs, shuffle):
    # bucket by source length as makeBatch4Train does, then cut into mini-batches
    by_len = {}
    for s, t in pairs:
        by_len.setdefault(len(s), []).append((s, t))
    batches = []
    for L in sorted(by_len):
        items = by_len[L]
        if shuffle: random.shuffle(items)
        for i in range(0, len(items), batch_size):
            batches.append(items[i:i + batch_size])
    if shuffle: random.shuffle(batches)
    return batches

def to_tensors(batch):
    src = torch.tensor([s for s, _ in batch])                            # (B, Ls), same length in a bucket
    Lt = max(len(t) for _, t in batch) + 1
    dec_in = torch.full((len(batch), Lt), PAD); dec_out = torch.full((len(batch), Lt), PAD)
    for i, (_, t) in enumerate(batch):
        dec_in[i, :len(t) + 1] = torch.tensor([BOS] + t); dec_out[i, :len(t) + 1] = torch.tensor(t + [EOS])
    return src, dec_in, dec_out

class EncDecAtt(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoderEmbed = nn.Embedding(SV, eDim); self.decoderEmbed = nn.Embedding(TV, eDim, padding_idx=PAD)
        self.encLSTM = nn.LSTM(eDim, hDim, batch_first=True, bidirectional=True)
        self.decLSTM = nn.LSTMCell(eDim + hDim, hDim)                     # input feeding
        self.attnIn = nn.Linear(hDim, hDim, bias=False)
        self.attnOut = nn.Linear(hDim + hDim, hDim, bias=False)
        self.decOutputL = nn.Linear(hDim, TV)
        for p in self.parameters():                                        # --initializer-type uniform, scale 0.1
            nn.init.uniform_(p, -0.1, 0.1)
    def forward(self, src, dec_in, train):
        e = F.dropout(self.encoderEmbed(src), dropout_rate, train)
        hs, (h, c) = self.encLSTM(e)
        hs = hs[:, :, :hDim] + hs[:, :, hDim:]                             # merge forward and backward states
        h, c = h[0] + h[1], c[0] + c[1]
        feed = torch.zeros_like(h); outs = []
        for t in range(dec_in.shape[1]):
            x = torch.cat([F.dropout(self.decoderEmbed(dec_in[:, t]), dropout_rate, train), feed], 1)
            h, c = self.decLSTM(x, (h, c))
            a = torch.softmax(torch.bmm(hs, self.attnIn(h).unsqueeze(2)).squeeze(2), 1)
            ctx = torch.bmm(a.unsqueeze(1), hs).squeeze(1)
            feed = torch.tanh(self.attnOut(torch.cat([ctx, h], 1)))
            outs.append(self.decOutputL(F.dropout(feed, dropout_rate, train)))
        return torch.stack(outs, 1)

model = EncDecAtt()
sys.stdout.write('Vocab: enc=%d dec=%d embedDim: %d, hiddenDim: %d, n_layers: %d\n' % (SV, TV, eDim, hDim, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=lrate, eps=0.1)      # chaOpt.Adam(alpha=args.lrate, eps=0.1)
sys.stdout.write('# SET Learning %s: initial learning rate: %e\n' % ('Adam', lrate))
sys.stdout.write('# USE gradient clipping: %f\n' % clipV)

def run_epoch(epoch, batches, train, writer, step0):
    model.train(train)
    lossVal, procTot, cor, inc, prn, step = 0.0, 0, 0, 0, 0, step0
    begin = time.time(); gnorm = pnorm = 0.0
    for src, dec_in, dec_out in (to_tensors(b) for b in batches):
        with torch.set_grad_enabled(train):
            logits = model(src, dec_in, train)
            loss_sum = F.cross_entropy(logits.reshape(-1, TV), dec_out.reshape(-1), ignore_index=PAD, reduction='sum')
        n_tok = int((dec_out != PAD).sum())
        lossVal += loss_sum.item(); procTot += n_tok
        pred = logits.argmax(-1); m = dec_out != PAD
        cor += int(((pred == dec_out) & m).sum()); inc += int(((pred != dec_out) & m).sum())
        if train:
            optimizer.zero_grad()
            (loss_sum / len(src)).backward()
            gnorm = float(nn.utils.clip_grad_norm_(model.parameters(), clipV))
            optimizer.step(); step += 1; prn += 1
            if prn >= 20:
                pnorm = float(torch.sqrt(sum((p.detach() ** 2).sum() for p in model.parameters())))
                ll = lossVal / max(1, procTot)
                sys.stdout.write('Epoch: %3d | LL: %9.6f PPL: %10.4f | gN: %8.4f %8.4f %8.4f | tot: %8d proc: %8d | MB: %4d | Time: %10.4f\n'
                                 % (epoch, ll, math.exp(min(10, ll)), gnorm, clipV, pnorm, len(batches) * batch_size, procTot, len(src), time.time() - begin))
                prn = 0
            if step % 25 == 0:
                ll = lossVal / max(1, procTot)
                writer.writerow([step, epoch, round(ll, 5), round(math.exp(min(10, ll)), 4), round(gnorm, 4), '', '', '']); f.flush()
    ll = lossVal / max(1, procTot)
    return ll, cor, inc, step, time.time() - begin

f = open('metrics.csv', 'w', newline=''); w = csv.writer(f)
w.writerow(['step', 'epoch', 'train_LL', 'train_PPL', 'grad_norm', 'dev_LL', 'dev_PPL', 'dev_acc'])
dev_batches = make_batches(dev_pairs, False)
prevLossDevel = prevLossTrain = 1.0e+100; step = 0
for epoch in range(n_epoch):
    sys.stdout.write('# Dev. data | total mini batch bucket size = {0}\n'.format(len(dev_batches)))
    ll, cor, inc, _, dt = run_epoch(epoch, dev_batches, False, w, step)
    sys.stdout.write('\r# Dev.Data | Epoch: %3d | LL: %9.6f PPL: %10.4f | acc: %6.2f %8d %8d | Time: %10.4f | diff: %e\n'
                     % (epoch, ll, math.exp(min(10, ll)), 100.0 * cor / max(1, cor + inc), cor, inc, dt, (prevLossDevel - ll)))
    g = optimizer.param_groups[0]
    sys.stdout.write('Adam Learning Rate: t=%s lr=%s ep=%s alpha=%s beta1=%s beta2=%s\n'
                     % (step, g['lr'], epoch, g['lr'], g['betas'][0], g['betas'][1]))
    w.writerow([step, epoch, '', '', '', round(ll, 5), round(math.exp(min(10, ll)), 4), round(cor / max(1, cor + inc), 4)]); f.flush()
    prevLossDevel = ll
    train_batches = make_batches(train_pairs, True)
    sys.stdout.write('# Train | data shuffle | total mini batch bucket size = {0} | Time: {1:10.4f}\n'.format(len(train_batches), 0.0))
    ll, cor, inc, step, dt = run_epoch(epoch, train_batches, True, w, step)
    sys.stdout.write('\r# Train END Epoch: %3d | LL: %9.6f PPL: %10.4f | Time: %10.4f | diff: %e\n'
                     % (epoch, ll, math.exp(min(10, ll)), dt, (prevLossTrain - ll)))
    prevLossTrain = ll
sys.stdout.write('Done\n')
f.close()
