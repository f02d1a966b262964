# Word-level LSTM language model, adapted from pytorch/examples word_language_model (main.py, model.py, data.py):
# RNNModel (Embedding -> LSTM -> Linear decoder), batchify / get_batch with bptt, truncated BPTT with repackaged hidden
# state, plain SGD update p.data.add_(p.grad, alpha=-lr) after clip_grad_norm_, lr annealed by 4 when val loss stalls.
# Synthetic corpus: sentences drawn from a sparse random bigram chain over a 300-word vocabulary.
import math, time
import torch
import torch.nn as nn

torch.set_num_threads(1)


class Args:
    emsize = 64
    nhid = 96
    nlayers = 2
    lr = 20.0
    clip = 0.25
    epochs = 6
    batch_size = 20
    bptt = 20
    dropout = 0.2
    seed = 1111
    log_interval = 40


args = Args()
torch.manual_seed(args.seed)

# ---------------- corpus ----------------
VOCAB = 300
g = torch.Generator().manual_seed(7)
succ = torch.stack([torch.randperm(VOCAB - 1, generator=g)[:6] + 1 for _ in range(VOCAB)])  # 6 successors each
probs = torch.distributions.Dirichlet(torch.full((6,), 0.7)).sample((VOCAB,))


def sample_tokens(n, gen):
    out = []
    w = 0  # <eos> = 0
    while len(out) < n:
        if w == 0 or torch.rand(1, generator=gen).item() < 0.06:
            w = torch.randint(1, VOCAB, (1,), generator=gen).item() if w == 0 else 0
        else:
            w = succ[w][torch.multinomial(probs[w], 1, generator=gen)].item()
        out.append(w)
    return torch.tensor(out, dtype=torch.long)


train_data_raw = sample_tokens(48000, torch.Generator().manual_seed(11))
val_data_raw = sample_tokens(6000, torch.Generator().manual_seed(12))
test_data_raw = sample_tokens(6000, torch.Generator().manual_seed(13))


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


eval_batch_size = 10
train_data = batchify(train_data_raw, args.batch_size)
val_data = batchify(val_data_raw, eval_batch_size)
test_data = batchify(test_data_raw, eval_batch_size)


# ---------------- model ----------------
class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.5):
        super().__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nhid, self.nlayers = nhid, nlayers
        self.init_weights()

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output).view(-1, self.ntoken)
        return torch.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid), weight.new_zeros(self.nlayers, bsz, self.nhid))


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def get_batch(source, i):
    seq_len = min(args.bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].view(-1)
    return data, target


model = RNNModel(VOCAB, args.emsize, args.nhid, args.nlayers, args.dropout)
criterion = nn.NLLLoss()
params = list(model.encoder.parameters()) + list(model.rnn.parameters())


def evaluate(data_source):
    model.eval()
    total_loss = 0.
    hidden = model.init_hidden(eval_batch_size)
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, args.bptt):
            data, targets = get_batch(data_source, i)
            output, hidden = model(data, hidden)
            hidden = repackage_hidden(hidden)
            total_loss += len(data) * criterion(output, targets).item()
    return total_loss / (len(data_source) - 1)


def train():
    model.train()
    total_loss = 0.
    start_time = time.time()
    hidden = model.init_hidden(args.batch_size)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, args.bptt)):
        data, targets = get_batch(train_data, i)
        model.zero_grad()
        hidden = repackage_hidden(hidden)
        output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, args.clip)
        for p in params:
            if p.grad is not None:
                p.data.add_(p.grad, alpha=-lr)
        total_loss += loss.item()
        if batch % args.log_interval == 0 and batch > 0:
            cur_loss = total_loss / args.log_interval
            elapsed = time.time() - start_time
            print('| epoch {:3d} | {:5d}/{:5d} batches | lr {:02.2f} | ms/batch {:5.2f} | '
                  'loss {:5.2f} | ppl {:8.2f}'.format(
                      epoch, batch, len(train_data) // args.bptt, lr,
                      elapsed * 1000 / args.log_interval, cur_loss, math.exp(cur_loss)))
            total_loss = 0
            start_time = time.time()


print(f"| corpus: vocab {VOCAB} | train {len(train_data_raw)} tokens | valid {len(val_data_raw)} | test {len(test_data_raw)}")
lr = args.lr
best_val_loss = None
best_state = None
for epoch in range(1, args.epochs + 1):
    epoch_start_time = time.time()
    train()
    val_loss = evaluate(val_data)
    print('-' * 89)
    print('| end of epoch {:3d} | time: {:5.2f}s | valid loss {:5.2f} | '
          'valid ppl {:8.2f}'.format(epoch, (time.time() - epoch_start_time), val_loss, math.exp(val_loss)))
    print('-' * 89)
    if not best_val_loss or val_loss < best_val_loss:
        best_state = {k: v.clone() for k, v in model.state_dict().items()}
        best_val_loss = val_loss
    else:
        # Anneal the learning rate if no improvement has been seen in the validation dataset.
        lr /= 4.0

model.load_state_dict(best_state)
test_loss = evaluate(test_data)
print('=' * 89)
print('| End of training | test loss {:5.2f} | test ppl {:8.2f}'.format(test_loss, math.exp(test_loss)))
print('=' * 89)
