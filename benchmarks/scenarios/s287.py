# "Classifying names with a character-level RNN" tutorial loop in miniature: synthetic surnames from 18
# languages (each language has its own letter distribution and typical length, 3-18 letters, one-hot over
# 57 characters). The tutorial RNN: hidden = i2h(cat(input, hidden)), output = LogSoftmax(i2o(...)),
# i.e. a purely linear recurrence with no squashing nonlinearity, trained one name at a time with
# NLLLoss and a manual SGD update p -= 0.005 * grad, no gradient clipping. Prints every 2000 iterations.
import math
import string
import time
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(287)

all_letters = string.ascii_letters + " .,;'"
n_letters = len(all_letters)
n_categories = 18
all_categories = ['Arabic', 'Chinese', 'Czech', 'Dutch', 'English', 'French', 'German', 'Greek', 'Irish',
                  'Italian', 'Japanese', 'Korean', 'Polish', 'Portuguese', 'Russian', 'Scottish', 'Spanish',
                  'Vietnamese']
letter_logits = torch.randn(n_categories, 26, generator=g) * 2.0
mean_len = torch.randint(4, 12, (n_categories,), generator=g)


def random_example():
    c = int(torch.randint(0, n_categories, (1,), generator=g))
    L = int(min(18, max(3, mean_len[c] + torch.randint(-3, 7, (1,), generator=g))))
    idx = torch.multinomial(torch.softmax(letter_logits[c], 0), L, replacement=True, generator=g)
    name = ''.join(all_letters[26 + idx[0]] if i == 0 else all_letters[j] for i, j in enumerate(idx.tolist()))
    line_tensor = torch.zeros(L, 1, n_letters)
    for li, ch in enumerate(name):
        line_tensor[li][0][all_letters.find(ch)] = 1
    return all_categories[c], name, torch.tensor([c]), line_tensor


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

    def initHidden(self):
        return torch.zeros(1, self.hidden_size)


rnn = RNN(n_letters, 128, n_categories)
criterion = nn.NLLLoss()
learning_rate = 0.005


def train(category_tensor, line_tensor):
    hidden = rnn.initHidden()
    rnn.zero_grad()
    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)
    loss = criterion(output, category_tensor)
    loss.backward()
    for p in rnn.parameters():
        p.data.add_(p.grad.data, alpha=-learning_rate)
    return output, loss.item(), hidden.abs().max().item()


n_iters, print_every = 20000, 1000
current_loss = 0.0
start = time.time()
for it in range(1, n_iters + 1):
    category, line, category_tensor, line_tensor = random_example()
    output, loss, hmax = train(category_tensor, line_tensor)
    current_loss += loss
    if it % print_every == 0:
        guess = all_categories[int(output.argmax())]
        correct = '✓' if guess == category else '✗ (%s)' % category
        print('%d %d%% (%.0fs) %.4f %s / %s %s | avg loss %.4f | max|h| %.3g' % (
            it, it / n_iters * 100, time.time() - start, loss, line, guess, correct,
            current_loss / print_every, hmax))
        current_loss = 0.0
