"""LightGCN with the BPR loss on a synthetic implicit-feedback data set (users and items with latent tastes).

Prints follow kuandeng/LightGCN LightGCN.py (the authors' TensorFlow release): adjacency/pretrain
messages, `Epoch N [t]: train==[loss=mf + emb]` every epoch and a test line with recall/precision/ndcg every 10.
"""
import sys
import time
from contextlib import contextmanager

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)

config = {'bpr_batch_size': 2048, 'latent_dim_rec': 32, 'lightGCN_n_layers': 3, 'keep_prob': 0.6,
          'A_n_fold': 100, 'test_u_batch_size': 100, 'multicore': 0, 'lr': 0.005, 'decay': 1e-4,
          'pretrain': 0, 'A_split': False, 'bigdata': False}
TRAIN_epochs = 50
topks = [10, 20]
seed = 2020


def cprint(words: str):
    print(f"\033[0;30;43m{words}\033[0m")


class timer:
    NAMED_TAPE = {}

    @staticmethod
    def dict():
        return "|" + "".join(f"{k}:{v:.2f}|" for k, v in timer.NAMED_TAPE.items())

    @staticmethod
    def zero():
        for k in timer.NAMED_TAPE:
            timer.NAMED_TAPE[k] = 0

    @staticmethod
    @contextmanager
    def named(name):
        t0 = time.time()
        yield
        timer.NAMED_TAPE[name] = timer.NAMED_TAPE.get(name, 0) + time.time() - t0


class SyntheticLoader:
    def __init__(self, n_users=700, n_items=500, dim=6, per_user=24, seed=0):
        rng = np.random.default_rng(seed)
        u = rng.normal(0, 1, (n_users, dim))
        v = rng.normal(0, 1, (n_items, dim))
        pop = rng.normal(0, 0.8, n_items)
        logits = 1.3 * u @ v.T / np.sqrt(dim) + pop
        self.n_users, self.m_items = n_users, n_items
        train, test = {}, {}
        for i in range(n_users):
            p = np.exp(logits[i] - logits[i].max()); p /= p.sum()
            items = rng.choice(n_items, per_user, replace=False, p=p)
            test[i] = list(items[:5]); train[i] = list(items[5:])
        self.allPos = [np.array(train[i]) for i in range(n_users)]
        self.testDict = test
        self.trainDataSize = sum(len(x) for x in self.allPos)
        rows = np.concatenate([[i] * len(self.allPos[i]) for i in range(n_users)])
        cols = np.concatenate(self.allPos)
        self.Graph = self._norm_adj(rows, cols)

    def _norm_adj(self, rows, cols):
        n = self.n_users + self.m_items
        r = np.concatenate([rows, cols + self.n_users]); c = np.concatenate([cols + self.n_users, rows])
        deg = np.bincount(r, minlength=n).astype(np.float32)
        d_inv = np.power(deg, -0.5, where=deg > 0, out=np.zeros_like(deg))
        vals = d_inv[r] * d_inv[c]
        return torch.sparse_coo_tensor(np.vstack([r, c]), vals, (n, n)).coalesce().float()

    def getUserPosItems(self, users):
        return [self.allPos[u] for u in users]


class LightGCN(nn.Module):
    def __init__(self, config, dataset):
        super(LightGCN, self).__init__()
        self.config = config
        self.dataset = dataset
        self.num_users = dataset.n_users
        self.num_items = dataset.m_items
        self.latent_dim = config['latent_dim_rec']
        self.n_layers = config['lightGCN_n_layers']
        self.embedding_user = torch.nn.Embedding(num_embeddings=self.num_users, embedding_dim=self.latent_dim)
        self.embedding_item = torch.nn.Embedding(num_embeddings=self.num_items, embedding_dim=self.latent_dim)
        nn.init.normal_(self.embedding_user.weight, std=4.0)
        nn.init.normal_(self.embedding_item.weight, std=4.0)
        print('use NORMAL distribution initilizer')
        self.f = nn.Sigmoid()
        self.Graph = dataset.Graph
        print(f"lgn is already to go(dropout:0)")

    def computer(self):
        users_emb = self.embedding_user.weight
        items_emb = self.embedding_item.weight
        all_emb = torch.cat([users_emb, items_emb])
        embs = [all_emb]
        for layer in range(self.n_layers):
            all_emb = torch.sparse.mm(self.Graph, all_emb)
            embs.append(all_emb)
        light_out = torch.mean(torch.stack(embs, dim=1), dim=1)
        users, items = torch.split(light_out, [self.num_users, self.num_items])
        return users, items

    def getUsersRating(self, users):
        all_users, all_items = self.computer()
        return self.f(torch.matmul(all_users[users.long()], all_items.t()))

    def getEmbedding(self, users, pos_items, neg_items):
        all_users, all_items = self.computer()
        return (all_users[users], all_items[pos_items], all_items[neg_items],
                self.embedding_user(users), self.embedding_item(pos_items), self.embedding_item(neg_items))

    def bpr_loss(self, users, pos, neg):
        (users_emb, pos_emb, neg_emb, userEmb0, posEmb0, negEmb0) = self.getEmbedding(users.long(), pos.long(), neg.long())
        reg_loss = (1 / 2) * (userEmb0.norm(2).pow(2) + posEmb0.norm(2).pow(2) + negEmb0.norm(2).pow(2)) / float(len(users))
        pos_scores = torch.sum(torch.mul(users_emb, pos_emb), dim=1)
        neg_scores = torch.sum(torch.mul(users_emb, neg_emb), dim=1)
        loss = torch.mean(torch.nn.functional.softplus(neg_scores - pos_scores))
        return loss, reg_loss


class BPRLoss:
    def __init__(self, recmodel, config):
        self.model = recmodel
        self.weight_decay = config['decay']
        self.lr = config['lr']
        self.opt = torch.optim.Adam(recmodel.parameters(), lr=self.lr)

    def stageOne(self, users, pos, neg):
        loss, reg_loss = self.model.bpr_loss(users, pos, neg)
        reg_loss = reg_loss * self.weight_decay
        loss = loss + reg_loss
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item(), (loss - reg_loss).item(), reg_loss.item()


def UniformSample_original(dataset, rng):
    users = rng.integers(0, dataset.n_users, dataset.trainDataSize)
    S = []
    for user in users:
        posForUser = dataset.allPos[user]
        positem = posForUser[rng.integers(0, len(posForUser))]
        while True:
            negitem = rng.integers(0, dataset.m_items)
            if negitem not in posForUser:
                break
        S.append([user, positem, negitem])
    return np.array(S)


def minibatch(*tensors, batch_size):
    for i in range(0, len(tensors[0]), batch_size):
        yield tuple(x[i:i + batch_size] for x in tensors)


def BPR_train_original(dataset, recommend_model, loss_class, epoch, rng):
    Recmodel = recommend_model
    Recmodel.train()
    bpr = loss_class
    S = UniformSample_original(dataset, rng)
    users = torch.Tensor(S[:, 0]).long()
    posItems = torch.Tensor(S[:, 1]).long()
    negItems = torch.Tensor(S[:, 2]).long()
    perm = torch.randperm(len(users))
    users, posItems, negItems = users[perm], posItems[perm], negItems[perm]
    n_batch = len(users) // config['bpr_batch_size'] + 1
    loss, mf_loss, emb_loss = 0., 0., 0.
    for (batch_users, batch_pos, batch_neg) in minibatch(users, posItems, negItems, batch_size=config['bpr_batch_size']):
        batch_loss, batch_mf_loss, batch_emb_loss = bpr.stageOne(batch_users, batch_pos, batch_neg)
        loss += batch_loss / n_batch
        mf_loss += batch_mf_loss / n_batch
        emb_loss += batch_emb_loss / n_batch
    return loss, mf_loss, emb_loss


def test_loss(dataset, Recmodel, rng):
    users = np.array(list(dataset.testDict.keys()))
    pos = np.array([dataset.testDict[u][rng.integers(0, 5)] for u in users])
    neg = rng.integers(0, dataset.m_items, len(users))
    with torch.no_grad():
        mf, reg = Recmodel.bpr_loss(torch.from_numpy(users), torch.from_numpy(pos), torch.from_numpy(neg))
    reg = reg * config['decay']
    return (mf + reg).item(), mf.item(), reg.item()


def test_one_batch(X):
    sorted_items, groundTrue = X
    pre, recall, ndcg = [], [], []
    for k in topks:
        r = np.array([[item in gt for item in row[:k]] for row, gt in zip(sorted_items, groundTrue)], dtype=float)
        right = r.sum(1)
        recall.append(np.sum(right / np.array([len(gt) for gt in groundTrue])))
        pre.append(np.sum(right) / k)
        idcg = np.array([np.sum(1. / np.log2(np.arange(2, min(len(gt), k) + 2))) for gt in groundTrue])
        dcg = np.sum(r * (1. / np.log2(np.arange(2, k + 2))), axis=1)
        ndcg.append(np.sum(dcg / idcg))
    return {'recall': np.array(recall), 'precision': np.array(pre), 'ndcg': np.array(ndcg)}


def Test(dataset, Recmodel, epoch):
    u_batch_size = config['test_u_batch_size']
    testDict = dataset.testDict
    Recmodel = Recmodel.eval()
    max_K = max(topks)
    results = {'precision': np.zeros(len(topks)), 'recall': np.zeros(len(topks)), 'ndcg': np.zeros(len(topks))}
    with torch.no_grad():
        users = list(testDict.keys())
        rating_list, groundTrue_list = [], []
        for batch_users in minibatch(users, batch_size=u_batch_size):
            batch_users = batch_users[0]
            allPos = dataset.getUserPosItems(batch_users)
            groundTrue = [testDict[u] for u in batch_users]
            rating = Recmodel.getUsersRating(torch.Tensor(batch_users).long())
            exclude_index, exclude_items = [], []
            for range_i, items in enumerate(allPos):
                exclude_index.extend([range_i] * len(items))
                exclude_items.extend(items)
            rating[exclude_index, exclude_items] = -(1 << 10)
            _, rating_K = torch.topk(rating, k=max_K)
            rating_list.append(rating_K.numpy())
            groundTrue_list.append(groundTrue)
        for x in zip(rating_list, groundTrue_list):
            result = test_one_batch(x)
            results['recall'] += result['recall']
            results['precision'] += result['precision']
            results['ndcg'] += result['ndcg']
        results['recall'] /= float(len(users))
        results['precision'] /= float(len(users))
        results['ndcg'] /= float(len(users))
        return results


def main():
    np.random.seed(seed)
    torch.manual_seed(seed)
    f0 = time.time()
    dataset = SyntheticLoader()
    print('n_users=%d, n_items=%d' % (dataset.n_users, dataset.m_items))
    print('n_interactions=%d' % (dataset.trainDataSize + 5 * dataset.n_users))
    print('n_train=%d, n_test=%d, sparsity=%.5f' % (dataset.trainDataSize, 5 * dataset.n_users,
          (dataset.trainDataSize + 5 * dataset.n_users) / (dataset.n_users * dataset.m_items)))
    print('use the pre adjcency matrix')
    t0 = time.time()
    Recmodel = LightGCN(config, dataset)
    bpr = BPRLoss(Recmodel, config)
    print('without pretraining.')
    rng = np.random.default_rng(seed)
    rec_loger, pre_loger, ndcg_loger = [], [], []
    for epoch in range(1, TRAIN_epochs + 1):
        t1 = time.time()
        loss, mf_loss, emb_loss = BPR_train_original(dataset, Recmodel, bpr, epoch, rng)
        if np.isnan(loss) == True:
            print('ERROR: loss is nan.')
            sys.exit()
        if (epoch % 10) != 0:
            perf_str = 'Epoch %d [%.1fs]: train==[%.5f=%.5f + %.5f]' % (
                epoch, time.time() - t1, loss, mf_loss, emb_loss)
            print(perf_str)
            continue
        loss_test, mf_loss_test, emb_loss_test = test_loss(dataset, Recmodel, rng)
        reg_loss_test = 0.
        t2 = time.time()
        ret = Test(dataset, Recmodel, epoch)
        t3 = time.time()
        rec_loger.append(ret['recall'])
        pre_loger.append(ret['precision'])
        ndcg_loger.append(ret['ndcg'])
        perf_str = 'Epoch %d [%.1fs + %.1fs]: test==[%.5f=%.5f + %.5f + %.5f], recall=[%s], ' \
                   'precision=[%s], ndcg=[%s]' % \
                   (epoch, t2 - t1, t3 - t2, loss_test, mf_loss_test, emb_loss_test, reg_loss_test,
                    ', '.join(['%.5f' % r for r in ret['recall']]),
                    ', '.join(['%.5f' % r for r in ret['precision']]),
                    ', '.join(['%.5f' % r for r in ret['ndcg']]))
        print(perf_str)
    recs = np.array(rec_loger)
    pres = np.array(pre_loger)
    ndcgs = np.array(ndcg_loger)
    best_rec_0 = max(recs[:, 0])
    idx = list(recs[:, 0]).index(best_rec_0)
    final_perf = "Best Iter=[%d]@[%.1f]\trecall=[%s], precision=[%s], ndcg=[%s]" % \
                 (idx, time.time() - t0, '\t'.join(['%.5f' % r for r in recs[idx]]),
                  '\t'.join(['%.5f' % r for r in pres[idx]]),
                  '\t'.join(['%.5f' % r for r in ndcgs[idx]]))
    print(final_perf)


if __name__ == '__main__':
    main()
