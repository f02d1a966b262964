# HATT-Proto (thunlp, hybrid attention-based prototypical networks for few-shot relation
# classification) in miniature: a CNN sentence encoder (word + 2 position embeddings, conv, max
# pool, hidden 230 -> 64 here) on synthetic FewRel-like relation episodes (5-way 5-shot, 5 queries
# per class, relation marked by trigger tokens between two entity positions), feature-level
# attention over the support set (conv1 -> ReLU -> conv2 -> ReLU -> dropout -> conv_final -> ReLU)
# that weights each dimension of the squared Euclidean distance, SGD lr 0.5 (weight decay 1e-5;
# the FewRel toolkit default is 0.1), "step: n | loss: x, accuracy: y%" lines and periodic [EVAL] lines.
import csv
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(6); torch.manual_seed(6); torch.set_num_threads(1)
V, L, R, D = 400, 24, 40, 64
N, K, Q = 5, 5, 5
triggers = np.random.randint(50, V, (R, 3))
def sentence(r):
    s = np.random.randint(50, V, L); h, t = sorted(np.random.choice(np.arange(2, L - 2), 2, replace=False))
    if t - h < 4: t = min(L - 1, h + 4)
    k = np.random.choice(3, 2, replace=False); s[h + 1] = triggers[r, k[0]]; s[h + 2] = triggers[r, k[1]]
    return s, h, t
def batch(rels):
    W, P1, P2, lab = [], [], [], []
    for ci, r in enumerate(rels):
        for _ in range(K + Q):
            s, h, t = sentence(r); W.append(s); P1.append(np.arange(L) - h + L); P2.append(np.arange(L) - t + L); lab.append(ci)
    W, P1, P2 = (torch.tensor(np.array(a)).view(N, K + Q, L) for a in (W, P1, P2))
    sup = [a[:, :K].reshape(-1, L) for a in (W, P1, P2)]; qry = [a[:, K:].reshape(-1, L) for a in (W, P1, P2)]
    return sup, qry, torch.arange(N).repeat_interleave(Q)

class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.word = nn.Embedding(V, 50); self.pos1 = nn.Embedding(2 * L, 5); self.pos2 = nn.Embedding(2 * L, 5)
        self.conv = nn.Conv1d(60, D, 3, padding=1)
    def forward(self, w, p1, p2):
        x = torch.cat([self.word(w), self.pos1(p1), self.pos2(p2)], -1).transpose(1, 2)
        return F.relu(self.conv(x)).max(-1)[0]

class ProtoHATT(nn.Module):
    def __init__(self, shots=K):
        super().__init__()
        self.sentence_encoder = Encoder(); self.drop = nn.Dropout()
        self.conv1 = nn.Conv2d(1, 32, (shots, 1), padding=(shots // 2, 0))
        self.conv2 = nn.Conv2d(32, 64, (shots, 1), padding=(shots // 2, 0))
        self.conv_final = nn.Conv2d(64, 1, (shots, 1), stride=(shots, 1))
    def forward(self, sup, qry):
        support = self.sentence_encoder(*sup).view(N, K, D); query = self.sentence_encoder(*qry)
        fea_att_score = support.view(N, 1, K, D)
        fea_att_score = F.relu(self.conv1(fea_att_score))
        fea_att_score = F.relu(self.conv2(fea_att_score))
        fea_att_score = self.drop(fea_att_score)
        fea_att_score = self.conv_final(fea_att_score)
        fea_att_score = F.relu(fea_att_score)               # ReLU on top of the attention module
        fea_att_score = fea_att_score.view(1, N, D)
        proto = support.mean(1)
        dist = ((proto.unsqueeze(0) - query.unsqueeze(1)) ** 2 * fea_att_score).sum(-1)
        return -dist

model = ProtoHATT()
opt = torch.optim.SGD(model.parameters(), lr=0.5, weight_decay=1e-5)
train_rel, val_rel = np.arange(0, 30), np.arange(30, 40)
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['step', 'loss', 'acc', 'val_acc'])
iter_loss, iter_right, iter_sample = 0.0, 0.0, 0.0
for it in range(1, 751):
    model.train()
    sup, qry, label = batch(np.random.choice(train_rel, N, replace=False))
    logits = model(sup, qry); loss = F.cross_entropy(logits, label)
    opt.zero_grad(); loss.backward(); opt.step()
    iter_loss += loss.item(); iter_right += (logits.argmax(-1) == label).float().mean().item(); iter_sample += 1
    if it % 50 == 0:
        print('step: {0:4} | loss: {1:2.6f}, accuracy: {2:3.2f}%'.format(it, iter_loss / iter_sample, 100 * iter_right / iter_sample))
        row = [it, round(iter_loss / iter_sample, 6), round(iter_right / iter_sample, 4), '']
        iter_loss, iter_right, iter_sample = 0.0, 0.0, 0.0
        if it % 250 == 0:
            model.eval(); acc = 0.0
            with torch.no_grad():
                for _ in range(40):
                    sup, qry, label = batch(np.random.choice(val_rel, N, replace=False))
                    acc += (model(sup, qry).argmax(-1) == label).float().mean().item()
            print('[EVAL] step: {0:4} | accuracy: {1:3.2f}%'.format(it, 100 * acc / 40)); row[3] = round(acc / 40, 4)
        wr.writerow(row)
