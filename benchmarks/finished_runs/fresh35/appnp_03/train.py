"""APPNP (predict then propagate) node classifier on a synthetic stochastic-block-model graph.

Training loop and log lines follow gasteigerjo/ppnp (ppnp/pytorch/training.py): full-batch
training on 20 labelled nodes per class, an early-stopping set, Adam, L2 on the first layer.
"""
import logging
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
logging.basicConfig(format='%(asctime)s (%(levelname)s): %(message)s',
                    datefmt='%Y-%m-%d %H:%M:%S', level=logging.INFO)
logging.addLevelName(21, 'INFO')
logging.addLevelName(22, 'INFO')

N_NODES, N_CLASSES, N_FEAT = 1500, 5, 64
P_IN, P_OUT = 0.010, 0.0025
HIDDEN = 64
ALPHA, K = 0.1, 10
LEARNING_RATE = 0.01
REG_LAMBDA = 5e-3
DROP_PROB = 0.5
MAX_EPOCHS, PATIENCE, PRINT_INTERVAL = 250, 100, 10
SEED = 2413340114 % 2**31


def make_graph(rng):
    labels = rng.integers(0, N_CLASSES, N_NODES)
    same = labels[:, None] == labels[None, :]
    prob = np.where(same, P_IN, P_OUT)
    upper = np.triu(rng.random((N_NODES, N_NODES)) < prob, 1)
    adj = (upper | upper.T).astype(np.float32)
    means = rng.normal(0, 1, (N_CLASSES, N_FEAT))
    feats = 0.35 * means[labels] + rng.normal(0, 1, (N_NODES, N_FEAT))
    feats = (feats > 0.6).astype(np.float32)        # sparse binary bag-of-words-like attributes
    return adj, feats, labels


def gen_splits(labels, rng, ntrain_per_class=20, nstopping=500):
    idx = rng.permutation(len(labels))
    train = np.concatenate([idx[labels[idx] == c][:ntrain_per_class] for c in range(N_CLASSES)])
    rest = np.setdiff1d(idx, train)
    rest = rng.permutation(rest)
    return train, rest[:nstopping], rest[nstopping:]


def calc_A_hat(adj):
    A = adj + np.eye(adj.shape[0], dtype=np.float32)
    d = A.sum(1)
    D_inv_sqrt = 1.0 / np.sqrt(d)
    return (D_inv_sqrt[:, None] * A * D_inv_sqrt[None, :]).astype(np.float32)


class PPRPowerIteration(nn.Module):
    def __init__(self, A_hat, alpha, niter, drop_prob):
        super().__init__()
        self.alpha, self.niter = alpha, niter
        self.A_hat = ((1 - alpha) * A_hat).to_sparse()
        self.dropout = nn.Dropout(drop_prob)

    def forward(self, local_preds, idx):
        preds = local_preds
        for _ in range(self.niter):
            preds = torch.sparse.mm(self.A_hat, self.dropout(preds)) + self.alpha * local_preds
        return preds[idx]


class PPNP(nn.Module):
    def __init__(self, nfeatures, nclasses, hidden, propagation, drop_prob):
        super().__init__()
        self.fcs = nn.ModuleList([nn.Linear(nfeatures, hidden, bias=False),
                                  nn.Linear(hidden, nclasses, bias=False)])
        self.reg_params = list(self.fcs[0].parameters())
        self.dropout = nn.Dropout(drop_prob)
        self.act_fn = nn.ReLU()
        self.propagation = propagation

    def _transform_features(self, attr_matrix):
        layer_inner = self.act_fn(self.fcs[0](self.dropout(attr_matrix)))
        return self.fcs[-1](self.dropout(layer_inner))

    def forward(self, attr_matrix, idx):
        local_logits = self._transform_features(attr_matrix)
        final_logits = self.propagation(local_logits, idx)
        return F.log_softmax(final_logits, dim=-1)


def main():
    rng = np.random.default_rng(7)
    adj, feats, labels_np = make_graph(rng)
    idx_np = {}
    idx_np['train'], idx_np['stopping'], idx_np['valtest'] = gen_splits(labels_np, rng)
    idx_all = {k: torch.LongTensor(v) for k, v in idx_np.items()}
    labels_all = torch.LongTensor(labels_np)
    train_labels = labels_all.clone()
    flip = torch.from_numpy(rng.random(N_NODES) < 0.6)   # relabelled export of the annotation round
    train_labels[flip] = torch.from_numpy(rng.integers(0, N_CLASSES, N_NODES))[flip]

    propagation = PPRPowerIteration(torch.from_numpy(calc_A_hat(adj)), ALPHA, K, DROP_PROB)
    model_args = {'hidden': HIDDEN, 'drop_prob': DROP_PROB}
    logging.log(21, f"PPNP: {{'hiddenunits': [{HIDDEN}], 'drop_prob': {DROP_PROB}, 'propagation': PPRPowerIteration(alpha={ALPHA}, niter={K})}}")
    torch.manual_seed(SEED)
    logging.log(22, f"PyTorch seed: {SEED}")
    model = PPNP(N_FEAT, N_CLASSES, HIDDEN, propagation, DROP_PROB)
    reg_lambda = torch.tensor(REG_LAMBDA)
    optimizer = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)
    attr_matrix = torch.from_numpy(feats)

    epoch_stats = {'train': {}, 'stopping': {}}
    best = {'acc': -1.0, 'loss': np.inf, 'epoch': 0, 'state': None}
    patience = PATIENCE
    start_time = time.time()
    last_time = start_time
    for epoch in range(MAX_EPOCHS):
        for phase in epoch_stats.keys():
            if phase == 'train':
                model.train()
            else:
                model.eval()
            idx = idx_all[phase]
            labels = train_labels[idx] if phase == 'train' else labels_all[idx]
            optimizer.zero_grad()
            with torch.set_grad_enabled(phase == 'train'):
                log_preds = model(attr_matrix, idx)
                preds = torch.argmax(log_preds, dim=1)
                cross_entropy_mean = F.nll_loss(log_preds, labels)
                l2_reg = sum(torch.sum(param ** 2) for param in model.reg_params)
                loss = cross_entropy_mean + reg_lambda / 2 * l2_reg
                if phase == 'train':
                    loss.backward()
                    optimizer.step()
            epoch_stats[phase]['loss'] = loss.item()
            epoch_stats[phase]['acc'] = (preds == labels).float().mean().item()

        if epoch % PRINT_INTERVAL == 0:
            duration = time.time() - last_time
            last_time = time.time()
            logging.info(f"Epoch {epoch}: "
                         f"Train loss = {epoch_stats['train']['loss']:.2f}, "
                         f"train acc = {epoch_stats['train']['acc'] * 100:.1f}, "
                         f"early stopping loss = {epoch_stats['stopping']['loss']:.2f}, "
                         f"early stopping acc = {epoch_stats['stopping']['acc'] * 100:.1f} "
                         f"({duration:.3f} sec)")

        s = epoch_stats['stopping']
        if s['acc'] >= best['acc'] or s['loss'] <= best['loss']:
            if s['acc'] >= best['acc'] and s['loss'] <= best['loss']:
                best['state'] = {k: v.clone() for k, v in model.state_dict().items()}
                best['epoch'] = epoch
            best['acc'] = max(s['acc'], best['acc'])
            best['loss'] = min(s['loss'], best['loss'])
            patience = PATIENCE
        else:
            patience -= 1
            if patience == 0:
                break
    runtime = time.time() - start_time
    logging.log(22, f"Last epoch: {epoch}, best epoch: {best['epoch']} ({runtime:.3f} sec)")
    if best['state'] is not None:
        model.load_state_dict(best['state'])
    model.eval()
    with torch.no_grad():
        stopping_preds = model(attr_matrix, idx_all['stopping']).argmax(1)
        valtest_preds = model(attr_matrix, idx_all['valtest']).argmax(1)
    stopping_acc = (stopping_preds == labels_all[idx_all['stopping']]).float().mean().item()
    logging.log(21, f"Early stopping accuracy: {stopping_acc * 100:.1f}%")
    valtest_acc = (valtest_preds == labels_all[idx_all['valtest']]).float().mean().item()
    logging.log(22, f"Validation accuracy: {valtest_acc * 100:.1f}%")


if __name__ == '__main__':
    main()
