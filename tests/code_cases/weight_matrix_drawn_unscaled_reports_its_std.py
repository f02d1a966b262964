import torch
import torch.nn as nn

HIDDEN = 48


class TwoLayer(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.w_in = nn.Parameter(torch.randn(HIDDEN, d_in))  # expect: init_weight_std=1.0
        self.gain = nn.Parameter(torch.randn(d_in, 1) * 2.0)
        self.w_out = nn.Parameter(torch.randn(d_out, HIDDEN) / 8)
        self.token_emb_table = nn.Parameter(torch.randn(100, d_in) * 3.0)

    def forward(self, x):
        h = torch.tanh((x * self.gain.T) @ self.w_in.T)
        return h @ self.w_out.T


model = TwoLayer(20, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
xs, ys = torch.randn(300, 20), torch.randn(300, 2)
for _ in range(40):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(xs), ys)
    loss.backward()
    opt.step()

# expect-detail: init_weight_std: self.w_in (48 x 20)
