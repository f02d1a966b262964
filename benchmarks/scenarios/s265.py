# Speech-to-text in miniature (DeepSpeech-style): a bidirectional GRU acoustic model over
# synthetic 12-d filterbank frames emits per-frame character probabilities, trained with CTC
# (Adam lr 1e-3, batch 16, dropout 0.1); greedy CTC decoding gives the validation word error rate
# (each 'word' is one token of a 6-symbol alphabet). 60 epochs, reported every 5 epochs.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)

g = torch.Generator().manual_seed(51)
V, FEAT = 6, 12                                        # symbols 1..6, blank = 0
emb = torch.randn(V + 1, FEAT, generator=g)
def utterance():
    L = int(torch.randint(3, 7, (1,), generator=g))
    labels = torch.randint(1, V + 1, (L,), generator=g)
    frames = []
    for s in labels:
        d = int(torch.randint(2, 5, (1,), generator=g))
        frames += [emb[s] + 1.7 * torch.randn(FEAT, generator=g) for _ in range(d)]
        frames += [emb[0] + 1.7 * torch.randn(FEAT, generator=g)]
    return torch.stack(frames), labels
train = [utterance() for _ in range(320)]
dev = [utterance() for _ in range(100)]

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(FEAT, 24, batch_first=True, bidirectional=True)
        self.drop = nn.Dropout(0.1)
        self.out = nn.Linear(48, V + 1)
    def forward(self, x):
        h, _ = self.rnn(x)
        return self.out(self.drop(h)).log_softmax(-1)

def pad(batch):
    xs = nn.utils.rnn.pad_sequence([b[0] for b in batch], batch_first=True)
    xl = torch.tensor([len(b[0]) for b in batch]); ys = torch.cat([b[1] for b in batch]); yl = torch.tensor([len(b[1]) for b in batch])
    return xs, xl, ys, yl

def edit(a, b):
    d = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        prev, d[0] = d[0], i
        for j in range(1, len(b) + 1):
            cur = min(d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] != b[j - 1]))
            prev, d[j] = d[j], cur
    return d[len(b)]

model = Model()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(1, 61):
    model.train()
    perm = torch.randperm(len(train)).tolist()
    tot = 0.0
    for i in range(0, len(train), 16):
        xs, xl, ys, yl = pad([train[j] for j in perm[i:i + 16]])
        lp = model(xs).transpose(0, 1)
        loss = F.ctc_loss(lp, ys, xl, yl, blank=0, zero_infinity=True)
        opt.zero_grad(); loss.backward(); opt.step()
        tot += loss.item()
    if epoch % 5 == 0 or epoch == 1:
        model.eval()
        with torch.no_grad():
            xs, xl, ys, yl = pad(dev)
            lp = model(xs)
            dl = F.ctc_loss(lp.transpose(0, 1), ys, xl, yl, blank=0).item()
            errs = words = 0
            for k, (x, y) in enumerate(dev):
                best = lp[k, :len(x)].argmax(-1).tolist()
                hyp = [c for n, c in enumerate(best) if c != 0 and (n == 0 or c != best[n - 1])]
                errs += edit(hyp, y.tolist()); words += len(y)
        print(f"Epoch {epoch:2d} | Training loss: {tot / (len(train) / 16):.6f} | Validation loss: {dl:.6f} | Validation WER: {errs / words:.4f}")
