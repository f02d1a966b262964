import torch
import torch.nn as nn


class ScaledProjection(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.proj = nn.Parameter(torch.empty(d_out, d_in))
        self.gain = nn.Parameter(torch.ones(d_out))
        self.proj.data.uniform_(-0.1, 0.1)   # set up outside forward: the parameter itself

    def forward(self, h):
        return (h @ self.proj.data.T) * self.gain  # expect: graph_cut=True


encoder = nn.Sequential(nn.Linear(12, 24), nn.GELU())
head = ScaledProjection(24, 4)
params = list(encoder.parameters()) + list(head.parameters())
optimizer = torch.optim.SGD(params, lr=0.05)
inputs = torch.randn(128, 12)
targets = torch.randn(128, 4)
for epoch in range(30):
    optimizer.zero_grad()
    out = head(encoder(inputs))
    loss = ((out - targets) ** 2).mean()
    loss.backward()
    optimizer.step()

# expect-detail: graph_cut: `self.proj.data`
