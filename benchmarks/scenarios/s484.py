# lc222/MPCNN-sentence-similarity-tensorflow (train1.py, model.py, utils.py) in miniature, ported from
# TensorFlow 1.x to PyTorch: the Multi-Perspective CNN for sentence similarity. Both sentences of a pair
# are embedded with fixed word vectors (the GloVe matrix is a constant in the original, here a fixed random
# 50-d table, zero vector for padding), padded to sentence_length, and encoded by block A (holistic
# filters of width 1, 2 and the whole sentence over all 50 dimensions, relu, max/min/mean pooling) and
# block B (per-dimension filters of width 1 and 2, relu, max/min pooling); the two encodings are compared
# with comU2 (cosine, Euclidean distance) and comU1 (cosine, Euclidean, L1), then tanh hidden layer of 150
# units and 6 output logits (similarity score 0-5 as a class), softmax cross entropy, Adam lr 1e-3. As in
# utils.py, compute_euclidean_distance is sqrt(reduce_sum(square(x - y))). Synthetic sentence pairs
# (second sentence = first with some words replaced, score from the overlap, a few pairs identical)
# replace the SemEval STS data. One "<time>: loss ..., acc ..." line per step and a test accuracy per
# epoch, as in train1.py.
import datetime
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
embedding_dim, num_filters_A, num_filters_B, n_hidden = 50, 20, 20, 150
sentence_length, num_classes, batch_size, lr = 30, 6, 100, 1e-3
filter_size = [1, 2, sentence_length]
VOCAB = 400

glove = torch.randn(VOCAB, embedding_dim) * 0.4
glove[0] = 0.0                                   # padding

def make_pairs(n, rs):
    X1 = np.zeros((n, sentence_length), np.int64); X2 = np.zeros_like(X1); y = np.zeros(n, np.int64)
    for i in range(n):
        L = rs.randint(8, 21)
        s1 = rs.randint(1, VOCAB, L)
        s2 = s1.copy()
        if rs.rand() > 0.04:                     # a few pairs are the same sentence twice (score 5)
            k = rs.randint(0, L + 1)
            idx = rs.choice(L, k, replace=False); s2[idx] = rs.randint(1, VOCAB, k)
        same = float((s1 == s2).mean())
        X1[i, :L] = s1; X2[i, :L] = s2; y[i] = int(round(5 * same))
    return torch.tensor(X1), torch.tensor(X2), torch.tensor(y)

rs = np.random.RandomState(1)
Xtrain = make_pairs(1500, rs); Xtest = make_pairs(400, rs)
print("Loading data...")
print("train pairs %d, test pairs %d, score counts %s" % (len(Xtrain[2]), len(Xtest[2]),
      np.bincount(Xtrain[2].numpy(), minlength=6).tolist()), flush=True)

def compute_l1_distance(x, y):
    return (x - y).abs().sum(1)
def compute_euclidean_distance(x, y):
    return torch.sqrt(((x - y) ** 2).sum(1))
def compute_cosine_distance(x, y):
    x_norm = torch.sqrt((x ** 2).sum(1)); y_norm = torch.sqrt((y ** 2).sum(1))
    return (x * y).sum(1) / (x_norm * y_norm)
def comU1(x, y):
    return torch.stack([compute_cosine_distance(x, y), compute_euclidean_distance(x, y), compute_l1_distance(x, y)], 1)
def comU2(x, y):
    return torch.stack([compute_cosine_distance(x, y), compute_euclidean_distance(x, y)], 1)

def init_weight(*shape):
    return nn.Parameter(nn.init.trunc_normal_(torch.empty(*shape), std=0.01, a=-0.02, b=0.02))

class MPCNN_Layer(nn.Module):
    def __init__(self):
        super().__init__()
        nA, nB, E = num_filters_A, num_filters_B, embedding_dim
        self.poolings = [lambda t: t.max(1)[0], lambda t: t.min(1)[0], lambda t: t.mean(1)]
        self.W1 = nn.ParameterList([init_weight(nA, 1, ws, E) for ws in filter_size])
        self.b1 = nn.ParameterList([nn.Parameter(torch.full((nA,), 0.1)) for _ in filter_size])
        self.W2 = nn.ParameterList([init_weight(E * nB, 1, ws) for ws in filter_size[:-1]])
        self.b2 = nn.ParameterList([nn.Parameter(torch.full((nB, E), 0.1)) for _ in filter_size[:-1]])
        self.h = nA * 3 * 2 + nB * 2 * 2 * 3
        self.Wh = nn.Parameter(torch.randn(self.h, n_hidden) * 0.01); self.bh = nn.Parameter(torch.full((n_hidden,), 0.1))
        self.Wo = nn.Parameter(torch.randn(n_hidden, num_classes) * 0.01)
    def block_A(self, x):                         # x [B, L, E]
        out = []
        for pooling in self.poolings:
            pools = []
            for i, ws in enumerate(filter_size):
                conv = F.conv2d(x[:, None], self.W1[i])[:, :, :, 0].transpose(1, 2)   # [B, L-ws+1, nA]
                pools.append(pooling(F.relu(conv + self.b1[i]))[:, None, :])          # [B, 1, nA]
            out.append(pools)
        return out
    def block_B(self, x):
        B, L, E = x.shape
        out = []
        for pooling in self.poolings[:-1]:
            pools = []
            for i, ws in enumerate(filter_size[:-1]):
                conv = F.conv1d(x.transpose(1, 2), self.W2[i], groups=E)              # [B, E*nB, L-ws+1]
                conv = conv.view(B, E, num_filters_B, -1).permute(0, 3, 1, 2)         # [B, L-ws+1, E, nB]
                pools.append(pooling(F.relu(conv + self.b2[i].t())))                   # [B, E, nB]
            out.append(pools)
        return out
    def forward(self, x1, x2):
        # comU2 / comU1 applied to every filter k at once (the original loops over k; same features, same order)
        s1 = self.block_A(x1); s2 = self.block_A(x2)
        fea_h = []
        for i in range(3):
            regM1 = torch.cat(s1[i], 1); regM2 = torch.cat(s2[i], 1)                   # [B, 3, nA]
            fea_h.append(comU2(regM1, regM2).transpose(1, 2).reshape(len(x1), -1))    # k-major, as the loop
        s1 = self.block_B(x1); s2 = self.block_B(x2)
        fea_b = []
        for i in range(2):
            for j in range(2):
                fea_b.append(comU1(s1[i][j], s2[i][j]).transpose(1, 2).reshape(len(x1), -1))
        fea = torch.cat(fea_h + fea_b, 1)
        h = torch.tanh(fea @ self.Wh + self.bh)
        return h @ self.Wo

model = MPCNN_Layer()
optimizer = torch.optim.Adam(model.parameters(), lr=lr)
embed = lambda ids: glove[ids]
for j in range(8):
    for i in range(0, len(Xtrain[2]), batch_size):
        x1 = embed(Xtrain[0][i:i + batch_size]); x2 = embed(Xtrain[1][i:i + batch_size]); y = Xtrain[2][i:i + batch_size]
        out = model(x1, x2)
        loss = F.cross_entropy(out, y)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        accc = (out.argmax(1) == y).float().mean().item()
        time_str = datetime.datetime.now().isoformat()
        print("{}: loss {:g}, acc {:g}".format(time_str, loss.item(), accc), flush=True)
    print("\nEvaluation:")
    with torch.no_grad():
        accc = (model(embed(Xtest[0]), embed(Xtest[1])).argmax(1) == Xtest[2]).float().mean().item()
    print("test accuracy:", accc, flush=True)
print("Optimization Finished!")
