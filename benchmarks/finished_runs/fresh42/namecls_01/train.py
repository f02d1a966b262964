# Character-level RNN name classifier after the PyTorch tutorial "NLP From Scratch: Classifying Names with a
# Character-Level RNN" (intermediate/char_rnn_classification_tutorial): one-hot letters, nn.RNN, a Linear output with
# LogSoftmax and NLLLoss, SGD, progress printed as "iter pct% (time) loss name / guess mark". Here mini-batches of
# padded names (pack_padded_sequence) and synthetic names from 8 made-up "languages" (letter bigram chains).
import math, random, string, time
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence

torch.set_num_threads(1)
torch.manual_seed(7)
random.seed(7)

ALL_LETTERS = string.ascii_letters + " .,;'"
N_LETTERS = len(ALL_LETTERS)
CATEGORIES = ["Arvish", "Belunic", "Corran", "Dathi", "Esmeri", "Folkan", "Gorvi", "Hestan"]
N_HIDDEN = 96
LEARNING_RATE = 0.05
MOMENTUM = 0.9
CLIP = 1.0
BATCH = 32
N_ITERS = 1000
PRINT_EVERY = 50
EVAL_EVERY = 200


def make_languages(g):
    langs = []
    for _ in CATEGORIES:
        start = torch.distributions.Dirichlet(torch.full((26,), 0.3)).sample()
        trans = torch.distributions.Dirichlet(torch.full((26,), 0.08)).sample((26,))
        langs.append((start, trans))
    return langs


def sample_name(lang):
    start, trans = lang
    n = random.randint(4, 9)
    c = torch.multinomial(start, 1).item()
    s = [c]
    for _ in range(n - 1):
        c = torch.multinomial(trans[c], 1).item()
        s.append(c)
    name = "".join(string.ascii_lowercase[i] for i in s)
    return name.capitalize()


LANGS = make_languages(None)
data = []
for ci in range(len(CATEGORIES)):
    for _ in range(600):
        data.append((sample_name(LANGS[ci]), ci))
random.shuffle(data)
val_data, train_data = data[:800], data[800:]
print(f"categories: {len(CATEGORIES)} {CATEGORIES}")
print(f"train names: {len(train_data)}, val names: {len(val_data)}, e.g. {train_data[0][0]} ({CATEGORIES[train_data[0][1]]}), {train_data[1][0]} ({CATEGORIES[train_data[1][1]]})")


def batch_tensor(batch):
    batch = sorted(batch, key=lambda p: -len(p[0]))
    lengths = [len(n) for n, _ in batch]
    x = torch.zeros(max(lengths), len(batch), N_LETTERS)
    for b, (name, _) in enumerate(batch):
        for t, ch in enumerate(name):
            x[t, b, ALL_LETTERS.find(ch)] = 1
    y = torch.tensor([c for _, c in batch])
    return x, lengths, y, [n for n, _ in batch]


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.rnn = nn.RNN(input_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, x, lengths):
        packed = pack_padded_sequence(x, lengths)
        _, hidden = self.rnn(packed)
        return self.softmax(self.h2o(hidden[0]))


rnn = RNN(N_LETTERS, N_HIDDEN, len(CATEGORIES))
criterion = nn.NLLLoss()
optimizer = torch.optim.SGD(rnn.parameters(), lr=LEARNING_RATE, momentum=MOMENTUM)


def category_from_output(output):
    return output.topk(1)[1][0].item()


def time_since(since):
    s = time.time() - since
    m = math.floor(s / 60)
    return "%dm %ds" % (m, s - m * 60)


def evaluate():
    rnn.eval()
    with torch.no_grad():
        x, lengths, y, _ = batch_tensor(val_data)
        out = rnn(x, lengths)
        loss = criterion(out, y).item()
        acc = (out.argmax(1) == y).float().mean().item()
    rnn.train()
    return loss, acc


start = time.time()
current_loss = 0.0
order = list(range(len(train_data)))
pos = len(order)
for it in range(1, N_ITERS + 1):
    if pos + BATCH > len(order):
        random.shuffle(order)
        pos = 0
    batch = [train_data[i] for i in order[pos:pos + BATCH]]
    pos += BATCH
    x, lengths, y, names = batch_tensor(batch)
    rnn.zero_grad()
    output = rnn(x, lengths)
    loss = criterion(output, y)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(rnn.parameters(), CLIP)
    optimizer.step()
    current_loss += loss.item()

    if it % PRINT_EVERY == 0:
        guess = CATEGORIES[category_from_output(output)]
        category = CATEGORIES[y[0].item()]
        correct = "✓" if guess == category else "✗ (%s)" % category
        print("%d %d%% (%s) %.4f %s / %s %s" % (it, it / N_ITERS * 100, time_since(start), current_loss / PRINT_EVERY, names[0], guess, correct))
        current_loss = 0.0
    if it % EVAL_EVERY == 0:
        vl, va = evaluate()
        print("-- val loss %.4f  val accuracy %.3f" % (vl, va))

vl, va = evaluate()
print("Finished: accuracy on %d held-out names = %.3f" % (len(val_data), va))
