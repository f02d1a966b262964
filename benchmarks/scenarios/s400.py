# BERT-Classification-Tutorial (Socialbird-AILab) in miniature: run_classifier-style fine-tuning of
# a 10-class Chinese news classifier, ported to PyTorch with a small bag-of-embeddings encoder
# standing in for BERT (features are synthetic token ids, 10 categories x 400 training texts).
# As in the tutorial's _create_examples, train.tsv is read line by line in file order: the file
# is sorted by category, and its first line (the header) is taken as an example whose label
# becomes an 11th class. The input_fn shuffles with buffer_size=100 only (tf.data style),
# batch 32, Adam 3e-3 with warmup, 3 epochs, "INFO:tensorflow" style logging.
import csv, math
import numpy as np
import torch, torch.nn as nn

np.random.seed(11); torch.manual_seed(11); torch.set_num_threads(1)

V, L, K = 3000, 48, 10
topic_words = [np.arange(100 + 150 * c, 100 + 150 * (c + 1)) for c in range(K)]
def text(c):
    t = np.random.randint(1600, V, L); j = np.random.choice(L, 16, replace=False)
    t[j] = np.random.choice(topic_words[c], 16); return t
lines = [("label", np.random.randint(1600, V, L))]                     # header line read as data
for c in range(K):
    for _ in range(400): lines.append((str(c), text(c)))               # train.tsv sorted by category
dev = [(str(c), text(c)) for c in range(K) for _ in range(60)]
label_list = sorted(set(l for l, _ in lines))                           # 11 labels incl. "label"
lab = {l: i for i, l in enumerate(label_list)}
print("INFO:tensorflow:label_list: %s" % label_list)
print("INFO:tensorflow:  Num examples = %d" % len(lines))

def shuffled_stream(ex, buffer_size=100):                              # tf.data shuffle(buffer_size=100)
    buf = []
    for e in ex:
        buf.append(e)
        if len(buf) >= buffer_size:
            yield buf.pop(np.random.randint(len(buf)))
    while buf: yield buf.pop(np.random.randint(len(buf)))

class Net(nn.Module):
    def __init__(self, d=64):
        super().__init__(); self.emb = nn.EmbeddingBag(V, d, mode='mean'); self.drop = nn.Dropout(0.1)
        self.fc = nn.Sequential(nn.Linear(d, d), nn.Tanh(), nn.Linear(d, len(label_list)))
    def forward(self, x): return self.fc(self.drop(self.emb(x)))

model = Net(); crit = nn.CrossEntropyLoss()
num_train_epochs, batch_size = 3, 32
num_steps = int(len(lines) / batch_size * num_train_epochs); warm = int(0.1 * num_steps)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min((s + 1) / warm, max(0.0, 1 - s / num_steps)))
print("INFO:tensorflow:  Num steps = %d" % num_steps)
f = open('metrics.csv', 'w', newline=''); w = csv.writer(f); w.writerow(['step', 'loss', 'eval_accuracy', 'eval_loss'])
step = 0
for ep in range(num_train_epochs):
    batch = []
    for e in shuffled_stream(lines):
        batch.append(e)
        if len(batch) < batch_size: continue
        x = torch.tensor(np.stack([t for _, t in batch])); y = torch.tensor([lab[l] for l, _ in batch])
        model.train(); loss = crit(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step(); sched.step(); step += 1; batch = []
        if step % 10 == 0:
            print("INFO:tensorflow:loss = %.7f, step = %d" % (loss.item(), step))
            w.writerow([step, round(loss.item(), 5), '', ''])
        if step >= num_steps: break
    print("INFO:tensorflow:Saving checkpoints for %d into ./output/model.ckpt." % step)

model.eval()
with torch.no_grad():
    x = torch.tensor(np.stack([t for _, t in dev])); y = torch.tensor([lab[l] for l, _ in dev])
    lo = model(x); el = crit(lo, y).item(); ea = (lo.argmax(1) == y).float().mean().item()
w.writerow([step, '', round(ea, 5), round(el, 5)]); f.close()
print("INFO:tensorflow:***** Eval results *****")
print("INFO:tensorflow:  eval_accuracy = %s" % ea)
print("INFO:tensorflow:  eval_loss = %s" % el)
print("INFO:tensorflow:  global_step = %s" % step)
print("INFO:tensorflow:  loss = %s" % el)
