# sgrvinod/a-PyTorch-Tutorial-to-Image-Captioning issue "RuntimeError: CUDA error: out of memory" in
# miniature: the tutorial's train.py (March 2019) with its Attention / DecoderWithAttention (show, attend
# and tell: soft attention, gating scalar, LSTMCell, doubly stochastic attention regularisation alpha_c = 1,
# grad_clip 5, decoder_lr 4e-4, frozen encoder), train() and validate() loops and their print lines, run
# with batch_size 128 as in the report. validate() has no torch.no_grad(), so while batch i is decoded the
# previous batch's scores / scores_copy / loss still hold their autograd graphs. Scaled down: a small
# frozen CNN encoder (7 x 7 feature map, encoder_dim 128), attention / embedding / decoder dims 128,
# synthetic 32 x 32 images of coloured shapes with template captions (5 per image) instead of COCO and
# ResNet-101. The GPU's memory is emulated with an address-space limit set once everything is loaded,
# sized so that a training step fits and two validation graphs do not (large buffers are mmapped and
# returned on free). BLEU-4 (nltk) is left out.
import ctypes, resource, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
ctypes.CDLL('libc.so.6').mallopt(-3, 128 * 1024)     # M_MMAP_THRESHOLD fixed: large buffers are returned on free, like a caching-free device allocator
device = torch.device('cpu')
emb_dim = attention_dim = decoder_dim = 128; encoder_dim = 128
dropout = 0.5; batch_size = 128; decoder_lr = 4e-4; grad_clip = 5.; alpha_c = 1.; print_freq = 2
epochs = 3; DEVICE_MEM_MB = 115

colours = ['red', 'green', 'blue', 'yellow']; shapes = ['square', 'bar', 'cross']; places = ['left', 'right', 'top', 'bottom']
words = ['<pad>', '<start>', '<end>', '<unk>', 'a', 'an', 'image', 'of', 'the', 'on', 'at', 'in', 'small', 'big', 'shape',
         'there', 'is'] + colours + shapes + places
word_map = {w: i for i, w in enumerate(words)}
RGB = {'red': (1, 0, 0), 'green': (0, 1, 0), 'blue': (0, 0, 1), 'yellow': (1, 1, 0)}
MAXLEN = 12

def make_example():
    c, s, p = np.random.choice(colours), np.random.choice(shapes), np.random.choice(places)
    big = np.random.rand() < 0.5
    img = 0.1 * np.random.rand(3, 32, 32).astype(np.float32)
    r = 6 if big else 3
    cy, cx = {'left': (16, 8), 'right': (16, 24), 'top': (8, 16), 'bottom': (24, 16)}[p]
    m = np.zeros((32, 32), bool)
    if s == 'square': m[cy - r:cy + r, cx - r:cx + r] = True
    elif s == 'bar': m[cy - 1:cy + 1, cx - r:cx + r] = True
    else: m[cy - r:cy + r, cx - 1:cx + 1] = True; m[cy - 1:cy + 1, cx - r:cx + r] = True
    for k in range(3): img[k][m] += RGB[c][k]
    size = 'big' if big else 'small'
    templates = [['a', size, c, s, 'on', 'the', p], ['a', c, s, 'at', 'the', p], ['there', 'is', 'a', c, s, 'on', 'the', p],
                 ['an', 'image', 'of', 'a', size, c, s], ['a', c, 'shape', 'in', 'the', p]]
    caps, lens = [], []
    for t in templates:
        ids = [word_map['<start>']] + [word_map[w] for w in t] + [word_map['<end>']]
        lens.append(len(ids)); caps.append(ids + [0] * (MAXLEN - len(ids)))
    return img, caps, lens

def make_split(n):
    ex = [make_example() for _ in range(n)]
    imgs = torch.tensor(np.stack([e[0] for e in ex]))
    allcaps = torch.tensor([e[1] for e in ex]); alllens = torch.tensor([e[2] for e in ex])
    return imgs, allcaps, alllens

train_imgs, train_caps, train_lens = make_split(768)
val_imgs, val_caps, val_lens = make_split(512)

def train_loader():
    for i in range(0, len(train_imgs), batch_size):   # one caption per image per epoch, as CaptionDataset
        k = np.random.randint(0, 5)
        yield train_imgs[i:i + batch_size], train_caps[i:i + batch_size, k], train_lens[i:i + batch_size, k:k + 1]

def val_loader():
    for i in range(0, len(val_imgs), batch_size):
        yield val_imgs[i:i + batch_size], val_caps[i:i + batch_size, 0], val_lens[i:i + batch_size, 0:1], val_caps[i:i + batch_size]

class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.cnn = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                 nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                 nn.Conv2d(64, encoder_dim, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(7))
        for p in self.parameters(): p.requires_grad = False          # fine_tune_encoder = False
    def forward(self, images):
        return self.cnn(images).permute(0, 2, 3, 1)                    # (batch, 7, 7, encoder_dim)

class Attention(nn.Module):
    def __init__(self, encoder_dim, decoder_dim, attention_dim):
        super().__init__()
        self.encoder_att = nn.Linear(encoder_dim, attention_dim); self.decoder_att = nn.Linear(decoder_dim, attention_dim)
        self.full_att = nn.Linear(attention_dim, 1); self.relu = nn.ReLU(); self.softmax = nn.Softmax(dim=1)
    def forward(self, encoder_out, decoder_hidden):
        att1 = self.encoder_att(encoder_out); att2 = self.decoder_att(decoder_hidden)
        att = self.full_att(self.relu(att1 + att2.unsqueeze(1))).squeeze(2)
        alpha = self.softmax(att)
        return (encoder_out * alpha.unsqueeze(2)).sum(dim=1), alpha

class DecoderWithAttention(nn.Module):
    def __init__(self, attention_dim, embed_dim, decoder_dim, vocab_size, encoder_dim=2048, dropout=0.5):
        super().__init__()
        self.vocab_size = vocab_size
        self.attention = Attention(encoder_dim, decoder_dim, attention_dim)
        self.embedding = nn.Embedding(vocab_size, embed_dim); self.dropout = nn.Dropout(p=dropout)
        self.decode_step = nn.LSTMCell(embed_dim + encoder_dim, decoder_dim, bias=True)
        self.init_h = nn.Linear(encoder_dim, decoder_dim); self.init_c = nn.Linear(encoder_dim, decoder_dim)
        self.f_beta = nn.Linear(decoder_dim, encoder_dim); self.sigmoid = nn.Sigmoid()
        self.fc = nn.Linear(decoder_dim, vocab_size)
        self.embedding.weight.data.uniform_(-0.1, 0.1); self.fc.bias.data.fill_(0); self.fc.weight.data.uniform_(-0.1, 0.1)
    def forward(self, encoder_out, encoded_captions, caption_lengths):
        batch_size = encoder_out.size(0); encoder_dim = encoder_out.size(-1)
        encoder_out = encoder_out.view(batch_size, -1, encoder_dim); num_pixels = encoder_out.size(1)
        caption_lengths, sort_ind = caption_lengths.squeeze(1).sort(dim=0, descending=True)
        encoder_out = encoder_out[sort_ind]; encoded_captions = encoded_captions[sort_ind]
        embeddings = self.embedding(encoded_captions)
        mean_encoder_out = encoder_out.mean(dim=1)
        h, c = self.init_h(mean_encoder_out), self.init_c(mean_encoder_out)
        decode_lengths = (caption_lengths - 1).tolist()
        predictions = torch.zeros(batch_size, max(decode_lengths), self.vocab_size).to(device)
        alphas = torch.zeros(batch_size, max(decode_lengths), num_pixels).to(device)
        for t in range(max(decode_lengths)):
            batch_size_t = sum([l > t for l in decode_lengths])
            awe, alpha = self.attention(encoder_out[:batch_size_t], h[:batch_size_t])
            gate = self.sigmoid(self.f_beta(h[:batch_size_t])); awe = gate * awe
            h, c = self.decode_step(torch.cat([embeddings[:batch_size_t, t, :], awe], dim=1),
                                    (h[:batch_size_t], c[:batch_size_t]))
            preds = self.fc(self.dropout(h))
            predictions[:batch_size_t, t, :] = preds; alphas[:batch_size_t, t, :] = alpha
        return predictions, encoded_captions, decode_lengths, alphas, sort_ind

class AverageMeter:
    def __init__(self): self.val = self.avg = self.sum = self.count = 0
    def update(self, val, n=1):
        self.val = val; self.sum += val * n; self.count += n; self.avg = self.sum / self.count

def accuracy(scores, targets, k):
    _, ind = scores.topk(k, 1, True, True)
    return ind.eq(targets.view(-1, 1).expand_as(ind)).view(-1).float().sum().item() * (100.0 / targets.size(0))

def train(encoder, decoder, criterion, decoder_optimizer, epoch):
    decoder.train(); encoder.train()
    batch_time, data_time, losses, top5accs = AverageMeter(), AverageMeter(), AverageMeter(), AverageMeter()
    start = time.time(); n = (len(train_imgs) + batch_size - 1) // batch_size
    for i, (imgs, caps, caplens) in enumerate(train_loader()):
        data_time.update(time.time() - start)
        imgs = encoder(imgs)
        scores, caps_sorted, decode_lengths, alphas, sort_ind = decoder(imgs, caps, caplens)
        targets = caps_sorted[:, 1:]
        scores = pack_padded_sequence(scores, decode_lengths, batch_first=True).data
        targets = pack_padded_sequence(targets, decode_lengths, batch_first=True).data
        loss = criterion(scores, targets)
        loss += alpha_c * ((1. - alphas.sum(dim=1)) ** 2).mean()
        decoder_optimizer.zero_grad(); loss.backward()
        for group in decoder_optimizer.param_groups:
            for param in group['params']:
                if param.grad is not None: param.grad.data.clamp_(-grad_clip, grad_clip)
        decoder_optimizer.step()
        top5 = accuracy(scores, targets, 5)
        losses.update(loss.item(), sum(decode_lengths)); top5accs.update(top5, sum(decode_lengths))
        batch_time.update(time.time() - start); start = time.time()
        if i % print_freq == 0:
            print('Epoch: [{0}][{1}/{2}]\tBatch Time {batch_time.val:.3f} ({batch_time.avg:.3f})\t'
                  'Data Load Time {data_time.val:.3f} ({data_time.avg:.3f})\tLoss {loss.val:.4f} ({loss.avg:.4f})\t'
                  'Top-5 Accuracy {top5.val:.3f} ({top5.avg:.3f})'.format(epoch, i, n, batch_time=batch_time,
                  data_time=data_time, loss=losses, top5=top5accs), flush=True)

def validate(encoder, decoder, criterion):
    decoder.eval(); encoder.eval()
    batch_time, losses, top5accs = AverageMeter(), AverageMeter(), AverageMeter()
    start = time.time(); n = (len(val_imgs) + batch_size - 1) // batch_size
    references, hypotheses = list(), list()
    for i, (imgs, caps, caplens, allcaps) in enumerate(val_loader()):
        imgs = encoder(imgs)
        scores, caps_sorted, decode_lengths, alphas, sort_ind = decoder(imgs, caps, caplens)
        targets = caps_sorted[:, 1:]
        scores_copy = scores.clone()
        scores = pack_padded_sequence(scores, decode_lengths, batch_first=True).data
        targets = pack_padded_sequence(targets, decode_lengths, batch_first=True).data
        loss = criterion(scores, targets)
        loss += alpha_c * ((1. - alphas.sum(dim=1)) ** 2).mean()
        losses.update(loss.item(), sum(decode_lengths))
        top5 = accuracy(scores, targets, 5); top5accs.update(top5, sum(decode_lengths))
        batch_time.update(time.time() - start); start = time.time()
        if i % print_freq == 0:
            print('Validation: [{0}/{1}]\tBatch Time {batch_time.val:.3f} ({batch_time.avg:.3f})\t'
                  'Loss {loss.val:.4f} ({loss.avg:.4f})\tTop-5 Accuracy {top5.val:.3f} ({top5.avg:.3f})\t'.format(
                  i, n, batch_time=batch_time, loss=losses, top5=top5accs), flush=True)
        allcaps = allcaps[sort_ind]
        for j in range(allcaps.shape[0]):
            references.append([[w for w in c if w not in {word_map['<start>'], word_map['<pad>']}] for c in allcaps[j].tolist()])
        _, preds = torch.max(scores_copy, dim=2)
        hypotheses.extend([p[:decode_lengths[j]] for j, p in enumerate(preds.tolist())])
        assert len(references) == len(hypotheses)
    print('\n * LOSS - {loss.avg:.3f}, TOP-5 ACCURACY - {top5.avg:.3f}\n'.format(loss=losses, top5=top5accs))
    return top5accs.avg

def vm_bytes():
    for l in open('/proc/self/status'):
        if l.startswith('VmSize'): return int(l.split()[1]) * 1024

encoder = Encoder()
decoder = DecoderWithAttention(attention_dim=attention_dim, embed_dim=emb_dim, decoder_dim=decoder_dim,
                               vocab_size=len(word_map), encoder_dim=encoder_dim, dropout=dropout)
decoder_optimizer = torch.optim.Adam(params=filter(lambda p: p.requires_grad, decoder.parameters()), lr=decoder_lr)
criterion = nn.CrossEntropyLoss()
lim = vm_bytes() + DEVICE_MEM_MB * 2 ** 20
resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
print('%d training / %d validation images, vocabulary %d, batch_size %d, free device memory %d MB'
      % (len(train_imgs), len(val_imgs), len(word_map), batch_size, DEVICE_MEM_MB), flush=True)
for epoch in range(epochs):
    train(encoder, decoder, criterion, decoder_optimizer, epoch)
    recent = validate(encoder, decoder, criterion)
