# daandouwe/glove ("GloVe embeddings in PyTorch") in miniature: train.py and model.py of that repository
# (https://github.com/daandouwe/glove/blob/7606cd1f2b3094fc3a6583396f5072cda320a235/train.py). The co-occurrence
# counts X are turned into dense matrices logX = log(1 + X) and fX = f(X) with the weighting f(x) = (x / x_max)^alpha,
# x_max = 100, alpha = 0.75, capped at 1 (data/scripts/construct-cooccur-matrix.py; vocabularies under 20000 words use
# dense matrices); model GloVe(vocab_size, emb_dim=50, sparse=True): word and context embeddings with Xavier-range
# uniform initialisation and zero-initialised biases, forward(indices, logx, weights) = mean(weights * (w @ w_tilde.T
# + b + b_tilde.T - logx)^2) over the square submatrix of a random batch of word indices; torch.optim.SparseAdam(lr=1e-2);
# every step draws batch_size = 512 random word indices and takes logX[np.ix_(idx, idx)]; the log line "| epoch .. |
# step .. | loss .. | pairs/sec .. | lr .." every print_every = 100 steps with the loss averaged over those steps; seed
# 42; no learning-rate schedule (--use-schedule is off by default). Scaled down: a 2000-word vocabulary and
# co-occurrences counted (window 15, harmonic 1/d weighting as in the repository's counting script) on a synthetic
# 1.5-million-token corpus drawn from a topic model (200 frequent function words and 30 topics of 60 words, Zipfian
# frequencies, 6000 documents of 250 tokens, each mixing two topics) instead of text8; 2500 updates instead of
# 10000. After training, the share of the 10 nearest neighbours (cosine, word embeddings) of 300 topic words that come
# from the same topic is printed (chance 1/30). metrics.csv has the logged loss every 100 steps and the neighbour
# score at the end.
import csv, time
import numpy as np
import torch, torch.nn as nn

torch.set_num_threads(1)

VOCAB, N_TOPIC, TOPIC_WORDS, N_FUNC = 2000, 30, 60, 200
WINDOW = 15


# ---------------------------------------------------------------- synthetic corpus and co-occurrence counts
def build_corpus(rs):
    topic_of = np.full(VOCAB, -1)
    topic_of[N_FUNC:] = (np.arange(VOCAB - N_FUNC) // TOPIC_WORDS)
    zipf_func = 1.0 / np.arange(1, N_FUNC + 1) ** 1.0
    zipf_func /= zipf_func.sum()
    zipf_topic = 1.0 / np.arange(1, TOPIC_WORDS + 1) ** 0.9
    zipf_topic /= zipf_topic.sum()
    docs = []
    for _ in range(6000):
        t1, t2 = rs.choice(N_TOPIC, 2, replace=False)
        n = 250
        kind = rs.rand(n)
        which = np.where(rs.rand(n) < 0.7, t1, t2)
        tok = np.where(kind < 0.45,
                       rs.choice(N_FUNC, n, p=zipf_func),
                       N_FUNC + which * TOPIC_WORDS + rs.choice(TOPIC_WORDS, n, p=zipf_topic))
        docs.append(tok)
    return docs, topic_of


def count_cooccurrences(docs):
    D = np.stack(docs)                                     # documents x tokens
    X = np.zeros(VOCAB * VOCAB, np.float64)
    for d in range(1, WINDOW + 1):
        a, b = D[:, :-d].ravel(), D[:, d:].ravel()
        X += np.bincount(a * VOCAB + b, minlength=VOCAB * VOCAB) / d
        X += np.bincount(b * VOCAB + a, minlength=VOCAB * VOCAB) / d
    return X.reshape(VOCAB, VOCAB)


def weigh(x, x_max=100, alpha=0.75):
    """The weighing function f applied to X_ij."""
    y = (x / x_max) ** alpha
    y[x > x_max] = 1.
    return y


class GloVe(nn.Module):
    """Global Vectors for word embedding."""
    def __init__(self, vocab_size, emb_dim=300, sparse=True):
        super(GloVe, self).__init__()
        self.embedding = nn.Embedding(vocab_size, emb_dim, sparse=sparse)
        self.bias = nn.Embedding(vocab_size, 1, sparse=sparse)
        self.embedding_tilde = nn.Embedding(vocab_size, emb_dim, sparse=sparse)
        self.bias_tilde = nn.Embedding(vocab_size, 1, sparse=sparse)
        initrange = (2.0 / (vocab_size + emb_dim)) ** 0.5
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.embedding_tilde.weight.data.uniform_(-initrange, initrange)
        self.bias.weight.data.zero_()
        self.bias_tilde.weight.data.zero_()

    def forward(self, indices, logx, weights):
        w, w_tilde = self.embedding(indices), self.embedding_tilde(indices)
        b, b_tilde = self.bias(indices), self.bias_tilde(indices)
        out = w @ torch.t(w_tilde) + b + torch.t(b_tilde)
        loss = torch.mean(weights * (out - logx) ** 2)
        return loss


def neighbour_score(emb, topic_of, rs):
    e = emb / (np.linalg.norm(emb, axis=1, keepdims=True) + 1e-8)
    words = rs.choice(np.arange(N_FUNC, VOCAB), 300, replace=False)
    hits = 0
    for wd in words:
        sim = e @ e[wd]; sim[wd] = -np.inf
        nn_ = np.argsort(-sim)[:10]
        hits += (topic_of[nn_] == topic_of[wd]).sum()
    return hits / (300 * 10)


def main():
    num_updates, batch_size, lr, emb_dim, print_every, seed = 2500, 512, 1e-2, 50, 100, 42
    rs = np.random.RandomState(5)
    docs, topic_of = build_corpus(rs)
    X = count_cooccurrences(docs)
    logX, fX = np.log(1 + X).astype(np.float32), weigh(X).astype(np.float32)
    vocab_size = VOCAB
    print('Device: cpu')
    torch.manual_seed(seed)
    np.random.seed(seed)
    print(f'Loaded vocabulary of size {vocab_size}.')
    print(f'Co-occurrence matrix: {int((X > 0).sum()):,} non-zero entries, total count {X.sum():,.0f}.')
    print('Using dense cooccurence matrices during training.')
    model = GloVe(vocab_size=vocab_size, emb_dim=emb_dim, sparse=True)
    optimizer = torch.optim.SparseAdam(model.parameters(), lr=lr)
    print('Training...')
    f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
    wr.writerow(['step', 'loss', 'neighbour_score'])
    losses = []
    epoch = 0
    t0 = time.time()
    for step in range(1, num_updates + 1):
        idx = np.random.randint(0, high=vocab_size, size=(batch_size,))
        indices = torch.LongTensor(idx)
        submat = np.ix_(idx, idx)
        logx = torch.FloatTensor(logX[submat])
        weights = torch.FloatTensor(fX[submat])
        loss = model(indices, logx, weights)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if step % print_every == 0:
            ls = losses[-print_every:]
            avg_loss = sum(ls) / print_every
            wr.writerow([step, round(avg_loss, 6), '']); f.flush()
            print('| epoch {:4d} | step {:6d} | loss {:.4f} | pairs/sec {:.1f} | lr {:.1e}'.format(
                epoch, step, avg_loss, print_every * batch_size / (time.time() - t0), lr), flush=True)
            t0 = time.time()
        k, _ = divmod(step * batch_size, vocab_size)
        if k > epoch:
            epoch = k
    embeddings = model.embedding.weight.data.cpu().numpy()
    score = neighbour_score(embeddings, topic_of, np.random.RandomState(1))
    wr.writerow([num_updates, '', round(score, 4)]); f.close()
    print(f'Same-topic share of the 10 nearest neighbours: {score:.3f} (chance {1 / N_TOPIC:.3f})')


if __name__ == '__main__':
    main()
