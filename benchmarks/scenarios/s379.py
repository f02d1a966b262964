"""Flux.jl custom network in miniature (after a "Softmax stucks the network" report).

custom_net(input=2, hidden=2, output=1): linear1 (2->2) -> sigmoid -> linear2
(2->1) -> softmax, trained with mean squared error and ADAM() (lr 1e-3) on
dummy 2-d data (1000 training points in batches of 10, 100 test points,
target 1 when the point lies above a line, else 0), 10 epochs.  A callback
prints the test loss, throttled as in Flux's train!, and "[ Info: Epoch N"
is printed at the start of each epoch as by @Flux.epochs.  The softmax is
taken over the single output unit.
"""
import numpy as np
import torch

torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)
rng = np.random.RandomState(1546)
torch.manual_seed(1546)


def dummy_data_micronet(n_train, n_test):
    X = rng.uniform(-1, 1, (n_train + n_test, 2))
    y = (X[:, 1] > 0.5 * X[:, 0] + 0.1).astype(np.float64).reshape(-1, 1)
    X, y = torch.from_numpy(X), torch.from_numpy(y)
    data = [(X[i:i + 10], y[i:i + 10]) for i in range(0, n_train, 10)]
    return data, X[n_train:], y[n_train:]


class linear(torch.nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.W = torch.nn.Parameter(torch.randn(o, i) * np.sqrt(2.0 / (i + o)))
        self.b = torch.nn.Parameter(torch.zeros(o))

    def forward(self, x):
        return x @ self.W.T + self.b


def custom_net(inp, hidden, out):
    linear1 = linear(inp, hidden)
    linear2 = linear(hidden, out)
    ps = list(linear1.parameters()) + list(linear2.parameters())

    def model(x):
        return torch.softmax(linear2(torch.sigmoid(linear1(x))), dim=1)
    return model, ps


m, ps = custom_net(2, 2, 1)
data, xtest, ytest = dummy_data_micronet(1000, 100)


def loss(x, y):
    return torch.mean((m(x) - y) ** 2)


opt = torch.optim.Adam(ps, lr=1e-3)
for epoch in range(1, 11):
    print("[ Info: Epoch %d" % epoch)
    for i, (x, y) in enumerate(data):
        opt.zero_grad()
        l = loss(x, y)
        l.backward()
        opt.step()
        if i % 100 == 0:   # throttled callback
            with torch.no_grad():
                print("loss : %r" % loss(xtest, ytest).item())
with torch.no_grad():
    print("predictions on 5 test points:", m(xtest[:5]).flatten().tolist())
    print("gradient norm of linear1.W at the last step:", float(ps[0].grad.norm()))
