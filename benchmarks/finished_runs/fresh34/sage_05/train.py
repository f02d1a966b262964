import time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
SEED = 4242
np.random.seed(SEED)
torch.manual_seed(SEED)

# ---------------- flags (as in graphsage/supervised_train.py) ----------------
class FLAGS:
    model = 'graphsage_mean'
    learning_rate = 0.01
    epochs = 12
    dropout = 0.2
    weight_decay = 0.05
    max_degree = 16
    samples_1 = 10
    samples_2 = 5
    dim_1 = 64
    dim_2 = 64
    batch_size = 32
    validate_iter = 5
    validate_batch_size = 256
    print_every = 10
    max_total_steps = 10 ** 10

# ---------------- data: synthetic stochastic-block-model graph ----------------
N_NODES, N_CLASS, FEAT = 1800, 6, 24
rng = np.random.RandomState(SEED)
labels = rng.randint(N_CLASS, size=N_NODES)
p_in, p_out = 0.012, 0.0018
probs = np.where(labels[:, None] == labels[None, :], p_in, p_out)
A = np.triu(rng.rand(N_NODES, N_NODES) < probs, 1)
A = A | A.T
centers = rng.normal(0, 1, (N_CLASS, FEAT))
feats = centers[labels] * 0.35 + rng.normal(0, 1, (N_NODES, FEAT))
adj = np.full((N_NODES + 1, FLAGS.max_degree), N_NODES, dtype=np.int64)
deg = np.zeros(N_NODES, dtype=np.int64)
for v in range(N_NODES):
    nb = np.nonzero(A[v])[0]
    deg[v] = len(nb)
    if len(nb) == 0:
        continue
    if len(nb) > FLAGS.max_degree:
        nb = rng.choice(nb, FLAGS.max_degree, replace=False)
    elif len(nb) < FLAGS.max_degree:
        nb = rng.choice(nb, FLAGS.max_degree, replace=True)
    adj[v] = nb
perm = rng.permutation(N_NODES)
train_nodes, val_nodes, test_nodes = perm[:700], perm[700:1000], perm[1000:1300]
features = torch.tensor(np.vstack([feats, np.zeros((1, FEAT))]), dtype=torch.float32)
adj_t = torch.tensor(adj)
labels_t = torch.tensor(np.append(labels, 0))

# ---------------- model: two-layer GraphSAGE-mean with uniform neighbour sampling ----------------
class MeanAggregator(nn.Module):
    def __init__(self, in_dim, out_dim, act=True):
        super().__init__()
        self.self_lin = nn.Linear(in_dim, out_dim)
        self.neigh_lin = nn.Linear(in_dim, out_dim)
        self.act = act
        self.drop = nn.Dropout(FLAGS.dropout)

    def forward(self, self_vecs, neigh_vecs):
        neigh_means = self.drop(neigh_vecs).mean(dim=-2)
        out = torch.cat([self.self_lin(self.drop(self_vecs)), self.neigh_lin(neigh_means)], dim=-1)
        return F.relu(out) if self.act else out

class SupervisedGraphsage(nn.Module):
    def __init__(self):
        super().__init__()
        self.agg1 = MeanAggregator(FEAT, FLAGS.dim_1)
        self.agg2 = MeanAggregator(2 * FLAGS.dim_1, FLAGS.dim_2, act=False)
        self.node_pred = nn.Linear(2 * FLAGS.dim_2, N_CLASS)

    def sample(self, nodes):
        s1 = adj_t[nodes][:, torch.randperm(FLAGS.max_degree)[:FLAGS.samples_1]]
        s2 = adj_t[s1][:, :, torch.randperm(FLAGS.max_degree)[:FLAGS.samples_2]]
        return s1, s2

    def forward(self, nodes):
        s1, s2 = self.sample(nodes)
        h_self = self.agg1(features[nodes], features[s1])
        h_neigh = self.agg1(features[s1], features[s2])
        out = self.agg2(h_self, h_neigh)
        out = F.normalize(out, dim=1)
        return self.node_pred(out)

def calc_f1(y_true, y_pred):
    y_pred = np.argmax(y_pred, axis=1)
    mic = float((y_true == y_pred).mean())
    f1s = []
    for c in range(N_CLASS):
        tp = np.sum((y_pred == c) & (y_true == c))
        fp = np.sum((y_pred == c) & (y_true != c))
        fn = np.sum((y_pred != c) & (y_true == c))
        f1s.append(0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn))
    return mic, float(np.mean(f1s))

model = SupervisedGraphsage()
optimizer = torch.optim.Adam(model.parameters(), lr=FLAGS.learning_rate, weight_decay=FLAGS.weight_decay)

import sys, logging, datetime
logger = logging.getLogger(FLAGS.model)
logger.setLevel(logging.DEBUG)
logger.propagate = False
_h = logging.StreamHandler(sys.stdout)
_h.setFormatter(logging.Formatter('[%(asctime)s %(name)s] (%(filename)s %(lineno)d): %(levelname)s %(message)s', datefmt='%Y-%m-%d %H:%M:%S'))
logger.addHandler(_h)

class AverageMeter:
    def __init__(self):
        self.val = 0.0; self.avg = 0.0; self.sum = 0.0; self.count = 0
    def update(self, val, n=1):
        self.val = val; self.sum += val * n; self.count += n; self.avg = self.sum / self.count

def train_one_epoch(epoch, train):
    model.train()
    num_steps = (len(train) + FLAGS.batch_size - 1) // FLAGS.batch_size
    batch_time, loss_meter, norm_meter = AverageMeter(), AverageMeter(), AverageMeter()
    start = time.time(); end = time.time()
    for idx in range(num_steps):
        batch = torch.tensor(train[idx * FLAGS.batch_size:(idx + 1) * FLAGS.batch_size])
        optimizer.zero_grad()
        preds = model(batch)
        loss = F.cross_entropy(preds, labels_t[batch])
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1e9).item()
        optimizer.step()
        loss_meter.update(loss.item(), len(batch))
        norm_meter.update(grad_norm)
        batch_time.update(time.time() - end)
        end = time.time()
        if idx % FLAGS.print_every == 0:
            lr = optimizer.param_groups[0]['lr']
            etas = batch_time.avg * (num_steps - idx)
            logger.info(
                f'Train: [{epoch}/{FLAGS.epochs}][{idx}/{num_steps}]\t'
                f'eta {datetime.timedelta(seconds=int(etas))} lr {lr:.6f}\t'
                f'time {batch_time.val:.4f} ({batch_time.avg:.4f})\t'
                f'loss {loss_meter.val:.4f} ({loss_meter.avg:.4f})\t'
                f'grad_norm {norm_meter.val:.4f} ({norm_meter.avg:.4f})\t'
                f'mem 0MB')
    epoch_time = time.time() - start
    logger.info(f"EPOCH {epoch} training takes {datetime.timedelta(seconds=int(epoch_time))}")

@torch.no_grad()
def validate(nodes):
    model.eval()
    batch_time, loss_meter, acc1_meter, acc5_meter = AverageMeter(), AverageMeter(), AverageMeter(), AverageMeter()
    end = time.time()
    steps = (len(nodes) + FLAGS.validate_batch_size - 1) // FLAGS.validate_batch_size
    for idx in range(steps):
        batch = torch.tensor(nodes[idx * FLAGS.validate_batch_size:(idx + 1) * FLAGS.validate_batch_size])
        output = model(batch)
        target = labels_t[batch]
        loss = F.cross_entropy(output, target)
        top5 = output.topk(5, 1).indices
        acc1 = (top5[:, 0] == target).float().mean().item() * 100
        acc5 = (top5 == target[:, None]).any(1).float().mean().item() * 100
        loss_meter.update(loss.item(), len(batch))
        acc1_meter.update(acc1, len(batch))
        acc5_meter.update(acc5, len(batch))
        batch_time.update(time.time() - end)
        end = time.time()
        logger.info(
            f'Test: [{idx}/{steps}]\t'
            f'Time {batch_time.val:.3f} ({batch_time.avg:.3f})\t'
            f'Loss {loss_meter.val:.4f} ({loss_meter.avg:.4f})\t'
            f'Acc@1 {acc1_meter.val:.3f} ({acc1_meter.avg:.3f})\t'
            f'Acc@5 {acc5_meter.val:.3f} ({acc5_meter.avg:.3f})\t'
            f'Mem 0MB')
    logger.info(f' * Acc@1 {acc1_meter.avg:.3f} Acc@5 {acc5_meter.avg:.3f}')
    model.train()
    return acc1_meter.avg, acc5_meter.avg, loss_meter.avg

logger.info(f"Creating model:{FLAGS.model}/sage_mean_s{FLAGS.samples_1}x{FLAGS.samples_2}")
logger.info(str(model))
n_parameters = sum(p.numel() for p in model.parameters() if p.requires_grad)
logger.info(f"number of params: {n_parameters}")
logger.info("Start training")
max_accuracy = 0.0
start_time = time.time()
train = train_nodes.copy()
for epoch in range(FLAGS.epochs):
    np.random.shuffle(train)
    train_one_epoch(epoch, train)
    acc1, acc5, loss = validate(val_nodes)
    logger.info(f"Accuracy of the network on the {len(val_nodes)} test images: {acc1:.1f}%")
    max_accuracy = max(max_accuracy, acc1)
    logger.info(f'Max accuracy: {max_accuracy:.2f}%')
total_time = time.time() - start_time
logger.info('Training time {}'.format(str(datetime.timedelta(seconds=int(total_time)))))
