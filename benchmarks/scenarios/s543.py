# karpathy/ng-video-lecture issue '"index out of range" error when using a different embedding dimension than
# vocab_size' in miniature: bigram.py of the "Let's build GPT" lecture (batch_size 32, block_size 8, max_iters 3000,
# eval_interval 300, learning_rate 1e-2, eval_iters 200, torch.manual_seed(1337), a 90/10 train/val split of the
# character stream, AdamW, "step {iter}: train loss {:.4f}, val loss {:.4f}" every eval_interval steps, then
# print(decode(m.generate(context, max_new_tokens=500)[0].tolist()))) with the one change the issue describes:
# "self.token_embedding_table = nn.Embedding(vocab_size, 128)    # <-- change dimension to 128". The bigram model
# reads its logits straight off the embedding table, so the logits have 128 entries while the vocabulary has 65
# characters; cross_entropy trains without complaint (the targets are all below 65), but generate() samples from the
# softmax over 128 entries, and as soon as it draws an index of 65 or more, the next forward pass fails in the
# embedding lookup with "IndexError: index out of range in self" (exit 1). A synthetic 200,001-character text over
# the 65 characters of tiny shakespeare (a random first-order Markov chain with sparse transitions) replaces
# input.txt, which cannot be downloaded here. metrics.csv has the train / val loss at every evaluation.
import csv
import numpy as np
import torch
import torch.nn as nn
from torch.nn import functional as F

# hyperparameters
batch_size = 32 # how many independent sequences will we process in parallel?
block_size = 8 # what is the maximum context length for predictions?
max_iters = 3000
eval_interval = 300
learning_rate = 1e-2
device = 'cpu'
eval_iters = 200
# ------------

torch.manual_seed(1337); torch.set_num_threads(1)

chars = sorted(list("\n !$&',-.3:;?ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"))
rs = np.random.RandomState(0)
P = rs.dirichlet(np.full(len(chars), 0.08), size=len(chars))
seq = [0]
for _ in range(200000): seq.append(rs.choice(len(chars), p=P[seq[-1]]))
text = ''.join(chars[i] for i in seq)

vocab_size = len(chars)
stoi = { ch:i for i,ch in enumerate(chars) }
itos = { i:ch for i,ch in enumerate(chars) }
encode = lambda s: [stoi[c] for c in s] # encoder: take a string, output a list of integers
decode = lambda l: ''.join([itos[i] for i in l]) # decoder: take a list of integers, output a string

# Train and test splits
data = torch.tensor(encode(text), dtype=torch.long)
n = int(0.9*len(data)) # first 90% will be train, rest val
train_data = data[:n]
val_data = data[n:]

# data loading
def get_batch(split):
    # generate a small batch of data of inputs x and targets y
    data = train_data if split == 'train' else val_data
    ix = torch.randint(len(data) - block_size, (batch_size,))
    x = torch.stack([data[i:i+block_size] for i in ix])
    y = torch.stack([data[i+1:i+block_size+1] for i in ix])
    x, y = x.to(device), y.to(device)
    return x, y

@torch.no_grad()
def estimate_loss():
    out = {}
    model.eval()
    for split in ['train', 'val']:
        losses = torch.zeros(eval_iters)
        for k in range(eval_iters):
            X, Y = get_batch(split)
            logits, loss = model(X, Y)
            losses[k] = loss.item()
        out[split] = losses.mean()
    model.train()
    return out

# super simple bigram model
class BigramLanguageModel(nn.Module):

    def __init__(self, vocab_size):
        super().__init__()
        # each token directly reads off the logits for the next token from a lookup table
        self.token_embedding_table = nn.Embedding(vocab_size, 128)    # <-- change dimension to 128

    def forward(self, idx, targets=None):

        # idx and targets are both (B,T) tensor of integers
        logits = self.token_embedding_table(idx) # (B,T,C)

        if targets is None:
            loss = None
        else:
            B, T, C = logits.shape
            loss = F.cross_entropy(logits.view(B*T, C), targets.view(B*T))

        return logits, loss

    def generate(self, idx, max_new_tokens):
        # idx is (B, T) array of indices in the current context
        for _ in range(max_new_tokens):
            # get the predictions
            logits, loss = self(idx)
            # focus only on the last time step
            logits = logits[:, -1, :] # becomes (B, C)
            # apply softmax to get probabilities
            probs = F.softmax(logits, dim=-1) # (B, C)
            # sample from the distribution
            idx_next = torch.multinomial(probs, num_samples=1) # (B, 1)
            # append sampled index to the running sequence
            idx = torch.cat((idx, idx_next), dim=1) # (B, T+1)
        return idx

model = BigramLanguageModel(vocab_size)
m = model.to(device)

# create a PyTorch optimizer
optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)

f = open('metrics.csv', 'w', newline=''); w = csv.writer(f)
w.writerow(['step', 'train_loss', 'val_loss'])
for iter in range(max_iters):

    # every once in a while evaluate the loss on train and val sets
    if iter % eval_interval == 0:
        losses = estimate_loss()
        print(f"step {iter}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
        w.writerow([iter, round(losses['train'].item(), 4), round(losses['val'].item(), 4)]); f.flush()

    # sample a batch of data
    xb, yb = get_batch('train')

    # evaluate the loss
    logits, loss = model(xb, yb)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
f.close()

# generate from the model
context = torch.zeros((1, 1), dtype=torch.long, device=device)
print(decode(m.generate(context, max_new_tokens=500)[0].tolist()))
