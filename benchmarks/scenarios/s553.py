# hunkim/DeepLearningZeroToAll issue "Possible confusion between dropout rate vs keep_prob rate" in miniature, ported from
# TensorFlow to PyTorch: lab-11-4-mnist_cnn_layers.py as it stood before the fix (commit 27450fc, April 2017), the
# "Lab 11 MNIST and Deep learning CNN" class Model built from tf.layers: three blocks of conv2d 3x3 (32, 64, 128
# filters, ReLU, SAME padding) + max_pooling2d 2x2 stride 2 + tf.layers.dropout(rate=0.7, training=self.training),
# then dense 625 + ReLU + tf.layers.dropout(rate=0.5, training=...), and a dense layer to 10 logits; the comment above
# the placeholder reads "dropout (keep_prob) rate 0.7~0.5 on training, but should be 1 for testing", but
# tf.layers.dropout takes the rate of units to DROP, so 70 % of the activations are zeroed after every convolution
# block. softmax_cross_entropy_with_logits, AdamOptimizer(learning_rate=0.001), training_epochs = 15,
# batch_size = 100, tf.set_random_seed(777), mnist.train.next_batch (reshuffled every epoch), the per-epoch line
# "Epoch: 0001 cost = 0.xxxxxxxxx", "Learning Finished!" and "Accuracy: ..." on the test set with training=False.
# TensorFlow's default initialisers are kept (glorot_uniform kernels, zero biases). Scaled down: the filter counts are
# halved (16, 32, 64, dense 312) and the MNIST images are replaced by 28 x 28 synthetic handwritten-style digits
# (seven-segment strokes with random thickness, position, slant and stroke dropout, plus pixel noise and stray
# strokes), 4000 training and 1000 test images. The per-epoch test accuracy (training=False) is printed as well, and
# metrics.csv has the per-step cost and the per-epoch average cost and test accuracy.
import csv, math, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(777); np.random.seed(777); torch.set_num_threads(1)

# hyper parameters
learning_rate = 0.001
training_epochs = 15
batch_size = 100

# ---------------------------------------------------------------- synthetic digits (seven-segment strokes)
SEGS = {0: 'abcdef', 1: 'bc', 2: 'abged', 3: 'abgcd', 4: 'fgbc', 5: 'afgcd', 6: 'afgedc', 7: 'abc', 8: 'abcdefg',
        9: 'abcdfg'}


def draw_digit(d, r):
    img = np.zeros((28, 28), np.float32)
    h, w = r.uniform(14, 19), r.uniform(8, 12)
    x0, y0 = 14 - w / 2 + r.uniform(-3, 3), 14 - h / 2 + r.uniform(-3, 3)
    t = r.uniform(1.6, 3.0)
    slant = r.uniform(-0.35, 0.35)
    yy, xx = np.mgrid[0:28, 0:28].astype(np.float32)
    pts = {'a': ((0, 0), (1, 0)), 'b': ((1, 0), (1, .5)), 'c': ((1, .5), (1, 1)), 'd': ((0, 1), (1, 1)),
           'e': ((0, .5), (0, 1)), 'f': ((0, 0), (0, .5)), 'g': ((0, .5), (1, .5))}
    for s in SEGS[d]:
        if r.rand() < 0.08:
            continue                                       # a missing stroke
        (u0, v0), (u1, v1) = pts[s]
        p0 = np.array([x0 + u0 * w + slant * (0.5 - v0) * h, y0 + v0 * h])
        p1 = np.array([x0 + u1 * w + slant * (0.5 - v1) * h, y0 + v1 * h])
        p0 += r.normal(0, 0.8, 2); p1 += r.normal(0, 0.8, 2)
        dv = p1 - p0; L = (dv ** 2).sum() + 1e-6
        tt = np.clip(((xx - p0[0]) * dv[0] + (yy - p0[1]) * dv[1]) / L, 0, 1)
        dist = np.sqrt((xx - p0[0] - tt * dv[0]) ** 2 + (yy - p0[1] - tt * dv[1]) ** 2)
        img = np.maximum(img, np.clip(t - dist + 0.5, 0, 1))
    for _ in range(r.randint(0, 3)):                       # stray strokes
        p0 = r.uniform(0, 28, 2); dv = r.normal(0, 5, 2); L = (dv ** 2).sum() + 1e-6
        tt = np.clip(((xx - p0[0]) * dv[0] + (yy - p0[1]) * dv[1]) / L, 0, 1)
        dist = np.sqrt((xx - p0[0] - tt * dv[0]) ** 2 + (yy - p0[1] - tt * dv[1]) ** 2)
        img = np.maximum(img, 0.8 * np.clip(1.5 - dist, 0, 1))
    return np.clip(img + r.normal(0, 0.3, img.shape), 0, 1)


def make_set(n, r):
    y = r.randint(0, 10, n)
    x = np.stack([draw_digit(d, r) for d in y]).reshape(n, 784).astype(np.float32)
    return torch.from_numpy(x), torch.from_numpy(y).long()


r = np.random.RandomState(11)
train_x, train_y = make_set(4000, r)
test_x, test_y = make_set(1000, r)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.conv3 = nn.Conv2d(32, 64, 3, padding=1)
        self.dense4 = nn.Linear(64 * 4 * 4, 312)
        self.logits = nn.Linear(312, 10)
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.xavier_uniform_(m.weight); nn.init.zeros_(m.bias)

    def forward(self, X, training):
        # dropout (keep_prob) rate  0.7~0.5 on training, but should be 1 for testing
        X_img = X.view(-1, 1, 28, 28)
        pool1 = F.max_pool2d(F.relu(self.conv1(X_img)), 2, 2, ceil_mode=True)
        dropout1 = F.dropout(pool1, p=0.7, training=training)
        pool2 = F.max_pool2d(F.relu(self.conv2(dropout1)), 2, 2, ceil_mode=True)
        dropout2 = F.dropout(pool2, p=0.7, training=training)
        pool3 = F.max_pool2d(F.relu(self.conv3(dropout2)), 2, 2, ceil_mode=True)
        dropout3 = F.dropout(pool3, p=0.7, training=training)
        flat = dropout3.reshape(-1, 64 * 4 * 4)
        dense4 = F.relu(self.dense4(flat))
        dropout4 = F.dropout(dense4, p=0.5, training=training)
        return self.logits(dropout4)


m1 = Model()
optimizer = torch.optim.Adam(m1.parameters(), lr=learning_rate)


def get_accuracy(x_test, y_test):
    with torch.no_grad():
        out = m1(x_test, training=False)
        return (out.argmax(1) == y_test).float().mean().item(), F.cross_entropy(out, y_test).item()


print('Learning Started!')
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'step', 'cost', 'avg_cost', 'test_accuracy', 'test_cost'])
gstep = 0
for epoch in range(training_epochs):
    avg_cost = 0
    total_batch = int(len(train_x) / batch_size)
    perm = torch.randperm(len(train_x))
    for i in range(total_batch):
        idx = perm[i * batch_size:(i + 1) * batch_size]
        batch_xs, batch_ys = train_x[idx], train_y[idx]
        c = F.cross_entropy(m1(batch_xs, training=True), batch_ys)
        optimizer.zero_grad(); c.backward(); optimizer.step()
        avg_cost += c.item() / total_batch
        gstep += 1
        wr.writerow([epoch + 1, gstep, round(c.item(), 5), '', '', ''])
    acc, tc = get_accuracy(test_x, test_y)
    wr.writerow([epoch + 1, gstep, '', round(avg_cost, 5), round(acc, 4), round(tc, 5)]); f.flush()
    print('Epoch:', '%04d' % (epoch + 1), 'cost =', '{:.9f}'.format(avg_cost), ' test accuracy =', '{:.4f}'.format(acc),
          flush=True)
f.close()
print('Learning Finished!')

# Test model and check accuracy
print('Accuracy:', get_accuracy(test_x, test_y)[0])
