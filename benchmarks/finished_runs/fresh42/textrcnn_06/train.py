# TextRCNN classifier (Lai, Xu, Liu & Zhao, "Recurrent Convolutional Neural Networks for Text Classification", AAAI 2015)
# as in the common PyTorch ports (e.g. the TextRCNN model of Text-Classification-Pytorch repositories): word embeddings,
# a bidirectional GRU, [left context; embedding; right context] -> Linear -> tanh, max-pool over time, Linear to the
# classes; AdamW with a linear decay schedule and warmup, logged as Hugging Face Trainer-style dicts.
# Synthetic four-class "reviews": class cue bigrams among filler words, some cues negated by a preceding "not".
import math, random, time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(3)
random.seed(3)

VOCAB = 400
SEQ_LEN = 36
N_CLASSES = 4
N_TRAIN, N_VAL = 2400, 600
EMB, HID, PROJ = 32, 32, 48
BATCH = 32
EPOCHS = 5
LR = 2e-3
WEIGHT_DECAY = 0.01
WARMUP_RATIO = 0.06
LOGGING_STEPS = 25
DROPOUT = 0.2
NOT_ID = 1
CUES = [[(10 + 8 * c + k, 50 + 8 * c + k) for k in range(8)] for c in range(N_CLASSES)]


def make_doc():
    y = random.randrange(N_CLASSES)
    toks = [random.randrange(100, VOCAB) for _ in range(SEQ_LEN)]
    for _ in range(2):
        a, b = random.choice(CUES[y])
        p = random.randrange(1, SEQ_LEN - 1)
        toks[p], toks[p + 1] = a, b
    # a negated distractor cue from another class
    wrong = random.choice([c for c in range(N_CLASSES) if c != y])
    a, b = random.choice(CUES[wrong])
    p = random.randrange(1, SEQ_LEN - 2)
    toks[p], toks[p + 1], toks[p + 2] = NOT_ID, a, b
    return toks, y


def make_set(n):
    docs = [make_doc() for _ in range(n)]
    return torch.tensor([d for d, _ in docs]), torch.tensor([y for _, y in docs])


Xtr, Ytr = make_set(N_TRAIN)
Xva, Yva = make_set(N_VAL)


class TextRCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, EMB)
        self.rnn = nn.GRU(EMB, HID, batch_first=True, bidirectional=True)
        self.W2 = nn.Linear(2 * HID + EMB, PROJ)
        self.dropout = nn.Dropout(DROPOUT)
        self.fc = nn.Linear(PROJ, N_CLASSES)

    def forward(self, x):
        e = self.embedding(x)
        out, _ = self.rnn(e)
        h = torch.tanh(self.W2(torch.cat([out, e], dim=2)))
        h = h.max(dim=1).values.detach()
        return self.fc(self.dropout(h))


model = TextRCNN()
no_decay = ["bias"]
groups = [
    {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)], "weight_decay": WEIGHT_DECAY},
    {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)], "weight_decay": 0.0},
]
optimizer = torch.optim.AdamW(groups, lr=LR)
steps_per_epoch = math.ceil(N_TRAIN / BATCH)
total_steps = steps_per_epoch * EPOCHS
warmup = int(WARMUP_RATIO * total_steps)
scheduler = torch.optim.lr_scheduler.LambdaLR(
    optimizer, lambda s: s / max(1, warmup) if s < warmup else max(0.0, (total_steps - s) / max(1, total_steps - warmup)))

print("***** Running training *****")
print(f"  Num examples = {N_TRAIN}")
print(f"  Num Epochs = {EPOCHS}")
print(f"  Instantaneous batch size per device = {BATCH}")
print(f"  Total optimization steps = {total_steps}")
print(f"  Number of trainable parameters = {sum(p.numel() for p in model.parameters() if p.requires_grad)}")


def evaluate(epoch):
    t0 = time.time()
    model.eval()
    tot, correct = 0.0, 0
    with torch.no_grad():
        for i in range(0, N_VAL, 128):
            logits = model(Xva[i:i + 128])
            tot += F.cross_entropy(logits, Yva[i:i + 128], reduction="sum").item()
            correct += (logits.argmax(1) == Yva[i:i + 128]).sum().item()
    model.train()
    rt = time.time() - t0
    print({"eval_loss": round(tot / N_VAL, 4), "eval_accuracy": round(correct / N_VAL, 4), "eval_runtime": round(rt, 4),
           "eval_samples_per_second": round(N_VAL / rt, 3), "eval_steps_per_second": round(math.ceil(N_VAL / 128) / rt, 3),
           "epoch": float(epoch)})


start = time.time()
step, run_loss, run_n, all_loss = 0, 0.0, 0, 0.0
model.train()
for epoch in range(EPOCHS):
    perm = torch.randperm(N_TRAIN)
    for i in range(0, N_TRAIN, BATCH):
        idx = perm[i:i + BATCH]
        logits = model(Xtr[idx])
        loss = F.cross_entropy(logits, Ytr[idx])
        optimizer.zero_grad()
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        step += 1
        run_loss += loss.item(); run_n += 1; all_loss += loss.item()
        if step % LOGGING_STEPS == 0:
            print({"loss": round(run_loss / run_n, 4), "grad_norm": round(gn.item(), 4),
                   "learning_rate": float(f"{scheduler.get_last_lr()[0]:.4e}"), "epoch": round(step / steps_per_epoch, 2)})
            run_loss, run_n = 0.0, 0
    evaluate(epoch + 1)
rt = time.time() - start
print({"train_runtime": round(rt, 4), "train_samples_per_second": round(N_TRAIN * EPOCHS / rt, 3),
       "train_steps_per_second": round(total_steps / rt, 3), "train_loss": round(all_loss / total_steps, 4), "epoch": float(EPOCHS)})
