# floneum/kalosm pull request "Fix classifier training" in miniature, ported from Rust (candle) to PyTorch: the
# kalosm-learning Classifier as it stood before the fix (interfaces/kalosm-learning/src/classifier/model.rs and
# examples/classify.rs): a VarMap holds the weights, the Linear layers are created lazily inside a OnceLock the first
# time forward_t() runs (ClassifierConfig::new(): layers_dims [4, 8, 4], dropout 0.1 applied once to the input, each
# layer followed by gelu_erf, the output layer included), and Classifier::train() builds
# "candle_nn::AdamW::new_lr(self.varmap.all_vars(), learning_rate)" before the first forward pass, then for every epoch
# shuffles the training rows, runs batches of batch_size with log_softmax + nll and sgd.backward_step(&loss), prints
# "Batch: {batch:5} Loss: {:5.5}" per batch and "Epoch: {epoch:5} Test accuracy: {:5.5}% ({}/{})" per epoch. The
# dataset builder keeps a quarter of each class for the test split. The example trains the Person / Thing question
# classifier on BERT sentence embeddings with "100, // The number of epochs", "0.003, // The learning rate",
# "5, // The batch size". Ported pieces: VarMap / VarBuilder (a dict of named tensors, candle's linear init: Kaiming
# normal weights, uniform(-1/sqrt(in), 1/sqrt(in)) bias) and candle's AdamW (beta1 0.9, beta2 0.999, eps 1e-8, weight
# decay 0.01, step() over the vars it was given). 46 synthetic 384-dimensional unit-length "sentence embeddings"
# (23 Person and 23 Thing questions: a shared direction plus a class direction plus noise) replace the Bert
# embeddings of the example's questions. metrics.csv has the mean training loss per epoch, the test accuracy, and a
# test loss computed on the side (eval mode).
import csv, math
import numpy as np
import torch, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
CLASSES = 2                      # MyClass { Person, Thing }
EMBED = 384
rs = np.random.RandomState(5)
common = rs.normal(0, 1, EMBED); class_dir = rs.normal(0, 1, (CLASSES, EMBED))
def embed(c):
    v = common * 1.0 + class_dir[c] * 0.22 + rs.normal(0, 0.75, EMBED)
    return (v / np.linalg.norm(v)).astype(np.float32)
inputs = [embed(0) for _ in range(23)] + [embed(1) for _ in range(23)]
classes = [0] * 23 + [1] * 23

def build(inputs, classes):
    counts = {c: classes.count(c) for c in set(classes)}
    goal = {c: n // 4 for c, n in counts.items()}
    got = {c: 0 for c in counts}
    inputs, classes = list(inputs), list(classes)
    tr_x, tr_y, te_x, te_y = [], [], [], []
    while classes:
        i = rs.randint(len(classes)); x = inputs.pop(i); c = classes.pop(i)
        if got[c] < goal[c]: te_x.append(x); te_y.append(c); got[c] += 1
        else: tr_x.append(x); tr_y.append(c)
    print('%d train/%d tests' % (len(tr_y), len(te_y)))
    return (torch.tensor(np.stack(tr_x)), torch.tensor(tr_y), torch.tensor(np.stack(te_x)), torch.tensor(te_y))

class VarMap:
    def __init__(self): self.data = {}
    def all_vars(self): return list(self.data.values())
    def get(self, name, shape, init):
        if name not in self.data:
            self.data[name] = init(shape).requires_grad_(True)
        return self.data[name]

def linear(varmap, in_dim, out_dim, prefix):
    std = math.sqrt(2.0 / in_dim); bound = 1.0 / math.sqrt(in_dim)
    wt = varmap.get(prefix + '.weight', (out_dim, in_dim), lambda s: torch.randn(s) * std)
    b = varmap.get(prefix + '.bias', (out_dim,), lambda s: torch.empty(s).uniform_(-bound, bound))
    return lambda x: x @ wt.t() + b

class AdamW:                     # candle_nn::AdamW
    def __init__(self, vars, lr, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.01):
        self.vars = [(v, torch.zeros_like(v), torch.zeros_like(v)) for v in vars]
        self.lr, self.b1, self.b2, self.eps, self.wd, self.t = lr, beta1, beta2, eps, weight_decay, 0
    def backward_step(self, loss):
        loss.backward()
        self.t += 1
        with torch.no_grad():
            for v, m, s in self.vars:
                if v.grad is None: continue
                g = v.grad
                m.mul_(self.b1).add_(g, alpha=1 - self.b1); s.mul_(self.b2).addcmul_(g, g, value=1 - self.b2)
                mh = m / (1 - self.b1 ** self.t); sh = s / (1 - self.b2 ** self.t)
                v.mul_(1 - self.lr * self.wd); v.sub_(self.lr * mh / (sh.sqrt() + self.eps))
        for p in list_all_params(): p.grad = None   # candle's grads live in a fresh GradStore per backward

class Classifier:
    def __init__(self, layers_dims=(4, 8, 4), dropout_rate=0.1):
        self.varmap = VarMap(); self.layers_dims = list(layers_dims); self.dropout_rate = dropout_rate
        self._layers = None      # OnceLock<Vec<Linear>>
    def layers(self, input_dim):
        if self._layers is not None: return self._layers
        d = self.layers_dims; vs = self.varmap
        layers = [linear(vs, input_dim, d[0], 'ln0')]
        for i, (a, b) in enumerate(zip(d, d[1:])): layers.append(linear(vs, a, b, 'ln%d' % (i + 1)))
        layers.append(linear(vs, d[-1], CLASSES, 'ln%d' % (len(d) + 1)))
        self._layers = layers
        return layers
    def forward_t(self, xs, train):
        xs = F.dropout(xs, self.dropout_rate, train)
        for layer in self.layers(xs.shape[-1]):
            xs = layer(xs)
            xs = F.gelu(xs)
        return xs
    def train(self, m, epochs, learning_rate, batch_size, metrics):
        train_inputs, train_classes, test_inputs, test_classes = m
        train_len = train_inputs.shape[0]
        sgd = AdamW(self.varmap.all_vars(), learning_rate)
        batch = 0; final_accuracy = 0.0
        for epoch in range(1, epochs + 1):
            indices = list(range(train_len)); rs.shuffle(indices)
            losses = []
            for start in range(0, train_len, batch_size):
                ix = indices[start:start + batch_size]
                logits = self.forward_t(train_inputs[ix], True)
                log_sm = F.log_softmax(logits, dim=-1)
                loss = F.nll_loss(log_sm, train_classes[ix])
                sgd.backward_step(loss)
                print('Batch: %5d Loss: %.5f' % (batch, loss.item()))
                losses.append(loss.item()); batch += 1
            with torch.no_grad():
                test_logits = self.forward_t(test_inputs, False)
                passed = int((test_logits.argmax(-1) == test_classes).sum())
                test_loss = F.nll_loss(F.log_softmax(test_logits, -1), test_classes).item()
            cases = len(test_classes)
            final_accuracy = 100.0 * passed / cases
            print('Epoch: %5d Test accuracy: %.5f%% (%d/%d)' % (epoch, final_accuracy, passed, cases))
            metrics.writerow([epoch, batch, round(float(np.mean(losses)), 5), round(final_accuracy, 3), round(test_loss, 5)])
        return final_accuracy

classifier = Classifier()
def list_all_params(): return classifier.varmap.all_vars()
dataset = build(inputs, classes)
f = open('metrics.csv', 'w', newline=''); w = csv.writer(f)
w.writerow(['epoch', 'batches_seen', 'train_loss', 'test_accuracy', 'test_loss'])
acc = classifier.train(dataset, 100, 0.003, 5, w)
f.close()
print('final test accuracy %.2f%%' % acc)
