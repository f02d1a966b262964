# tinygrad examples/transformer.py with models/transformer.py and extra/training.py (February 2023) in miniature,
# ported from tinygrad to PyTorch: the two-digit addition task from minGPT's play_math (inputs a1 a2 b1 b2 s1 s2,
# targets shifted by one; 8000 of the 10000 sums for training, 2000 for test), Transformer(syms=10, maxlen=6,
# layers=2, embed_dim=128, num_heads=4, ff_dim=32): a fixed (requires_grad=False) embedding of the one-hot
# position + symbol code, post-norm TransformerBlocks (q/k/v/out projections, ReLU feed-forward, dropout 0.1,
# parameter-free layernorm followed by an elementwise scale and shift), a final projection and logsoftmax; the
# loss of extra/training.py (out * (-num_classes one-hot) averaged, i.e. the mean NLL), ten rounds of
# train(model, X_train, Y_train, Adam(lr), 50 steps, BS=64) with a fresh Adam each round, evaluate() and
# lr /= 1.2. As in models/transformer.py before the fix, every weight matrix and the embedding are drawn with
# Tensor.uniform, i.e. uniform in [-1, 1) whatever the layer size; biases are zeros and the layernorm scales ones.
# One tqdm-style "loss .. accuracy .." line per round, "test set accuracy is ..." and "reducing lr to ...".
import csv, random, time
import numpy as np
import torch, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); random.seed(0); torch.set_num_threads(1)

def uniform(*shape, requires_grad=True):
    return (torch.rand(*shape) * 2 - 1).requires_grad_(requires_grad)
def scaled_uniform(*shape, requires_grad=True):
    return ((torch.rand(*shape) * 2 - 1) * (float(np.prod(shape)) ** -0.5)).requires_grad_(requires_grad)
init = uniform

class TransformerBlock:
    def __init__(self, embed_dim, num_heads, ff_dim, act=F.relu):
        self.num_heads = num_heads
        self.head_size = embed_dim // num_heads
        self.act = act
        z = lambda n: torch.zeros(n, requires_grad=True)
        self.query = (init(embed_dim, embed_dim), z(embed_dim))
        self.key = (init(embed_dim, embed_dim), z(embed_dim))
        self.value = (init(embed_dim, embed_dim), z(embed_dim))
        self.out = (init(embed_dim, embed_dim), z(embed_dim))
        self.ff1 = (init(embed_dim, ff_dim), z(ff_dim))
        self.ff2 = (init(ff_dim, embed_dim), z(embed_dim))
        self.ln1 = (torch.ones(embed_dim, requires_grad=True), z(embed_dim))
        self.ln2 = (torch.ones(embed_dim, requires_grad=True), z(embed_dim))
    def params(self):
        return [t for pair in (self.query, self.key, self.value, self.out, self.ff1, self.ff2, self.ln1, self.ln2) for t in pair]
    def attn(self, x):
        bs = x.shape[0]
        q, k, v = [(x @ w + b).reshape(bs, -1, self.num_heads, self.head_size) for w, b in (self.query, self.key, self.value)]
        q = q.permute(0, 2, 1, 3); k = k.permute(0, 2, 3, 1); v = v.permute(0, 2, 1, 3)
        score = (q @ k) * (1 / np.sqrt(self.head_size))
        weights = score.softmax(-1)
        attention = (weights @ v).permute(0, 2, 1, 3)
        return attention.reshape(bs, -1, self.num_heads * self.head_size) @ self.out[0] + self.out[1]
    def __call__(self, x, training):
        dropout = lambda t: F.dropout(t, 0.1, training)
        layernorm = lambda t: F.layer_norm(t, t.shape[-1:], eps=1e-5)
        x = x + dropout(self.attn(x))
        x = layernorm(x) * self.ln1[0] + self.ln1[1]
        x = x + dropout(self.act(x @ self.ff1[0] + self.ff1[1]) @ self.ff2[0] + self.ff2[1])
        x = layernorm(x) * self.ln2[0] + self.ln2[1]
        return x

class Transformer:
    def __init__(self, syms, maxlen, layers, embed_dim, num_heads, ff_dim):
        self.maxlen, self.syms = maxlen, syms
        self.embed = init(maxlen + syms, embed_dim, requires_grad=False)
        self.tbs = [TransformerBlock(embed_dim, num_heads, ff_dim) for _ in range(layers)]
        self.final = init(embed_dim, syms)
    def parameters(self):
        return [p for tb in self.tbs for p in tb.params()] + [self.final]
    def forward(self, x, training):
        bs, T = x.shape
        onehot = torch.zeros(bs, T, self.maxlen + self.syms)
        for i in range(T):
            onehot[range(bs), i, i] = 1
            onehot[range(bs), i, self.maxlen + x[:, i]] = 1
        h = onehot.reshape(bs * T, -1) @ self.embed
        h = h.reshape(bs, T, -1)
        for tb in self.tbs:
            h = tb(h, training)
        out = (h.reshape(-1, h.shape[-1]) @ self.final).log_softmax(-1)
        return out.reshape(bs, T, -1)

def make_dataset():
    ds = []
    for i in range(100):
        for j in range(100):
            s = i + j
            ds.append([i // 10, i % 10, j // 10, j % 10, s // 100, (s // 10) % 10, s % 10])
    random.shuffle(ds)
    ds = np.array(ds)
    ds_X = ds[:, 0:6]
    ds_Y = np.copy(ds[:, 1:])
    return ds_X[0:8000], ds_Y[0:8000], ds_X[8000:], ds_Y[8000:]

def sparse_categorical_crossentropy(out, Y):
    num_classes = out.shape[-1]
    y = torch.zeros(Y.numel(), num_classes)
    y[range(Y.numel()), Y.flatten()] = -1.0 * num_classes
    return (out * y.reshape(list(Y.shape) + [num_classes])).mean()

f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['round', 'step', 'lr', 'loss', 'accuracy', 'test_accuracy']); f.flush()
gstep = 0
def train(model, X_train, Y_train, optim, steps, BS=128, rnd=0):
    global gstep
    t0 = time.time()
    for i in range(steps):
        samp = np.random.randint(0, X_train.shape[0], size=(BS))
        x = torch.tensor(X_train[samp]); y = torch.tensor(Y_train[samp])
        out = model.forward(x, True)
        loss = sparse_categorical_crossentropy(out, y)
        optim.zero_grad()
        loss.backward()
        optim.step()
        accuracy = (out.argmax(-1) == y).float().mean().item()
        gstep += 1
        wr.writerow([rnd, gstep, optim.param_groups[0]['lr'], loss.item(), accuracy, '']); f.flush()
    el = time.time() - t0
    print("loss %.2f accuracy %.2f: 100%%|##########| %d/%d [00:%02d<00:00, %.2fit/s]" % (loss.item(), accuracy, steps, steps, int(el), steps / el), flush=True)

def evaluate(model, X_test, Y_test, num_classes=None, BS=128):
    with torch.no_grad():
        preds = np.concatenate([model.forward(torch.tensor(X_test[i * BS:(i + 1) * BS]), False).argmax(-1).numpy()
                                for i in range((len(Y_test) - 1) // BS + 1)])
    acc = (Y_test == preds).mean()
    print("test set accuracy is %f" % acc, flush=True)
    return acc, preds

model = Transformer(10, 6, 2, 128, 4, 32)
X_train, Y_train, X_test, Y_test = make_dataset()
lr = 0.003
for i in range(10):
    optim = torch.optim.Adam(model.parameters(), lr=lr, betas=(0.9, 0.999), eps=1e-8)
    train(model, X_train, Y_train, optim, 50, BS=64, rnd=i)
    acc, Y_test_preds = evaluate(model, X_test, Y_test, num_classes=10)
    wr.writerow([i, gstep, lr, '', '', acc]); f.flush()
    lr /= 1.2
    print(f'reducing lr to {lr:.4f}', flush=True)
    if acc > 0.998:
        wrong = 0
        for k in range(len(Y_test_preds)):
            if (Y_test_preds[k] != Y_test[k]).any():
                wrong += 1
                a, b, c, x = X_test[k, :2], X_test[k, 2:4], Y_test[k, -3:], Y_test_preds[k, -3:]
                print(f'{a[0]}{a[1]} + {b[0]}{b[1]} = {x[0]}{x[1]}{x[2]} (correct: {c[0]}{c[1]}{c[2]})')
        print(f'Wrong predictions: {wrong}, acc = {acc:.4f}')
f.close()
