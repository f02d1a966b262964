import torch
import torch.nn as nn


class LM(nn.Module):
    def __init__(self, ntoken=300, ninp=64, nhid=96):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, 2)
        self.decoder = nn.Linear(nhid, ntoken)

    def forward(self, x, hidden):
        out, hidden = self.rnn(self.encoder(x), hidden)
        return torch.log_softmax(self.decoder(out), dim=-1), hidden


model = LM()
criterion = nn.NLLLoss()
params = list(model.encoder.parameters()) + list(model.rnn.parameters())
data = torch.randint(0, 300, (2000, 20))
lr = 20.0
for i in range(0, 1980, 20):
    x, y = data[i:i + 20], data[i + 1:i + 21]
    model.zero_grad()
    out, _ = model(x, None)
    loss = criterion(out.view(-1, 300), y.reshape(-1))
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, 0.25)
    for p in params:  # expect: params_not_in_optimizer
        p.data.add_(p.grad, alpha=-lr)

# expect-detail: params_not_in_optimizer: model.decoder
