# jaehong31/CGES issue "Doing softmax twice" in miniature, ported from TensorFlow to PyTorch: the MNIST
# experiment of CGES (combined group and exclusive sparsity), where mnist_model.py's mnist_conv() ends in
# "return tf.nn.softmax(output)" and main.py computes
#     ff_loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=y_conv, labels=y_))
# on that output, so the probabilities are put through a second softmax inside the loss. The network follows
# mnist_conv (conv 5x5 - max pool - conv 5x5 - max pool - fc - dropout - fc 10, ReLU; 16 / 32 / 256 units here
# instead of 32 / 64 / 1024), the loop the
# TensorFlow MNIST tutorial style ("step %d, training accuracy %g", "test accuracy %g"), Adam lr 1e-4, batch 50.
# The CGES group / exclusive sparsity penalty and its proximal step are left out (lambda = 0), and 28 x 28
# synthetic "digits" (ten stroke templates, random shifts, thickness and noise; 6000 training / 500 test)
# replace MNIST; 1000 steps, the test accuracy on the first 500 test digits.
import csv
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
rs = np.random.RandomState(0)

# ---------------- synthetic digits
S = 28
yy, xx = np.mgrid[:S, :S].astype(np.float32)
def segs_for(c):
    r = np.random.RandomState(100 + c)
    return [tuple(r.uniform(6, 22, 4)) for _ in range(3)]
TEMPL = [segs_for(c) for c in range(10)]
def draw(c):
    img = np.zeros((S, S), np.float32)
    dx, dy = rs.uniform(-2.5, 2.5, 2); th = rs.uniform(0.9, 1.8)
    for (x0, y0, x1, y1) in TEMPL[c]:
        x0 += dx + rs.randn() * 0.8; x1 += dx + rs.randn() * 0.8; y0 += dy + rs.randn() * 0.8; y1 += dy + rs.randn() * 0.8
        vx, vy = x1 - x0, y1 - y0; L2 = vx * vx + vy * vy + 1e-6
        t = np.clip(((xx - x0) * vx + (yy - y0) * vy) / L2, 0, 1)
        d = np.sqrt((xx - x0 - t * vx) ** 2 + (yy - y0 - t * vy) ** 2)
        img = np.maximum(img, np.clip(th + 0.5 - d, 0, 1))
    return np.clip(img + rs.randn(S, S) * 0.25, 0, 1).reshape(-1)
def make(n):
    ys = rs.randint(0, 10, n)
    X = np.stack([draw(c) for c in ys]).astype(np.float32)
    Y = np.eye(10, dtype=np.float32)[ys]
    return X, Y
train_X, train_Y = make(6000)
test_X, test_Y = make(500)

class DataSet:
    def __init__(self, X, Y): self.X, self.Y, self.i, self.perm = X, Y, 0, rs.permutation(len(X))
    def next_batch(self, n):
        if self.i + n > len(self.X): self.i, self.perm = 0, rs.permutation(len(self.X))
        idx = self.perm[self.i:self.i + n]; self.i += n
        return self.X[idx], self.Y[idx]
mnist_train = DataSet(train_X, train_Y)

# ---------------- mnist_model.py: mnist_conv
class MnistConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 5, padding=2); self.conv2 = nn.Conv2d(16, 32, 5, padding=2)
        self.fc1 = nn.Linear(7 * 7 * 32, 256); self.fc2 = nn.Linear(256, 10)
        for m in self.modules():                                   # tf.truncated_normal(stddev=0.1), bias 0.1
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.trunc_normal_(m.weight, std=0.1, a=-0.2, b=0.2); nn.init.constant_(m.bias, 0.1)
    def forward(self, x, keep_prob):
        x = x.view(-1, 1, 28, 28)
        h = F.max_pool2d(F.relu(self.conv1(x)), 2)
        h = F.max_pool2d(F.relu(self.conv2(h)), 2)
        h = F.relu(self.fc1(h.flatten(1)))
        h = F.dropout(h, p=1 - keep_prob, training=self.training)
        output = self.fc2(h)
        return F.softmax(output, dim=1)                             # return tf.nn.softmax(output)

def softmax_cross_entropy_with_logits(logits, labels):
    return -(labels * F.log_softmax(logits, dim=1)).sum(1)

model = MnistConv()
opt = torch.optim.Adam(model.parameters(), lr=1e-4)
wr = csv.writer(open('metrics.csv', 'w', newline=''))
wr.writerow(['step', 'loss', 'train_acc', 'test_loss', 'test_acc'])

def evaluate():
    model.eval()
    with torch.no_grad():
        y_conv = model(torch.from_numpy(test_X), 1.0)
        l = softmax_cross_entropy_with_logits(y_conv, torch.from_numpy(test_Y)).mean().item()
        a = (y_conv.argmax(1) == torch.from_numpy(test_Y).argmax(1)).float().mean().item()
    model.train()
    return l, a

for i in range(1000):
    bx, by = mnist_train.next_batch(50)
    x, y_ = torch.from_numpy(bx), torch.from_numpy(by)
    y_conv = model(x, 0.5)
    ff_loss = softmax_cross_entropy_with_logits(logits=y_conv, labels=y_).mean()
    opt.zero_grad(); ff_loss.backward(); opt.step()
    acc = (y_conv.argmax(1) == y_.argmax(1)).float().mean().item()
    if i % 100 == 0 or i == 999:
        tl, ta = evaluate()
        print('step %d, training accuracy %g, ff_loss %g, test loss %g, test accuracy %g' % (i, acc, ff_loss.item(), tl, ta),
              flush=True)
        wr.writerow([i, round(ff_loss.item(), 6), round(acc, 4), round(tl, 6), round(ta, 4)])
    else:
        wr.writerow([i, round(ff_loss.item(), 6), round(acc, 4), '', ''])
tl, ta = evaluate()
print('test accuracy %g' % ta)
