# google-research kws_streaming att_mh_rnn in miniature: a keyword-spotting model trained on
# 12 labels (10 words + _silence_ + _unknown_) from synthetic 49-frame x 20-bin log-mel
# "spectrograms" (each word a class-specific time-frequency pattern, random time shift, noise).
# Model as in models/att_mh_rnn.py, scaled down: two conv layers, a bidirectional GRU, multi-head
# attention whose query is the middle frame's feature, dense layers, and the final Dense(label_count).
# The run uses the flag --return_softmax 1, so the model ends in a softmax, while train.py keeps
# its loss SparseCategoricalCrossentropy(from_logits=True): the cross entropy is taken of the
# softmax of probabilities. Adam 1e-3 -> 2e-4 (the repository's piecewise learning_rate/how_many_
# training_steps style), batch 100, train.py-style "Step #N: rate ..., accuracy ..., cross entropy ..."
# lines and "Step N: Validation accuracy = ..." every 200 steps.
import csv
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(367); torch.manual_seed(367); torch.set_num_threads(1)
label_count, T, M = 12, 49, 20
templates = np.random.randn(label_count, 12, M).astype(np.float32) * 1.2
def make(n):
    y = np.random.randint(0, label_count, n)
    x = np.random.randn(n, T, M).astype(np.float32) * 1.0
    for i in range(n):
        if y[i] == 0: x[i] *= 0.3; continue                    # _silence_
        s = np.random.randint(5, T - 17)
        x[i, s:s + 12] += templates[y[i]]
    return torch.tensor(x), torch.tensor(y)
Xtr, ytr = make(3000); Xva, yva = make(600)

class AttMhRnn(nn.Module):
    def __init__(self, return_softmax):
        super().__init__()
        self.return_softmax = return_softmax
        self.conv = nn.Sequential(nn.Conv2d(1, 8, (5, 1), padding=(2, 0)), nn.BatchNorm2d(8), nn.ReLU(),
                                  nn.Conv2d(8, 1, (5, 1), padding=(2, 0)), nn.BatchNorm2d(1), nn.ReLU())
        self.rnn = nn.GRU(M, 32, batch_first=True, bidirectional=True)
        self.heads = 4; self.q = nn.Linear(64, 64 * self.heads)
        self.dense = nn.Sequential(nn.Dropout(0.1), nn.Linear(64 * self.heads, 64), nn.ReLU(), nn.Linear(64, 32))
        self.out = nn.Linear(32, label_count)
    def forward(self, x):
        h = self.conv(x.unsqueeze(1)).squeeze(1)
        seq, _ = self.rnn(h)                                 # (B, T, 64)
        q = self.q(seq[:, T // 2]).view(-1, self.heads, 64)  # query = middle frame feature
        att = torch.softmax(torch.einsum('bhd,btd->bht', q, seq), -1)
        ctx = torch.einsum('bht,btd->bhd', att, seq).reshape(len(x), -1)
        logits = self.out(self.dense(ctx))
        return F.softmax(logits, -1) if self.return_softmax else logits

model = AttMhRnn(return_softmax=1)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()                              # SparseCategoricalCrossentropy(from_logits=True)
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['step', 'rate', 'accuracy', 'cross_entropy', 'val_accuracy'])
steps = 1200
for step in range(1, steps + 1):
    rate = 1e-3 if step <= 800 else 2e-4
    for g in opt.param_groups: g['lr'] = rate
    model.train(); j = torch.randint(0, len(ytr), (100,))
    out = model(Xtr[j]); loss = loss_fn(out, ytr[j])
    opt.zero_grad(); loss.backward(); opt.step()
    acc = (out.argmax(1) == ytr[j]).float().mean().item()
    va = ''
    if step % 20 == 0:
        print('Step #%d: rate %f, accuracy %.2f%%, cross entropy %f' % (step, rate, acc * 100, loss.item()))
    if step % 200 == 0:
        model.eval()
        with torch.no_grad(): va = (model(Xva).argmax(1) == yva).float().mean().item()
        print('Step %d: Validation accuracy = %.2f%% (N=%d)' % (step, va * 100, len(yva)))
    wr.writerow([step, rate, round(acc, 4), round(loss.item(), 5), va])
