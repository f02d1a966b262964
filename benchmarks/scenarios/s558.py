# spro/char-rnn.pytorch ("Multi-layer Recurrent Neural Networks (LSTM, GRU, RNN) for character-level language
# models in Torch", the PyTorch port) in miniature: train.py and model.py at commit 0111e772
# (https://github.com/spro/char-rnn.pytorch/blob/0111e7727ab1e0a0d8a6166cdf03f722bd1cf309/train.py). CharRNN over
# string.printable (100 symbols): nn.Embedding(100, hidden_size) -> nn.GRU(hidden_size, hidden_size, n_layers,
# dropout) -> nn.Linear(hidden_size, 100), fed one character position at a time over the chunk with the hidden state
# carried along; the loss is the sum over the chunk of CrossEntropyLoss (mean over the batch) and the reported value is
# loss / chunk_len; torch.optim.Adam(lr=learning_rate) built inside the model; batch_type 0 (random chunks drawn from
# the training file), numFileBatches = ceil(file_len / (batch_size * chunk_len + batch_size)) updates per epoch; the
# validation file is walked with consequent_dataset() through decoder.train(..., validation=True) (no update);
# early stopping with patience --early_stopping = 10; the line "[<time> (<epoch> <percent>%) Train: <loss> Valid:
# <loss>]" followed by a 200-character sample generated from a prime string at temperature 0.8. Defaults kept:
# --model gru, --hidden_size 100, --n_layers 2, --dropout 0.3, --learning_rate 0.01. Scaled down: --chunk_len 50
# instead of 200, --batch_size 32 instead of 100, --n_epochs 8 with --print_every 1 instead of 2000 and 100, and a
# synthetic corpus (sentences from a small English-like grammar, 48000 characters for training and 8000 for
# validation) instead of the user's text file; it runs on the CPU (the model's hidden.cuda() call is left out).
# metrics.csv has the training loss of every update and the per-epoch train and validation losses.
import csv, math, random, string, time
import numpy as np
import torch, torch.nn as nn

torch.manual_seed(0); random.seed(0); np.random.seed(0); torch.set_num_threads(1)

all_characters = string.printable
n_characters = len(all_characters)


# ---------------------------------------------------------------- synthetic text
def make_text(n_chars, r):
    subj = ['the old man', 'a young girl', 'the captain', 'my brother', 'the doctor', 'a small dog', 'the teacher',
            'her mother', 'the king', 'a stranger']
    verb = ['walked to', 'looked at', 'spoke with', 'waited for', 'ran past', 'thought about', 'found', 'followed']
    obj = ['the river', 'the house', 'a letter', 'the garden', 'the station', 'an open window', 'the market',
           'the church', 'a broken cart', 'the hill']
    tail = ['', ' in the morning', ' after dinner', ' before the rain', ' without a word', ' at night', ' again']
    out, n = [], 0
    while n < n_chars:
        s = '%s %s %s%s' % (r.choice(subj), r.choice(verb), r.choice(obj), r.choice(tail))
        s = s[0].upper() + s[1:] + r.choice(['.', '.', '.', '!', '?']) + (' ' if r.random() < 0.8 else '\n')
        out.append(s); n += len(s)
    return ''.join(out)[:n_chars]


rt = random.Random(5)
fileTrain, fileValid = make_text(48000, rt), make_text(8000, rt)
file_lenTrain, file_lenValid = len(fileTrain), len(fileValid)


class Args:
    model = 'gru'; n_epochs = 8; print_every = 1; hidden_size = 100; n_layers = 2; dropout = 0.3
    learning_rate = 0.01; chunk_len = 50; batch_size = 32; batch_type = 0; early_stopping = 10; cuda = False


args = Args()


# ---------------------------------------------------------------- helpers.py
def char_tensor(s):
    tensor = torch.zeros(len(s)).long()
    for c in range(len(s)):
        try:
            tensor[c] = all_characters.index(s[c])
        except ValueError:
            continue
    return tensor


def time_since(since):
    s = time.time() - since
    m = math.floor(s / 60)
    return '%dm %ds' % (m, s - m * 60)


# ---------------------------------------------------------------- model.py
class CharRNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size, model="gru", n_layers=1, dropout=0, gpu=True,
                 batch_size=32, chunk_len=30, learning_rate=0.001, optimizer="adam"):
        super(CharRNN, self).__init__()
        self.model = model.lower()
        self.hidden_size, self.n_layers = hidden_size, n_layers
        self.batch_size, self.chunk_len = batch_size, chunk_len
        self.encoder = nn.Embedding(input_size, hidden_size)
        if self.model == "gru":
            self.rnn = nn.GRU(hidden_size, hidden_size, n_layers, dropout=dropout)
        elif self.model == "lstm":
            self.rnn = nn.LSTM(hidden_size, hidden_size, n_layers, dropout=dropout)
        self.decoder = nn.Linear(hidden_size, output_size)
        if optimizer == "adam":
            self.optimizer = torch.optim.Adam(self.parameters(), lr=learning_rate)
        elif optimizer == "rms":
            self.optimizer = torch.optim.RMSprop(self.parameters(), lr=learning_rate)
        self.criterion = nn.CrossEntropyLoss()

    def forward(self, input, hidden):
        batch_size = input.size(0)
        encoded = self.encoder(input)
        output, hidden = self.rnn(encoded.view(1, batch_size, -1), hidden)
        output = self.decoder(output.view(batch_size, -1))
        return output, hidden

    def forward2(self, input, hidden):
        encoded = self.encoder(input.view(1, -1))
        output, hidden = self.rnn(encoded.view(1, 1, -1), hidden)
        output = self.decoder(output.view(1, -1))
        return output, hidden

    def init_hidden(self, batch_size):
        if self.model == "lstm":
            return (torch.zeros(self.n_layers, batch_size, self.hidden_size),
                    torch.zeros(self.n_layers, batch_size, self.hidden_size))
        return torch.zeros(self.n_layers, batch_size, self.hidden_size)

    def train_step(self, inp, target, validation):
        self.zero_grad()
        loss = 0
        hidden = self.init_hidden(self.batch_size)
        for c in range(self.chunk_len):
            output, hidden = self(inp[:, c], hidden)
            loss += self.criterion(output.view(self.batch_size, -1), target[:, c])
        if not validation:
            loss.backward()
            self.optimizer.step()
        return loss.item() / self.chunk_len


# ---------------------------------------------------------------- generate.py
def generate(decoder, prime_str='A', predict_len=100, temperature=0.8):
    hidden = decoder.init_hidden(1)
    prime_input = char_tensor(prime_str).unsqueeze(0)
    predicted = prime_str
    with torch.no_grad():
        for p in range(len(prime_str) - 1):
            _, hidden = decoder(prime_input[:, p], hidden)
        inp = prime_input[:, -1]
        for p in range(predict_len):
            output, hidden = decoder(inp, hidden)
            output_dist = output.data.view(-1).div(temperature).exp()
            top_i = torch.multinomial(output_dist, 1)[0]
            predicted_char = all_characters[top_i]
            predicted += predicted_char
            inp = char_tensor(predicted_char).unsqueeze(0)
    return predicted


# ---------------------------------------------------------------- train.py
def random_dataset(args, file, file_len):
    inp = torch.LongTensor(args.batch_size, args.chunk_len)
    target = torch.LongTensor(args.batch_size, args.chunk_len)
    for bi in range(args.batch_size):
        start_index = random.randint(0, file_len - args.chunk_len)
        end_index = start_index + args.chunk_len + 1
        if end_index > file_len:
            start_index = file_len - args.chunk_len - 1
        chunk = file[start_index:end_index]
        inp[bi] = char_tensor(chunk[:-1])
        target[bi] = char_tensor(chunk[1:])
    return inp, target


def consequent_dataset(args, num_batches, file, file_len):
    inp = torch.LongTensor(args.batch_size, args.chunk_len)
    target = torch.LongTensor(args.batch_size, args.chunk_len)
    end_index = args.chunk_len * num_batches * args.batch_size + (args.batch_size * num_batches)
    end_reached = False
    for bi in range(args.batch_size):
        start_index = end_index
        if end_reached:
            start_index = random.randint(0, file_len - args.chunk_len - 1)
        if start_index + args.chunk_len + 1 > file_len:
            start_index = file_len - args.chunk_len - 1
            end_reached = True
        end_index = start_index + args.chunk_len + 1
        chunk = file[start_index:end_index]
        inp[bi] = char_tensor(chunk[:-1])
        target[bi] = char_tensor(chunk[1:])
    return inp, target


numFileBatches = math.ceil(file_lenTrain / ((args.batch_size * args.chunk_len) + args.batch_size))
numValidBatches = math.ceil(file_lenValid / ((args.batch_size * args.chunk_len) + args.batch_size))
early_stopping_patience = args.early_stopping
print('No model name supplied -> Model checkpoint disabled')

decoder = CharRNN(n_characters, args.hidden_size, n_characters, model=args.model, n_layers=args.n_layers,
                  dropout=args.dropout, learning_rate=args.learning_rate, chunk_len=args.chunk_len,
                  batch_size=args.batch_size, gpu=args.cuda)

f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'step', 'train_loss', 'epoch_train_loss', 'valid_loss'])
start = time.time()
train_losses, valid_losses = [], []
valid_loss_best = np.inf
patience = 1
step = 0
print("Training for %d epochs..." % args.n_epochs)
for epoch in range(1, args.n_epochs + 1):
    numBatches = 0
    numBatchesValid = 0
    loss_avg = 0
    while numBatches < numFileBatches:
        loss = decoder.train_step(*random_dataset(args, fileTrain, file_lenTrain), validation=False)
        loss_avg += loss
        numBatches += 1
        step += 1
        wr.writerow([epoch, step, round(loss, 5), '', ''])
    loss_avg /= numFileBatches
    train_losses.append(loss_avg)
    valid_loss_avg = 0
    while numBatchesValid < numValidBatches:
        valid_loss_avg += decoder.train_step(*consequent_dataset(args, numBatchesValid, fileValid, file_lenValid),
                                             validation=True)
        numBatchesValid += 1
    valid_loss_avg /= numValidBatches
    valid_losses.append(valid_loss_avg)
    wr.writerow([epoch, step, '', round(loss_avg, 5), round(valid_loss_avg, 5)]); f.flush()
    if valid_loss_avg < valid_loss_best:
        valid_loss_best = valid_loss_avg
        args.early_stopping = epoch
        patience = 1
    else:
        patience += 1
        if patience >= early_stopping_patience:
            break
    if epoch % args.print_every == 0:
        print('[%s (%d %d%%) Train: %.4f Valid: %.4f]' % (time_since(start), epoch, epoch / args.n_epochs * 100,
                                                          loss_avg, valid_loss_avg))
        print(generate(decoder, 'The', 200), '\n')
f.close()
print("Saving...")
