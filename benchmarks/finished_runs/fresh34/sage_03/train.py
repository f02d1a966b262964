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
    weight_decay = 0.0
    max_degree = 16
    samples_1 = 10
    samples_2 = 5
    dim_1 = 64
    dim_2 = 64
    batch_size = 32
    validate_iter = 5
    validate_batch_size = 256
    print_every = 5
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

def init_weights(m):
    # xavier weights, negative bias so that only strong activations pass the ReLU (sparse codes)
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)
        nn.init.constant_(m.bias, -8.0)

model.apply(init_weights)
optimizer = torch.optim.Adam(model.parameters(), lr=FLAGS.learning_rate, weight_decay=FLAGS.weight_decay)

def evaluate(nodes, size):
    t = time.time()
    model.eval()
    with torch.no_grad():
        batch = torch.tensor(nodes[:size])
        preds = model(batch)
        loss = F.cross_entropy(preds, labels_t[batch]).item()
    model.train()
    mic, mac = calc_f1(labels[nodes[:size]], preds.numpy())
    return loss, mic, mac, time.time() - t

def incremental_evaluate(nodes):
    return evaluate(nodes, len(nodes))

print("Loading training data..")
print("Done loading training data..")
total_steps = 0
avg_time = 0.0
epoch_val_costs = []
train = train_nodes.copy()
for epoch in range(FLAGS.epochs):
    np.random.shuffle(train)
    it = 0
    print('Epoch: %04d' % (epoch + 1))
    epoch_val_costs.append(0)
    for start in range(0, len(train), FLAGS.batch_size):
        batch = torch.tensor(train[start:start + FLAGS.batch_size])
        t = time.time()
        optimizer.zero_grad()
        preds = model(batch)
        loss = F.cross_entropy(preds, labels_t[batch])
        loss.backward()
        optimizer.step()
        train_cost = loss.item()
        if it % FLAGS.validate_iter == 0:
            val_cost, val_f1_mic, val_f1_mac, duration = evaluate(val_nodes, FLAGS.validate_batch_size)
            epoch_val_costs[-1] += val_cost
        avg_time = (avg_time * total_steps + time.time() - t) / (total_steps + 1)
        if total_steps % FLAGS.print_every == 0:
            train_f1_mic, train_f1_mac = calc_f1(labels[batch.numpy()], preds.detach().numpy())
            print("Iter:", '%04d' % it,
                  "train_loss=", "{:.5f}".format(train_cost),
                  "train_f1_mic=", "{:.5f}".format(train_f1_mic),
                  "train_f1_mac=", "{:.5f}".format(train_f1_mac),
                  "val_loss=", "{:.5f}".format(val_cost),
                  "val_f1_mic=", "{:.5f}".format(val_f1_mic),
                  "val_f1_mac=", "{:.5f}".format(val_f1_mac),
                  "time=", "{:.5f}".format(avg_time))
        it += 1
        total_steps += 1

print("Optimization Finished!")
val_cost, val_f1_mic, val_f1_mac, duration = incremental_evaluate(val_nodes)
print("Full validation stats:",
      "loss=", "{:.5f}".format(val_cost),
      "f1_micro=", "{:.5f}".format(val_f1_mic),
      "f1_macro=", "{:.5f}".format(val_f1_mac),
      "time=", "{:.5f}".format(duration))
print("Writing test set stats to file (don't peak!)")
