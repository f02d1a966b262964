# 649453932/Bert-Chinese-Text-Classification-Pytorch run on a self-built data set in miniature: the
# repository's layout (data/class.txt with one class name per line, train/dev/test files of
# "text<TAB>label" lines, config.num_classes = len(class_list), DataLoader-like batching of
# batch_size 128, a classifier head nn.Linear(hidden_size, num_classes) trained with
# F.cross_entropy, Adam lr 5e-5, "Epoch [1/3]" and "Iter: ..." log lines). A small embedding +
# Transformer-encoder model with mean pooling stands in for BERT; 2600 synthetic short "news
# titles" (random character ids with class-specific keywords) of 13 classes. The self-built
# label column numbers the 13 classes 1..13 instead of 0..12.
import time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(5); torch.manual_seed(5); torch.set_num_threads(1)
class_list = ['财经', '房产', '股票', '教育', '科技', '社会', '时政', '体育', '游戏', '娱乐', '汽车', '军事', '健康']
num_classes = len(class_list)
VOCAB, PAD = 3000, 32
keywords = np.random.randint(1, VOCAB, (num_classes, 6))
def build(n):
    lines = []
    for _ in range(n):
        c = np.random.randint(num_classes); L = np.random.randint(10, 30)
        toks = np.random.randint(1, VOCAB, L); toks[np.random.choice(L, 3, replace=False)] = np.random.choice(keywords[c], 3)
        lines.append((' '.join(map(str, toks)), str(c + 1)))          # self-built labels: 1..13
    return lines
train_lines, dev_lines = build(2340), build(260)
print('Loading data...')
def to_tensor(lines):
    ids = torch.zeros(len(lines), PAD, dtype=torch.long); y = torch.zeros(len(lines), dtype=torch.long)
    for i, (t, l) in enumerate(lines):
        toks = [int(v) for v in t.split()][:PAD]; ids[i, :len(toks)] = torch.tensor(toks); y[i] = int(l)
    return ids, y
tr_x, tr_y = to_tensor(train_lines); dv_x, dv_y = to_tensor(dev_lines)
print(f'Time usage: 0:00:01')

class Model(nn.Module):
    def __init__(self, hidden_size=128):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, hidden_size, padding_idx=0)
        self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(hidden_size, 4, 256, batch_first=True), 2)
        self.fc = nn.Linear(hidden_size, num_classes)
    def forward(self, x):
        mask = x == 0
        h = self.enc(self.emb(x), src_key_padding_mask=mask)
        h = (h * (~mask)[..., None]).sum(1) / (~mask).sum(1, keepdim=True)
        return self.fc(h)

model = Model(); optimizer = torch.optim.Adam(model.parameters(), lr=5e-5)
total_batch = 0; start = time.time()
for epoch in range(3):
    print(f'Epoch [{epoch + 1}/3]', flush=True)
    perm = torch.randperm(len(tr_x))
    for b in range(0, len(tr_x), 128):
        idx = perm[b:b + 128]
        outputs = model(tr_x[idx])
        model.zero_grad()
        loss = F.cross_entropy(outputs, tr_y[idx])
        loss.backward(); optimizer.step()
        if total_batch % 5 == 0:
            acc = (outputs.argmax(1) == tr_y[idx]).float().mean().item()
            print(f'Iter: {total_batch:>6},  Train Loss: {loss.item():>5.2},  Train Acc: {acc:>6.2%},  Time: {time.time() - start:.0f}s', flush=True)
        total_batch += 1
