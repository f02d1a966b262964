# Text classification fine-tuning in miniature (HappyTextClassification-style trainer): a
# bag-of-embeddings classifier over tokenised review texts read from a CSV with columns
# text,label (num_labels=2), AdamW lr 5e-3, batch 8, logging every
# 10 steps like the Trainer. One of the CSV rows carries the label -1 (an "unknown" placeholder).
import csv, io, random
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
random.seed(0)

pos = ["great", "love", "excellent", "fun", "best", "wonderful", "nice"]
neg = ["bad", "boring", "awful", "worst", "poor", "dull", "hate"]
filler = ["the", "movie", "was", "and", "plot", "acting", "it", "really", "a", "story"]
rows = []
for i in range(400):
    lab = i % 2
    words = random.sample(filler, 5) + random.sample(pos if lab else neg, 2)
    random.shuffle(words)
    rows.append((" ".join(words), lab))
rows[149] = ("the plot was a story and it really", -1)
buf = io.StringIO()
w = csv.writer(buf); w.writerow(["text", "label"]); w.writerows(rows)
buf.seek(0)
data = [(r["text"], int(r["label"])) for r in csv.DictReader(buf)]

vocab = {t: i for i, t in enumerate(sorted(set(" ".join(d[0] for d in data).split())))}
def encode(text):
    return torch.tensor([vocab[t] for t in text.split()])

class Classifier(nn.Module):
    def __init__(self, num_labels=2):
        super().__init__()
        self.emb = nn.EmbeddingBag(len(vocab), 32)
        self.head = nn.Linear(32, num_labels)
    def forward(self, texts):
        ids = torch.cat([encode(t) for t in texts]); offs = torch.tensor([0] + [len(t.split()) for t in texts[:-1]]).cumsum(0)
        return self.head(self.emb(ids, offs))

model = Classifier(num_labels=2)
opt = torch.optim.AdamW(model.parameters(), lr=5e-3)
order = list(range(len(data)))
random.shuffle(order)
steps_per_epoch = len(data) // 8
step = 0
for epoch in range(3):
    for b in range(steps_per_epoch):
        batch = [data[i] for i in order[b * 8:(b + 1) * 8]]
        logits = model([t for t, _ in batch])
        loss = F.cross_entropy(logits, torch.tensor([l for _, l in batch]))
        opt.zero_grad(); loss.backward(); opt.step()
        step += 1
        if step % 10 == 0:
            print({'loss': round(loss.item(), 4), 'learning_rate': 5e-3, 'epoch': round(step / steps_per_epoch, 2)})
    random.shuffle(order)
