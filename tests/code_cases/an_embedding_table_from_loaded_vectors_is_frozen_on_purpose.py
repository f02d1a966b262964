"""``nn.Embedding.from_pretrained`` over vectors loaded from a file: a deliberate freeze of trained
vectors, not a table at its random start."""
import numpy as np
import torch
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self, vectors):
        super().__init__()
        self.emb = nn.Embedding.from_pretrained(torch.tensor(vectors))
        self.fc = nn.Linear(vectors.shape[1], 2)

    def forward(self, t):
        return self.fc(self.emb(t).mean(1))


model = Classifier(np.load("glove.npy"))
opt = torch.optim.Adam(model.fc.parameters(), lr=1e-3)
t = torch.randint(0, 100, (16, 12))
y = torch.randint(0, 2, (16,))
for _ in range(10):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(t), y)
    loss.backward()
    opt.step()
# expect-detail: frozen_params: no requires_grad=False
# expect-not: frozen_weights
