"""ocaml-torch optimisation test in miniature (after src/tests/optimization_tests.ml).

A var store collects the trainable variables of every layer created in it, and
an optimizer built from the var store is meant to update them.  Here the
optimizer is created first and the linear layer second, as in the modified
example: the optimizer only takes the variables that are in the store when it
is created.  Single training pair xs = ones [1; 2], ys = 10, squared error,
SGD lr 1e-3, 100 steps, each printing "--> loss".
"""
import torch

torch.set_num_threads(1)


class VarStore:
    """Minimal var store: layers register their parameters here."""

    def __init__(self, name):
        self.name = name
        self.variables = []

    def trainable_variables(self):
        return list(self.variables)


class Optimizer:
    """SGD over the var store's variables as they are when it is created."""

    def __init__(self, vs, learning_rate):
        self.params = vs.trainable_variables()
        self.learning_rate = learning_rate

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    def step(self):
        with torch.no_grad():
            for p in self.params:
                if p.grad is not None:
                    p -= self.learning_rate * p.grad


def linear(vs, input_dim, output_dim):
    layer = torch.nn.Linear(input_dim, output_dim)
    vs.variables.extend(layer.parameters())
    return layer


torch.manual_seed(42)
batch_size = 1
learning_rate = 1e-3
xs = 1.0 * torch.ones(batch_size, 2)
ys = torch.tensor(10.0)
vs = VarStore("neural-analysis")

# TWO LINES BELOW
optimizer = Optimizer(vs, learning_rate)   # (1)
lin = linear(vs, 2, 1)                     # (2)

for _ in range(100):
    optimizer.zero_grad()
    ys_ = lin(xs)
    loss = ((ys_ - ys) * (ys_ - ys)).sum()
    print("--> %f" % loss.item())
    loss.backward()
    optimizer.step()
