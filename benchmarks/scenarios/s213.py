# Learning-to-learn meta optimizer (coordinatewise LayerNorm-LSTM) trained to minimise random
# quadratic functions f(theta) = ||W theta - y||^2; meta-loss = sum of f over the unroll
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(42)
torch.set_num_threads(1)

class LayerNormLSTMCell(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.ih = nn.Linear(input_size, 4 * hidden_size)
        self.hh = nn.Linear(hidden_size, 4 * hidden_size)
        self.ln = nn.LayerNorm(4 * hidden_size)
    def forward(self, x, state):
        hx, cx = state
        gates = self.ln(self.ih(x) + self.hh(hx))
        i, f, g, o = gates.chunk(4, 1)
        cy = torch.sigmoid(f) * cx + torch.sigmoid(i) * torch.tanh(g)
        hy = torch.sigmoid(o) * torch.tanh(cy)
        return hy, cy

class MetaOptimizer(nn.Module):
    def __init__(self, hidden_size=20, num_layers=2, preproc_factor=10.0):
        super().__init__()
        self.hidden_size = hidden_size
        self.linear1 = nn.Linear(2, hidden_size)
        self.lstms = []
        for i in range(num_layers):
            self.lstms.append(LayerNormLSTMCell(hidden_size, hidden_size))
        self.linear2 = nn.Linear(hidden_size, 1)
        self.linear2.weight.data.mul_(0.1)
        self.linear2.bias.data.fill_(0.0)
        self.preproc_factor = preproc_factor
    def reset_lstm(self, n):
        self.hx = [torch.zeros(n, self.hidden_size) for _ in self.lstms]
        self.cx = [torch.zeros(n, self.hidden_size) for _ in self.lstms]
    def forward(self, g):
        # gradient preprocessing (log-magnitude, sign)
        p = self.preproc_factor
        a = torch.clamp(torch.log(g.abs() + 1e-8) / p, min=-1.0)
        b = torch.clamp(g * torch.exp(torch.tensor(p)), -1.0, 1.0)
        x = torch.tanh(self.linear1(torch.stack([a, b], 1)))
        for i, lstm in enumerate(self.lstms):
            self.hx[i], self.cx[i] = lstm(x, (self.hx[i], self.cx[i]))
            x = self.hx[i]
        return self.linear2(x).squeeze(1)

def sample_quadratics(n, d=10):
    W = torch.randn(n, d, d)
    y = torch.randn(n, d)
    return W, y

def f(W, y, theta):
    return ((torch.bmm(W, theta.unsqueeze(2)).squeeze(2) - y) ** 2).sum(1)

meta = MetaOptimizer()
meta_opt = torch.optim.Adam(meta.parameters(), lr=1e-3)
n_funcs, d, unroll, optim_steps = 32, 10, 20, 100

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["epoch", "meta_loss", "final_f"])
    for epoch in range(150):
        W, y = sample_quadratics(n_funcs, d)
        theta = torch.zeros(n_funcs, d, requires_grad=True)
        meta.reset_lstm(n_funcs * d)
        total, final = 0.0, 0.0
        for k in range(optim_steps // unroll):
            meta_loss = 0.0
            for j in range(unroll):
                loss = f(W, y, theta).sum()
                grad, = torch.autograd.grad(loss, theta, create_graph=False)
                update = meta(grad.detach().view(-1)).view(n_funcs, d)
                theta = theta + update
                meta_loss = meta_loss + f(W, y, theta).mean()
            meta_opt.zero_grad()
            meta_loss.backward()
            meta_opt.step()
            total += meta_loss.item()
            final = f(W, y, theta).mean().item()
            theta = theta.detach().requires_grad_(True)
            meta.hx = [h.detach() for h in meta.hx]
            meta.cx = [c.detach() for c in meta.cx]
        w.writerow([epoch, f"{total / (optim_steps):.4f}", f"{final:.4f}"])
        fh.flush()
        if epoch % 10 == 0:
            print(f"Epoch: {epoch}, average final loss: {final:.4f}, meta loss {total / optim_steps:.4f}")
