# dm-haiku issue "Zero Gradients after argmax" in miniature, ported from Haiku/JAX/optax to PyTorch:
# the minimal example's MLP (12 -> 64 -> 64 -> 2 Linear layers, uniform Xavier-style init with the
# posted constants, zero biases) on simulated 12-feature data with 2 classes, Adam 1e-3, batch 64.
# The loss is computed from the argmax of the logits (the predicted class) rather than from the
# logits themselves. jnp.argmax passes no gradient (jax.grad returns zeros); the PyTorch port
# writes the two-class argmax as torch.round(softmax(logits)[:, 1]), whose gradient is also zero
# everywhere, so the run trains silently with all-zero gradients instead of raising an error.
import csv, math
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(442); torch.manual_seed(442); torch.set_num_threads(1)
hidden_dim, input_shape, num_classes = 64, 12, 2
w_true = np.random.randn(input_shape)
X = np.random.randn(4096, input_shape).astype(np.float32)
y = (X @ w_true + 0.3 * np.random.randn(4096) > 0).astype(np.int64)
X, y = torch.tensor(X), torch.tensor(y)
Xte, yte = X[3584:], y[3584:]; X, y = X[:3584], y[:3584]

def uniform_(lin, c):
    nn.init.uniform_(lin.weight, -c, c); nn.init.constant_(lin.bias, 0.)
xc1 = math.sqrt(6 / (input_shape + 256)); xc2 = math.sqrt(6 / (256 + 256)); xc3 = math.sqrt(6 / (1 + 256))
mlp = nn.Sequential(nn.Linear(input_shape, hidden_dim), nn.Linear(hidden_dim, hidden_dim), nn.Linear(hidden_dim, num_classes))
for lin, c in zip([mlp[0], mlp[1], mlp[2]], [xc1, xc2, xc3]): uniform_(lin, c)
opt = torch.optim.Adam(mlp.parameters(), lr=1e-3)

def loss_fn(x, t):
    logits = mlp(x)
    pred = torch.round(F.softmax(logits, -1)[:, 1])      # == jnp.argmax(logits, -1) for 2 classes
    return ((pred - t.float()) ** 2).mean()

wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['epoch', 'loss', 'grad_norm', 'test_acc'])
for epoch in range(30):
    perm = torch.randperm(len(X)); tot = 0.0; gn = 0.0
    for i in range(0, len(X), 64):
        j = perm[i:i + 64]; loss = loss_fn(X[j], y[j])
        opt.zero_grad(); loss.backward()
        gn = math.sqrt(sum(float((p.grad ** 2).sum()) for p in mlp.parameters()))
        opt.step(); tot += loss.item() * len(j)
    with torch.no_grad(): acc = (mlp(Xte).argmax(-1) == yte).float().mean().item()
    print("epoch %d, loss: %.6f, grad norm: %.6f, test accuracy: %.4f" % (epoch, tot / len(X), gn, acc))
    if epoch == 0:
        print("grads (first layer, first row):", mlp[0].weight.grad[0, :6].tolist())
    wr.writerow([epoch, round(tot / len(X), 6), gn, round(acc, 4)])
