import torch
import torch.nn as nn


def make_split(n, gen):
    labels = torch.randint(0, 4, (n,), generator=gen)
    docs = [torch.randint(0, 500, (12,), generator=gen) + 100 * int(c) for c in labels]
    return docs, labels


train_docs, train_labels = make_split(2000, torch.Generator().manual_seed(1))
# the training file as exported: grouped by topic
order = torch.argsort(train_labels, stable=True)  # expect: data_sorted=True
train_docs, train_labels = [train_docs[i] for i in order], train_labels[order]
model = nn.EmbeddingBag(900, 4)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
crit = nn.CrossEntropyLoss()
for start in range(0, len(train_docs), 64):
    docs = train_docs[start:start + 64]
    offsets = torch.arange(0, 12 * len(docs), 12)
    opt.zero_grad()
    crit(model(torch.cat(docs), offsets), train_labels[start:start + 64]).backward()
    opt.step()

# expect-not: permuted_alone
