# omoindrot/tensorflow-triplet-loss in miniature: train.py with experiments/batch_all/params.json (learning_rate 1e-3,
# batch_size 64, num_channels 32, no batch norm, margin 0.5, embedding_size 64, triplet_strategy "batch_all", squared
# false, save_summary_steps 50): model_fn.py's build_model (two blocks conv 3x3 - ReLU - max-pool 2, channels 32 and 64,
# then a dense layer to the 64-d embedding), model/triplet_loss.py's batch_all_triplet_loss (pairwise euclidean
# distances with the epsilon trick, every valid (anchor, positive, negative) triplet of the batch, max(d_ap - d_an +
# margin, 0), averaged over the positive triplets only, and fraction_positive_triplets = positive / valid triplets),
# AdamOptimizer, the tf.estimator log lines "loss = ..., step = ..." and the summaries loss, fraction_positive_triplets
# and embedding_mean_norm every 50 steps (metrics.csv), then estimator.evaluate on the test set. Scaled down: 4800
# training and 1000 test images of synthetic 28 x 28 "digits" (10 classes, each a random stroke skeleton drawn with
# random affine jitter, stroke width and noise) instead of MNIST's 50000 / 10000, 6 epochs instead of 20, the
# evaluation is also run after every epoch (the repository evaluates once, after training), and metrics.csv records the
# training summaries every 10 steps (the log lines stay at every 50).
import csv, math
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(230); np.random.seed(230); torch.set_num_threads(1)
params = dict(learning_rate=1e-3, batch_size=64, num_epochs=6, num_channels=32, margin=0.5, embedding_size=64,
              squared=False, image_size=28, save_summary_steps=50)

def make_digits(n, seed, skeletons):
    r = np.random.RandomState(seed)
    yy, xx = np.mgrid[0:28, 0:28].astype(np.float32)
    imgs, labels = np.zeros((n, 28, 28), np.float32), r.randint(0, 10, n)
    for i, c in enumerate(labels):
        a = r.uniform(-0.35, 0.35); s = r.uniform(0.8, 1.2); sh = r.uniform(-0.3, 0.3)
        Mx = np.array([[s * math.cos(a), -s * math.sin(a) + sh], [s * math.sin(a), s * math.cos(a)]])
        off = r.uniform(-2.5, 2.5, 2); w = r.uniform(1.0, 2.0)
        img = np.zeros((28, 28), np.float32)
        for (p, q) in skeletons[c]:
            p = Mx @ (p + r.normal(0, 0.6, 2)) + 14 + off; q = Mx @ (q + r.normal(0, 0.6, 2)) + 14 + off
            d = q - p; L = max(np.dot(d, d), 1e-6)
            t = np.clip(((xx - p[0]) * d[0] + (yy - p[1]) * d[1]) / L, 0, 1)
            dist = np.sqrt((xx - p[0] - t * d[0]) ** 2 + (yy - p[1] - t * d[1]) ** 2)
            img = np.maximum(img, np.clip(w + 0.5 - dist, 0, 1))
        imgs[i] = np.clip(img + r.normal(0, 0.25, (28, 28)) * (r.rand() < 0.7), 0, 1)
    return imgs, labels

rs = np.random.RandomState(5)
skeletons = [[(rs.uniform(-8, 8, 2), rs.uniform(-8, 8, 2)) for _ in range(3)] for _ in range(10)]
x_train, y_train = make_digits(4800, 1, skeletons)
x_test, y_test = make_digits(1000, 2, skeletons)
x_train, y_train = torch.tensor(x_train)[:, None], torch.tensor(y_train)
x_test, y_test = torch.tensor(x_test)[:, None], torch.tensor(y_test)

class Model(nn.Module):
    def __init__(self, c=params['num_channels']):
        super().__init__()
        self.block_1 = nn.Conv2d(1, c, 3, padding=1); self.block_2 = nn.Conv2d(c, 2 * c, 3, padding=1)
        self.fc_1 = nn.Linear(7 * 7 * 2 * c, params['embedding_size'])
    def forward(self, x):
        x = F.max_pool2d(F.relu(self.block_1(x)), 2, 2)
        x = F.max_pool2d(F.relu(self.block_2(x)), 2, 2)
        return self.fc_1(x.flatten(1))

def _pairwise_distances(e, squared=False):
    dot = e @ e.t(); sq = torch.diagonal(dot)
    d = (sq.unsqueeze(0) - 2.0 * dot + sq.unsqueeze(1)).clamp(min=0.0)
    if not squared:
        mask = (d == 0.0).float()
        d = torch.sqrt(d + mask * 1e-16) * (1.0 - mask)
    return d

def _get_triplet_mask(labels):
    n = labels.shape[0]
    ne = ~torch.eye(n, dtype=torch.bool)
    distinct = ne.unsqueeze(2) & ne.unsqueeze(1) & ne.unsqueeze(0)
    eq = labels.unsqueeze(0) == labels.unsqueeze(1)
    valid = eq.unsqueeze(2) & ~eq.unsqueeze(1)
    return distinct & valid

def batch_all_triplet_loss(labels, embeddings, margin, squared=False):
    d = _pairwise_distances(embeddings, squared)
    triplet_loss = d.unsqueeze(2) - d.unsqueeze(1) + margin
    mask = _get_triplet_mask(labels).float()
    triplet_loss = (mask * triplet_loss).clamp(min=0.0)
    valid_triplets = (triplet_loss > 1e-16).float()
    num_positive_triplets = valid_triplets.sum(); num_valid_triplets = mask.sum()
    fraction_positive_triplets = num_positive_triplets / (num_valid_triplets + 1e-16)
    return triplet_loss.sum() / (num_positive_triplets + 1e-16), fraction_positive_triplets

model = Model()
optimizer = torch.optim.Adam(model.parameters(), lr=params['learning_rate'])

@torch.no_grad()
def evaluate():
    model.eval(); L = F = N = 0.0
    for s in range(0, len(x_test), params['batch_size']):
        e = model(x_test[s:s + params['batch_size']])
        l, f = batch_all_triplet_loss(y_test[s:s + params['batch_size']], e, params['margin'], params['squared'])
        L += l.item(); F += f.item(); N += 1
    model.train()
    return L / N, F / N

out = open('metrics.csv', 'w', newline=''); wr = csv.writer(out)
wr.writerow(['step', 'epoch', 'loss', 'fraction_positive_triplets', 'embedding_mean_norm', 'eval_loss', 'eval_fraction_positive_triplets'])
print('Creating the model...'); print('Starting training for {} epoch(s).'.format(params['num_epochs']))
step = 0
for epoch in range(params['num_epochs']):
    perm = torch.randperm(len(x_train))
    for s in range(0, len(perm) - params['batch_size'] + 1, params['batch_size']):
        idx = perm[s:s + params['batch_size']]
        emb = model(x_train[idx])
        loss, fraction = batch_all_triplet_loss(y_train[idx], emb, params['margin'], params['squared'])
        optimizer.zero_grad(); loss.backward(); optimizer.step(); step += 1
        if step % 10 == 0 or step == 1:
            norm = emb.detach().norm(dim=1).mean().item()
            wr.writerow([step, epoch + 1, round(loss.item(), 6), round(fraction.item(), 6), round(norm, 4), '', ''])
        if step % params['save_summary_steps'] == 0 or step == 1:
            print('INFO:tensorflow:loss = {:.7f}, step = {} (fraction_positive_triplets = {:.4f}, embedding_mean_norm = {:.3f})'.format(loss.item(), step, fraction.item(), norm))
    el, ef = evaluate()
    print('Saving dict for global step {}: embedding_mean_norm = ..., fraction_positive_triplets = {:.4f}, global_step = {}, loss = {:.7f}'.format(step, ef, step, el))
    wr.writerow([step, epoch + 1, '', '', '', round(el, 6), round(ef, 6)]); out.flush()
el, ef = evaluate()
print('Evaluation results')
print('    fraction_positive_triplets: {:.4f}'.format(ef)); print('    loss: {:.7f}'.format(el))
out.close()
