# torch-rnn-style char-level LSTM language model (Adam lr 2e-3, lr_decay_every 2 epochs,
# lr_decay_factor 0.5, grad_clip 5, seq_length 50, batch_size 32) on a small text corpus
import csv
import random
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)
torch.set_num_threads(1)

words = ["the", "cat", "sat", "on", "mat", "a", "dog", "ran", "to", "park", "and", "then", "slept",
         "under", "tree", "while", "bird", "sang", "song", "of", "morning", "light", "over", "hill"]
trans = {w: random.sample(words, 4) for w in words}
w = "the"; out = []
for _ in range(30000):
    out.append(w)
    w = random.choice(trans[w]) if random.random() < 0.9 else random.choice(words)
    if random.random() < 0.05:
        out.append(".\n")
text = " ".join(out)
chars = sorted(set(text)); stoi = {c: i for i, c in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text])
n = int(0.9 * len(data)); train, val = data[:n], data[n:]
V, H, S, B = len(chars), 128, 50, 32

class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, 64)
        self.rnn = nn.LSTM(64, H, batch_first=True)
        self.out = nn.Linear(H, V)
    def forward(self, x):
        h, _ = self.rnn(self.emb(x))
        return self.out(h)

def get_batch(src):
    ix = torch.randint(0, len(src) - S - 1, (B,))
    x = torch.stack([src[i:i + S] for i in ix]); y = torch.stack([src[i + 1:i + S + 1] for i in ix])
    return x, y

model = LM()
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
iters_per_epoch = 100
num_epochs, lr_decay_every, lr_decay_factor = 8, 2, 0.5
it = 0
with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["iter", "epoch", "lr", "loss", "val_loss"])
    for epoch in range(1, num_epochs + 1):
        if epoch > 1 and (epoch - 1) % lr_decay_every == 0:
            for g_ in opt.param_groups:
                g_["lr"] *= lr_decay_factor
        for _ in range(iters_per_epoch):
            it += 1
            x, y = get_batch(train)
            loss = F.cross_entropy(model(x).reshape(-1, V), y.reshape(-1))
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 5)
            opt.step()
            vl = ""
            if it % 50 == 0:
                with torch.no_grad():
                    xv, yv = get_batch(val)
                    vl = f"{F.cross_entropy(model(xv).reshape(-1, V), yv.reshape(-1)).item():.4f}"
            wr.writerow([it, epoch, opt.param_groups[0]["lr"], f"{loss.item():.4f}", vl])
            if it % 25 == 0:
                print(f"Epoch {epoch:.2f} / {num_epochs}, i = {it} / {num_epochs * iters_per_epoch}, loss = {loss.item():.6f}")
        fh.flush()
