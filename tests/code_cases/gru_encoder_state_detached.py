import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 16)
        self.rnn = nn.GRU(16, 32, batch_first=True)

    def forward(self, src):
        _, h = self.rnn(self.emb(src))
        return h


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 16)
        self.rnn = nn.GRU(16, 32, batch_first=True)
        self.out = nn.Linear(32, 20)

    def forward(self, tok, h):
        o, h = self.rnn(self.emb(tok).unsqueeze(1), h)
        return self.out(o.squeeze(1)), h


class Seq2Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.decoder = Decoder()

    def forward(self, src, tgt):
        h = self.encoder(src).detach()  # expect: graph_cut=True
        outs = []
        for t in range(tgt.size(1)):
            logits, h = self.decoder(tgt[:, t], h)
            outs.append(logits)
        return torch.stack(outs, dim=1)


model = Seq2Seq()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
src, tgt = torch.randint(0, 20, (8, 5)), torch.randint(0, 20, (8, 5))
for step in range(3):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(src, tgt).reshape(-1, 20), tgt.reshape(-1))
    loss.backward()
    optimizer.step()

# expect-detail: graph_cut: cuts the graph between trainable layers
# (a GRU returns (output, h_n): its hidden state is one tensor, so detaching the encoder's final
# state cuts the encoder off the loss)
