# nfmcclure/tensorflow_cookbook in miniature: 07_Natural_Language_Processing/05_Working_With_CBOW_Embeddings/
# 05_Working_With_CBOW.py, the Word2Vec CBOW model on the movie-review corpus: batch_size = 500, embedding_size = 200,
# vocabulary_size = 2000 (index 0 = 'RARE' for words outside the dictionary), window_size = 3 words left and right,
# embeddings initialised uniform(-1, 1), NCE weights truncated normal with stddev 1/sqrt(embedding_size), NCE biases
# zero; the six context embeddings are added together and fed to tf.nn.nce_loss(num_sampled = batch_size/2 = 250,
# num_classes = vocabulary_size) averaged over the batch, trained with tf.train.GradientDescentOptimizer(learning_rate =
# model_learning_rate = 0.5); "Loss at step {} : {}" every print_loss_every = 100 generations (the loss of the batch just
# trained on) and the five nearest words (cosine similarity of the normalised embeddings) to the validation words every
# print_valid_every generations. tf.nn.nce_loss is re-implemented: one shared set of 250 negative classes per batch drawn
# without replacement from the log-uniform (Zipfian) candidate sampler, logits minus log(expected count), sigmoid cross-
# entropy summed over the true class and the 250 sampled classes. Scaled down: a synthetic movie-review corpus (Zipfian
# word frequencies, each review drawn from one of 12 topics, stop words already removed, 3 to 30 words) replaces the
# rt-polarity data, 1500 generations instead of 50000, nearest words every 500 generations instead of 5000; metrics.csv
# also records every generation's training loss (before the update) and gradient norm.
import csv, math
import numpy as np
import torch

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
batch_size = 500
embedding_size = 200
vocabulary_size = 2000
generations = 1500
model_learning_rate = 0.5
num_sampled = int(batch_size / 2)
window_size = 3
print_valid_every = 500
print_loss_every = 100

# ---- synthetic corpus: 20000 raw word types, Zipfian frequencies, 12 topics ----
r = np.random.RandomState(1)
n_types = 20000
zipf = 1.0 / np.arange(1, n_types + 1) ** 0.9
topic_boost = [np.ones(n_types) for _ in range(12)]
for t in range(12):
    topic_words = r.choice(np.arange(60, n_types), 500, replace=False)
    topic_boost[t][topic_words] = 12.0
topic_p = [z / z.sum() for z in (zipf * b for b in topic_boost)]
texts = []
for _ in range(10662):                       # rt-polarity has 10662 reviews
    t = r.randint(12)
    texts.append(r.choice(n_types, r.randint(3, 31), p=topic_p[t]))
texts = [x for x in texts if len(x) > 2]

# text_helpers.build_dictionary / text_to_numbers: most common vocabulary_size - 1 words, everything else -> 0 (RARE)
counts = np.bincount(np.concatenate(texts), minlength=n_types)
common = np.argsort(-counts)[:vocabulary_size - 1]
word_to_id = np.zeros(n_types, dtype=np.int64)
word_to_id[common] = np.arange(1, vocabulary_size)
text_data = [word_to_id[x] for x in texts]
valid_examples = [5, 12, 40, 75, 150, 300]      # stand-ins for 'love', 'hate', 'happy', 'sad', 'man', 'woman'

print('Loading Data'); print('Normalizing Text Data'); print('Creating Dictionary'); print('Creating Model')
embeddings = (torch.rand(vocabulary_size, embedding_size) * 2 - 1).requires_grad_()
nce_weights = torch.nn.init.trunc_normal_(torch.empty(vocabulary_size, embedding_size), std=1.0 / math.sqrt(embedding_size),
                                          a=-2.0 / math.sqrt(embedding_size), b=2.0 / math.sqrt(embedding_size)).requires_grad_()
nce_biases = torch.zeros(vocabulary_size, requires_grad=True)
optimizer = torch.optim.SGD([embeddings, nce_weights, nce_biases], lr=model_learning_rate)

# log-uniform candidate sampler as in TensorFlow: P(k) = log((k + 2) / (k + 1)) / log(range_max + 1)
k = np.arange(vocabulary_size)
P = np.log((k + 2.0) / (k + 1.0)) / np.log(vocabulary_size + 1.0)

def sample_candidates():
    while True:                                    # unique=True: draw until num_sampled distinct classes
        c = np.minimum(vocabulary_size - 1, np.floor(np.exp(np.random.rand(4 * num_sampled) * np.log(vocabulary_size + 1.0))) - 1).astype(np.int64)
        _, first = np.unique(c, return_index=True)
        if len(first) >= num_sampled:
            first = np.sort(first)[:num_sampled]
            return c[first], int(first[-1]) + 1

def expected_count(ids, tries):
    return -np.expm1(tries * np.log1p(-P[ids]))

def nce_loss(embed, labels):
    sampled, tries = sample_candidates()
    true_w, true_b = nce_weights[labels], nce_biases[labels]
    true_logits = (embed * true_w).sum(1) + true_b - torch.tensor(np.log(expected_count(labels.numpy(), tries)), dtype=torch.float32)
    s = torch.from_numpy(sampled)
    sampled_logits = embed @ nce_weights[s].t() + nce_biases[s] - torch.tensor(np.log(expected_count(sampled, tries)), dtype=torch.float32)
    per_example = torch.nn.functional.softplus(-true_logits) + torch.nn.functional.softplus(sampled_logits).sum(1)
    return per_example.mean()

# text_helpers.generate_batch_data(method='cbow'): random sentences, every full window, until batch_size examples
text_data = [x for x in text_data if len(x) >= (2 * window_size + 1)]
def generate_batch_data():
    batch, labels = [], []
    while len(batch) < batch_size:
        s = text_data[np.random.randint(len(text_data))]
        for ix in range(window_size, len(s) - window_size):
            batch.append(np.concatenate([s[ix - window_size:ix], s[ix + 1:ix + 1 + window_size]])); labels.append(s[ix])
    return torch.tensor(np.array(batch[:batch_size])), torch.tensor(np.array(labels[:batch_size]))

f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f); wr.writerow(['step', 'train_loss', 'grad_norm', 'embedding_norm'])
print('Starting Training')
for i in range(generations):
    batch_inputs, batch_labels = generate_batch_data()
    embed = embeddings[batch_inputs].sum(1)          # add together the window embeddings
    loss = nce_loss(embed, batch_labels)
    optimizer.zero_grad()
    loss.backward()
    gn = torch.sqrt(sum((p.grad ** 2).sum() for p in (embeddings, nce_weights, nce_biases))).item()
    optimizer.step()
    wr.writerow([i + 1, loss.item(), gn, embeddings.detach().norm(dim=1).mean().item()])
    if (i + 1) % print_loss_every == 0:
        with torch.no_grad():
            loss_val = nce_loss(embeddings[batch_inputs].sum(1), batch_labels).item()
        print('Loss at step {} : {}'.format(i + 1, loss_val)); f.flush()
    if (i + 1) % print_valid_every == 0:
        with torch.no_grad():
            norm = torch.sqrt((embeddings ** 2).sum(1, keepdim=True))
            sim = (norm.new_tensor(0) + embeddings / norm)[valid_examples] @ (embeddings / norm).t()
        for j, v in enumerate(valid_examples):
            nearest = (-sim[j]).argsort()[1:6].tolist()
            print('Nearest to word_{}: {}'.format(v, ', '.join('word_{}'.format(n) for n in nearest)))
f.close()
