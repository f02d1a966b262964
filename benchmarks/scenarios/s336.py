# Character-level RNN classifier in miniature, after the PyTorch char_rnn_classification tutorial as adapted in the
# report (the tutorial's RNN cell: hidden = i2h(cat(input, hidden)) with no squashing nonlinearity, output =
# LogSoftmax(i2o(cat(input, hidden))), NLLLoss, one random example per iteration, manual SGD update
# p -= 0.005 * grad, no gradient clipping), on a larger synthetic data set of 12 "languages" whose strings are drawn
# from per-language character bigram models (lengths 4-30, longer than the tutorial's names). 18000 iterations;
# prints the tutorial's progress line every 1000 iterations (iteration, percent, elapsed time, average loss since the
# last print, the current example, the guess and a check mark), writes metrics.csv.
import csv
import math
import time
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(337)
letters = "abcdefghijklmnopqrstuvwxyz'"
NL, NC = len(letters), 12
cats = ['Arabic', 'Czech', 'Dutch', 'English', 'French', 'German', 'Greek', 'Irish', 'Italian', 'Japanese', 'Polish', 'Russian']
bigram = torch.softmax(3.0 * torch.randn(NC, NL, NL, generator=g), -1)
first = torch.softmax(2.0 * torch.randn(NC, NL, generator=g), -1)


def make_word(c):
    n = int(torch.randint(4, 31, (1,), generator=g))
    s = [int(torch.multinomial(first[c], 1, generator=g))]
    for _ in range(n - 1):
        s.append(int(torch.multinomial(bigram[c, s[-1]], 1, generator=g)))
    return ''.join(letters[i] for i in s).capitalize()


def line_to_tensor(line):
    t = torch.zeros(len(line), 1, NL)
    for i, ch in enumerate(line.lower()):
        t[i, 0, letters.index(ch)] = 1
    return t


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.i2o = nn.Linear(input_size + hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, input, hidden):
        combined = torch.cat((input, hidden), 1)
        hidden = self.i2h(combined)
        output = self.softmax(self.i2o(combined))
        return output, hidden

    def init_hidden(self):
        return torch.zeros(1, self.hidden_size)


rnn = RNN(NL, 128, NC)
criterion = nn.NLLLoss()
learning_rate = 0.005
n_iters, print_every = 18000, 1000
rows, current_loss, start = [], 0.0, time.time()
for it in range(1, n_iters + 1):
    c = int(torch.randint(0, NC, (1,), generator=g))
    word = make_word(c)
    line_tensor, category_tensor = line_to_tensor(word), torch.tensor([c])
    hidden = rnn.init_hidden()
    rnn.zero_grad()
    for i in range(line_tensor.size(0)):
        output, hidden = rnn(line_tensor[i], hidden)
    loss = criterion(output, category_tensor)
    loss.backward()
    for p in rnn.parameters():
        p.data.add_(p.grad.data, alpha=-learning_rate)
    current_loss += loss.item()
    if it % print_every == 0:
        guess = output.argmax(1).item()
        correct = '✓' if guess == c else '✗ (%s)' % cats[c]
        s = time.time() - start
        avg = current_loss / print_every
        print('%d %d%% (%dm %ds) %.4f %s / %s %s' % (it, it / n_iters * 100, s // 60, s % 60, avg, word, cats[guess], correct))
        rows.append(dict(iteration=it, loss=avg, hidden_norm=hidden.norm().item()))
        current_loss = 0.0
with open('metrics.csv', 'w', newline='') as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
