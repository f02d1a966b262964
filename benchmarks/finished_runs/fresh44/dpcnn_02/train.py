# DPCNN (Johnson & Zhang, "Deep Pyramid Convolutional Neural Networks for Text Categorization", ACL 2017), as in
# the common PyTorch ports (e.g. Chinese-Text-Classification-Pytorch models/DPCNN.py): word embeddings, a region
# embedding (conv over 3 words), two pre-activation 3-wide convolutions, then repeated blocks of
# {pad, max-pool size 3 stride 2, two pre-activation convolutions, shortcut} that halve the sequence until its
# length is 1, and a Linear classifier. Synthetic four-topic "news" of 64 tokens: Zipf-distributed filler words,
# three cue bigrams of the document's topic and one distractor bigram of another topic; 6% of labels resampled.
# AdamW with a linear warmup/decay schedule; logged like the Hugging Face Trainer (dicts per logging step/eval).
import math
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(17)

VOCAB, SEQ_LEN, N_CLASSES = 400, 64, 4
N_TRAIN, N_VAL = 2000, 600
EMB, FILTERS = 32, 32
LR = 1e-3
WEIGHT_DECAY = 0.01
BATCH = 8
EPOCHS = 4
WARMUP_RATIO = 0.1
LOG_STEPS = 25
MAX_GRAD_NORM = 1.0

g = torch.Generator().manual_seed(2017)
zipf = 1.0 / torch.arange(1, VOCAB - 40 + 1).float()
cues = (torch.randperm(40, generator=g) + VOCAB - 40).view(N_CLASSES, 5, 2)   # 5 cue bigrams per topic


def make(n):
    X = torch.multinomial(zipf, n * SEQ_LEN, replacement=True, generator=g).view(n, SEQ_LEN)
    y = torch.randint(0, N_CLASSES, (n,), generator=g)
    for i in range(n):
        c = y[i].item()
        other = (c + torch.randint(1, N_CLASSES, (1,), generator=g).item()) % N_CLASSES
        for cls in (c, c, c, other):
            b = cues[cls, torch.randint(0, 5, (1,), generator=g).item()]
            p = torch.randint(0, SEQ_LEN - 1, (1,), generator=g).item()
            X[i, p:p + 2] = b
    noisy = torch.rand(n, generator=g) < 0.06
    y[noisy] = torch.randint(0, N_CLASSES, (int(noisy.sum()),), generator=g)
    return X, y


Xtr, ytr = make(N_TRAIN)
Xva, yva = make(N_VAL)


class DPCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, EMB)
        self.conv_region = nn.Conv2d(1, FILTERS, (3, EMB), stride=1)
        self.conv = nn.Conv2d(FILTERS, FILTERS, (3, 1), stride=1)
        self.max_pool = nn.MaxPool2d(kernel_size=(3, 1), stride=2)
        self.padding1 = nn.ZeroPad2d((0, 0, 1, 1))
        self.padding2 = nn.ZeroPad2d((0, 0, 0, 1))
        self.relu = nn.ReLU()
        self.fc = nn.Linear(FILTERS, N_CLASSES)

    def forward(self, x):
        x = self.embedding(x).unsqueeze(1)          # [B, 1, L, E]
        x = self.conv_region(x)                     # [B, F, L-2, 1]
        x = self.padding1(x)
        x = self.relu(x)
        x = self.conv(x)
        x = self.padding1(x)
        x = self.relu(x)
        x = self.conv(x)
        while x.size(2) > 2:
            x = self._block(x)
        x = x.amax(dim=2).squeeze(-1)               # [B, F]
        return self.fc(x)

    def _block(self, x):
        x = self.padding2(x)
        px = self.max_pool(x)
        x = self.padding1(px)
        x = F.relu(x)
        x = self.conv(x)
        x = self.padding1(x)
        x = F.relu(x)
        x = self.conv(x)
        return x + px


model = DPCNN()
opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
steps_per_epoch = math.ceil(N_TRAIN / BATCH)
total = steps_per_epoch * EPOCHS
warm = int(WARMUP_RATIO * total)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: s / max(1, warm) if s < warm else max(0.0, (total - s) / max(1, total - warm)))
loss_fct = nn.CrossEntropyLoss()

print("***** Running training *****")
print(f"  Num examples = {N_TRAIN}")
print(f"  Num Epochs = {EPOCHS}")
print(f"  Instantaneous batch size per device = {BATCH}")
print(f"  Total optimization steps = {total}")
print(f"  Number of trainable parameters = {sum(p.numel() for p in model.parameters() if p.requires_grad)}")


def evaluate():
    model.eval()
    with torch.no_grad():
        logits = model(Xva)
        loss = loss_fct(logits, yva).item()
        acc = (logits.argmax(1) == yva).float().mean().item()
    model.train()
    return loss, acc


t0 = time.time()
step, run_loss, run_n, gn = 0, 0.0, 0, 0.0
for epoch in range(EPOCHS):
    perm = torch.randperm(N_TRAIN)
    for i in range(0, N_TRAIN, BATCH):
        idx = perm[i:i + BATCH]
        logits = model(Xtr[idx])
        loss = loss_fct(logits, ytr[idx])
        opt.zero_grad()
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), MAX_GRAD_NORM).item()
        opt.step()
        sched.step()
        step += 1
        run_loss += loss.item(); run_n += 1
        if step % LOG_STEPS == 0:
            print({'loss': round(run_loss / run_n, 4), 'grad_norm': round(gn, 4), 'learning_rate': sched.get_last_lr()[0],
                   'epoch': round(step / steps_per_epoch, 2)})
            run_loss, run_n = 0.0, 0
    vl, va = evaluate()
    el = time.time() - t0
    print({'eval_loss': round(vl, 4), 'eval_accuracy': round(va, 4), 'eval_runtime': round(el / (epoch + 1) * 0.1, 4),
           'eval_samples_per_second': round(N_VAL / max(1e-6, el / (epoch + 1) * 0.1), 3), 'epoch': float(epoch + 1)})
el = time.time() - t0
print({'train_runtime': round(el, 4), 'train_samples_per_second': round(N_TRAIN * EPOCHS / el, 3),
       'train_steps_per_second': round(total / el, 3), 'train_loss': round(loss.item(), 4), 'epoch': float(EPOCHS)})
