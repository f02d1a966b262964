import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

N_TAGS = 5
HIDDEN = 32
data = TensorDataset(torch.randint(0, 40, (64, 12)), torch.randint(0, N_TAGS, (64, 12)))
loader = DataLoader(data, batch_size=8, shuffle=True)


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(40, 16)
        self.rnn = nn.GRU(16, HIDDEN, batch_first=True)
        self.proj = nn.Linear(HIDDEN, N_TAGS)  # expect: num_classes=5

    def forward(self, tok):
        h, _ = self.rnn(self.emb(tok))
        out = self.proj(h)
        return out


model = Tagger()
criterion = nn.CrossEntropyLoss()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(2):
    for x, y in loader:
        opt.zero_grad()
        loss = criterion(model(x).reshape(-1, N_TAGS), y.reshape(-1))
        loss.backward()
        opt.step()

# expect-detail: num_classes: output layer
