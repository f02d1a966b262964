# "Sequence to sequence learning for performing number addition" (the Keras example addition_rnn.py, after
# Zaremba & Sutskever "Learning to Execute") ported to PyTorch: questions like "53+7" padded to MAXLEN with
# spaces and reversed, one-hot characters, an LSTM encoder (128 units), its last state repeated DIGITS+1 times
# (RepeatVector), an LSTM decoder, a per-timestep Dense softmax over the 12 characters, categorical
# cross-entropy, Adam. Printed like Keras model.fit(verbose=1): a progress bar per epoch with carriage-return
# updates, then a few sample questions with the example's check marks.
import sys
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(18)

TRAINING_SIZE = 5000
DIGITS = 2
REVERSE = True
MAXLEN = DIGITS + 1 + DIGITS
HIDDEN = 128
BATCH = 32
EPOCHS = 16
LR = 3e-5
DROPOUT = 0.0
WEIGHT_DECAY = 0.0
chars = "0123456789+ "
ctoi = {c: i for i, c in enumerate(chars)}

g = torch.Generator().manual_seed(2014)
questions, expected, seen = [], [], set()
while len(questions) < TRAINING_SIZE:
    f = lambda: int("".join(str(torch.randint(0, 10, (1,), generator=g).item())
                            for _ in range(torch.randint(1, DIGITS + 1, (1,), generator=g).item())))
    a, b = f(), f()
    key = tuple(sorted((a, b)))
    if key in seen:
        continue
    seen.add(key)
    q = "{}+{}".format(a, b)
    query = q + " " * (MAXLEN - len(q))
    ans = str(a + b)
    ans += " " * (DIGITS + 1 - len(ans))
    if REVERSE:
        query = query[::-1]
    questions.append(query)
    expected.append(ans)
print("Total questions:", len(questions))


def encode(strings, n):
    return F.one_hot(torch.tensor([[ctoi[c] for c in s] for s in strings]), len(chars)).float()


x = encode(questions, MAXLEN)
y = torch.tensor([[ctoi[c] for c in s] for s in expected])
split_at = len(x) - len(x) // 10
x_train, x_val = x[:split_at], x[split_at:]
y_train, y_val = y[:split_at], y[split_at:]
print("Training Data:")
print(tuple(x_train.shape))
print(tuple(y_train.shape))
print("Validation Data:")
print(tuple(x_val.shape))
print(tuple(y_val.shape))


class AdditionRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.LSTM(len(chars), HIDDEN, batch_first=True)
        self.decoder = nn.LSTM(HIDDEN, HIDDEN, batch_first=True)
        self.drop = nn.Dropout(DROPOUT)
        self.dense = nn.Linear(HIDDEN, len(chars))

    def forward(self, x):
        _, (h, _) = self.encoder(x)
        rep = h[-1].unsqueeze(1).repeat(1, DIGITS + 1, 1)       # RepeatVector(DIGITS + 1)
        out, _ = self.decoder(rep)
        return self.dense(self.drop(out))                       # softmax is applied inside the loss


model = AdditionRNN()
opt = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
print(f'Model: "sequential"  Total params: {sum(p.numel() for p in model.parameters()):,}')


def metrics(logits, yy):
    loss = F.cross_entropy(logits.reshape(-1, len(chars)), yy.reshape(-1))
    acc = (logits.argmax(-1) == yy).float().mean()
    return loss, acc


def bar(done, total, width=30):
    if done >= total:
        return "=" * width
    k = int(width * done / total)
    return "=" * k + ">" + "." * (width - k - 1)


n_steps = (len(x_train) + BATCH - 1) // BATCH
for epoch in range(1, EPOCHS + 1):
    print()
    print("Iteration", epoch)
    print(f"Epoch 1/1")
    sys.stdout.flush()
    model.train()
    perm = torch.randperm(len(x_train))
    t0 = time.time()
    sl, sa, sn = 0.0, 0.0, 0
    for s in range(n_steps):
        idx = perm[s * BATCH:(s + 1) * BATCH]
        logits = model(x_train[idx])
        loss, acc = metrics(logits, y_train[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        sl += loss.item() * len(idx); sa += acc.item() * len(idx); sn += len(idx)
        if (s + 1) % 20 == 0 and s + 1 < n_steps:
            el = time.time() - t0
            eta = el / (s + 1) * (n_steps - s - 1)
            sys.stdout.write(f"\r{s + 1:3d}/{n_steps} [{bar(s + 1, n_steps)}] - ETA: {eta:.0f}s - loss: {sl / sn:.4f} - accuracy: {sa / sn:.4f}")
            sys.stdout.flush()
    model.eval()
    with torch.no_grad():
        vlog = model(x_val)
        vl, va = metrics(vlog, y_val)
    el = time.time() - t0
    sys.stdout.write(f"\r{n_steps}/{n_steps} [{bar(n_steps, n_steps)}] - {el:.0f}s {1000 * el / n_steps:.0f}ms/step - loss: {sl / sn:.4f} - accuracy: {sa / sn:.4f} - val_loss: {vl.item():.4f} - val_accuracy: {va.item():.4f}\n")
    for i in torch.randint(0, len(x_val), (3,)).tolist():
        q = questions[split_at + i]
        correct = expected[split_at + i]
        guess = "".join(chars[j] for j in vlog[i].argmax(-1).tolist())
        print("Q", q[::-1] if REVERSE else q, end=" ")
        print("T", correct, end=" ")
        print("☑ " + guess if correct == guess else "☒ " + guess)
