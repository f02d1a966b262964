# fartashf/vsepp issue "loss gap between train and test" in miniature: VSE++ (train.py / model.py /
# evaluation.py) on precomputed image features: EncoderImagePrecomp (fc + l2norm), EncoderText (word
# embedding, GRU, last state, l2norm), ContrastiveLoss(margin=0.2, max_violation=True) summed over the batch,
# Adam (lr 1e-3 instead of the default 2e-4, for the small model), batch 128, grad clip 2, 10 epochs, the PrecompDataset layout (5 captions per image, img_id = index // 5;
# training loader shuffled, validation loader shuffle=False), the "Epoch: [e][i/N] Eit lr Le" and
# "Test: [i/N] Le" log lines (Le = loss value and running average) and the i2t / t2i recall lines
# (R@1, R@5, R@10, median rank, mean rank). Synthetic image features and captions (each image has three
# attribute words out of 48; its five captions name them in different orders with filler words) replace
# COCO / Flickr30k; sizes are scaled down (embed_size 64, word_dim 32, 1000 training / 200 validation images).
import time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
N_ATTR, FEAT, EMB, WDIM, BS, EPOCHS, LR, MARGIN = 48, 256, 64, 32, 128, 10, 1e-3, 0.2
fillers = ['a', 'the', 'with', 'and', 'of', 'in', 'is', 'there']
vocab = ['<pad>', '<start>', '<end>'] + fillers + ['attr%d' % i for i in range(N_ATTR)]
w2i = {w: i for i, w in enumerate(vocab)}
proj = np.random.randn(N_ATTR, FEAT) / np.sqrt(3)

def make_split(n_img):
    attrs = np.stack([np.random.choice(N_ATTR, 3, replace=False) for _ in range(n_img)])
    feats = np.stack([proj[a].sum(0) for a in attrs]) + 0.5 * np.random.randn(n_img, FEAT)
    caps = []
    for a in attrs:
        for _ in range(5):                                   # 5 captions per image, stored consecutively
            words = ['attr%d' % k for k in np.random.permutation(a)]
            toks = []
            for w in words: toks += list(np.random.choice(fillers, np.random.randint(0, 3))) + [w]
            caps.append([w2i['<start>']] + [w2i[t] for t in toks] + [w2i['<end>']])
    return torch.tensor(feats, dtype=torch.float32), caps

train_feats, train_caps = make_split(1000)
val_feats, val_caps = make_split(200)

def collate(idx, feats, caps):                              # data.collate_fn: sort by caption length
    idx = sorted(idx, key=lambda i: len(caps[i]), reverse=True)
    lengths = [len(caps[i]) for i in idx]
    targets = torch.zeros(len(idx), max(lengths), dtype=torch.long)
    for j, i in enumerate(idx): targets[j, :lengths[j]] = torch.tensor(caps[i])
    return feats[[i // 5 for i in idx]], targets, lengths, idx

def loader(feats, caps, shuffle):
    order = np.random.permutation(len(caps)) if shuffle else np.arange(len(caps))
    for i in range(0, len(order), BS): yield collate(list(order[i:i + BS]), feats, caps)

def l2norm(x): return x / x.pow(2).sum(1, keepdim=True).sqrt()

class EncoderImagePrecomp(nn.Module):
    def __init__(self):
        super().__init__(); self.fc = nn.Linear(FEAT, EMB)
        r = np.sqrt(6.) / np.sqrt(FEAT + EMB); self.fc.weight.data.uniform_(-r, r); self.fc.bias.data.fill_(0)
    def forward(self, images): return l2norm(self.fc(images))

class EncoderText(nn.Module):
    def __init__(self):
        super().__init__(); self.embed = nn.Embedding(len(vocab), WDIM); self.rnn = nn.GRU(WDIM, EMB, 1, batch_first=True)
        self.embed.weight.data.uniform_(-0.1, 0.1)
    def forward(self, x, lengths):
        packed = nn.utils.rnn.pack_padded_sequence(self.embed(x), lengths, batch_first=True)
        out, _ = self.rnn(packed)
        padded = nn.utils.rnn.pad_packed_sequence(out, batch_first=True)[0]
        I = torch.LongTensor(lengths).view(-1, 1, 1).expand(x.size(0), 1, EMB) - 1
        return l2norm(torch.gather(padded, 1, I).squeeze(1))

class ContrastiveLoss(nn.Module):
    def __init__(self, margin=0, max_violation=False):
        super().__init__(); self.margin = margin; self.max_violation = max_violation
    def forward(self, im, s):
        scores = im.mm(s.t())
        diagonal = scores.diag().view(im.size(0), 1)
        d1 = diagonal.expand_as(scores); d2 = diagonal.t().expand_as(scores)
        cost_s = (self.margin + scores - d1).clamp(min=0)
        cost_im = (self.margin + scores - d2).clamp(min=0)
        I = torch.eye(scores.size(0)) > .5
        cost_s = cost_s.masked_fill_(I, 0); cost_im = cost_im.masked_fill_(I, 0)
        if self.max_violation:
            cost_s = cost_s.max(1)[0]; cost_im = cost_im.max(0)[0]
        return cost_s.sum() + cost_im.sum()

img_enc, txt_enc = EncoderImagePrecomp(), EncoderText()
criterion = ContrastiveLoss(margin=MARGIN, max_violation=True)
params = list(txt_enc.parameters()) + list(img_enc.fc.parameters())
optimizer = torch.optim.Adam(params, lr=LR)

class Meter:
    def __init__(self): self.val = self.sum = self.count = 0
    def update(self, v, n=1): self.val = v; self.sum += v * n; self.count += n
    @property
    def avg(self): return self.sum / max(self.count, 1)

def i2t_t2i(img_embs, cap_embs):
    n = img_embs.size(0) // 5; ims = img_embs[::5]
    sims = ims.mm(cap_embs.t())
    r_i2t = [int((torch.argsort(sims[i], descending=True).unsqueeze(1) == torch.arange(5 * i, 5 * i + 5)).nonzero()[:, 0].min()) for i in range(n)]
    r_t2i = [int((torch.argsort(sims[:, j], descending=True) == j // 5).nonzero()[0, 0]) for j in range(5 * n)]
    def stats(r):
        r = np.array(r); return [100.0 * np.mean(r < k) for k in (1, 5, 10)] + [np.floor(np.median(r)) + 1, r.mean() + 1]
    return stats(r_i2t), stats(r_t2i)

def validate():
    img_enc.eval(); txt_enc.eval()
    n = len(val_caps); img_embs = torch.zeros(n, EMB); cap_embs = torch.zeros(n, EMB)
    le = Meter(); end = time.time(); nb = (n + BS - 1) // BS
    with torch.no_grad():
        for i, (images, captions, lengths, ids) in enumerate(loader(val_feats, val_caps, shuffle=False)):
            im, cap = img_enc(images), txt_enc(captions, lengths)
            loss = criterion(im, cap); le.update(loss.item(), im.size(0))
            img_embs[ids] = im; cap_embs[ids] = cap
            if i % 4 == 0:
                print('Test: [{0}/{1}]\tLe {2:.4f} ({3:.4f})\tTime {4:.3f}'.format(i, nb, le.val, le.avg, time.time() - end)); end = time.time()
    (r1, r5, r10, medr, meanr), (r1i, r5i, r10i, medri, meanri) = i2t_t2i(img_embs, cap_embs)
    print("Image to text: %.1f, %.1f, %.1f, %.1f, %.1f" % (r1, r5, r10, medr, meanr))
    print("Text to image: %.1f, %.1f, %.1f, %.1f, %.1f" % (r1i, r5i, r10i, medri, meanri), flush=True)

eit = 0; nb = (len(train_caps) + BS - 1) // BS
for epoch in range(EPOCHS):
    le = Meter()
    for i, (images, captions, lengths, ids) in enumerate(loader(train_feats, train_caps, shuffle=True)):
        img_enc.train(); txt_enc.train(); t0 = time.time()
        im, cap = img_enc(images), txt_enc(captions, lengths)
        optimizer.zero_grad(); loss = criterion(im, cap); loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 2.); optimizer.step()
        le.update(loss.item(), im.size(0)); eit += 1
        if i % 20 == 0 or i == nb - 1:
            print('Epoch: [{0}][{1}/{2}]\tEit {3}\tlr {4}\tLe {5:.4f} ({6:.4f})\tTime {7:.3f}'.format(
                epoch, i, nb, eit, LR, le.val, le.avg, time.time() - t0))
    validate()
