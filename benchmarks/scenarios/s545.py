# IBM/graph2tac pull request "Expand shuffle buffer to shuffle all the data" in miniature, ported from TensorFlow to
# PyTorch: a tactic-prediction network trained on proof states that arrive in the order they were extracted (file by
# file, package by package) through a tf.data-style pipeline, dataset.shuffle(buffer_size).batch(...), with a shuffle
# buffer much smaller than the dataset (the pull request: "Our buffer size was 10e4, which was much smaller than the
# dataset size of 5e5"), so the data are only locally shuffled and every batch comes from one or two packages.
# The shuffle buffer works as tf.data's does: it is filled with the first buffer_size examples, each output is drawn at
# random from the buffer and its slot refilled with the next example of the stream, and the order is re-drawn every
# epoch. Scaled down: instead of the TF-GNN graph network, a two-hidden-layer MLP reads a 32-dimensional proof-state
# embedding; 40 "packages" of 500 proof states each (20000 training states in extraction order, each package with its
# own typical tactics and its own region of the embedding space) and 2000 validation states drawn across all packages;
# 16 tactic classes; Adam (lr 1e-3), batch 50, 10 epochs; shuffle buffer 400 (2 % of the data, the pull request's
# ratio was 2 %). After every epoch a Keras-style line with the training loss and accuracy over the whole epoch, the
# training accuracy over the first tenth of the epoch ("start of the epoch"), and the validation loss and accuracy.
# metrics.csv has the per-step loss and accuracy and those per-epoch values.
import csv, math, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)

N_PKG, PER_PKG, D, C = 40, 500, 32, 16
BUFFER_SIZE = 400
BATCH_SIZE = 50
EPOCHS = 10

rs = np.random.RandomState(3)
W_TRUE = rs.normal(0, 1, (D, C)).astype(np.float32)
PKG_OFFSET = rs.normal(0, 1.2, (N_PKG, D)).astype(np.float32)
PKG_PRIOR = np.stack([np.where(rs.permutation(C) < 4, 2.5, -1.0) for _ in range(N_PKG)]).astype(np.float32)


def states(pkgs, n_each, r):
    xs, ys = [], []
    for p in pkgs:
        z = r.normal(0, 1, (n_each, D)).astype(np.float32)
        logits = z @ W_TRUE / 2.0 + PKG_PRIOR[p] + r.gumbel(0, 0.7, (n_each, C))
        xs.append(z + PKG_OFFSET[p]); ys.append(logits.argmax(1))
    return np.concatenate(xs), np.concatenate(ys)


train_x, train_y = states(range(N_PKG), PER_PKG, np.random.RandomState(11))  # extraction order: package by package
val_x, val_y = states(range(N_PKG), 50, np.random.RandomState(12))
train_x, train_y = torch.from_numpy(train_x), torch.from_numpy(train_y).long()
val_x, val_y = torch.from_numpy(val_x), torch.from_numpy(val_y).long()


def shuffle_buffer_order(n, buffer_size, seed):
    """Order in which tf.data's dataset.shuffle(buffer_size) emits a stream of n elements."""
    r = np.random.RandomState(seed)
    buf = list(range(min(buffer_size, n))); nxt = len(buf); out = []
    while buf:
        i = r.randint(len(buf))
        out.append(buf[i])
        if nxt < n:
            buf[i] = nxt; nxt += 1
        else:
            buf[i] = buf[-1]; buf.pop()
    return out


model = nn.Sequential(nn.Linear(D, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, C))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
n = len(train_x); steps = n // BATCH_SIZE; head = steps // 10
print('train states: %d in %d packages, validation states: %d, shuffle buffer: %d' % (n, N_PKG, len(val_x), BUFFER_SIZE))
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'step', 'loss', 'accuracy', 'epoch_loss', 'epoch_accuracy', 'epoch_start_accuracy', 'val_loss',
             'val_accuracy'])
gstep = 0
for epoch in range(1, EPOCHS + 1):
    t0 = time.time()
    order = torch.tensor(shuffle_buffer_order(n, BUFFER_SIZE, seed=epoch))
    model.train(); tl = ta = sa = 0.0
    for s in range(steps):
        idx = order[s * BATCH_SIZE:(s + 1) * BATCH_SIZE]
        out = model(train_x[idx]); loss = F.cross_entropy(out, train_y[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        acc = (out.argmax(1) == train_y[idx]).float().mean().item()
        tl += loss.item(); ta += acc; gstep += 1
        if s < head: sa += acc
        wr.writerow([epoch, gstep, round(loss.item(), 5), round(acc, 4), '', '', '', '', ''])
    model.eval()
    with torch.no_grad():
        vo = model(val_x); vl = F.cross_entropy(vo, val_y).item(); va = (vo.argmax(1) == val_y).float().mean().item()
    print('Epoch %d/%d\n%d/%d - %.1fs - loss: %.4f - accuracy: %.4f - epoch_start_accuracy: %.4f - val_loss: %.4f - '
          'val_accuracy: %.4f' % (epoch, EPOCHS, steps, steps, time.time() - t0, tl / steps, ta / steps, sa / head, vl, va),
          flush=True)
    wr.writerow([epoch, gstep, '', '', round(tl / steps, 5), round(ta / steps, 4), round(sa / head, 4), round(vl, 5),
                 round(va, 4)]); f.flush()
f.close()
