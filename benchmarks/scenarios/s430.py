# Cross Validated question "Interpreting cost change plot in a neural network for learning XOR" in
# miniature, ported to PyTorch tensors with a hand-written forward pass as in the post: the 4 XOR
# examples as a 4:2 input matrix, 1st layer a linear function with 2:2 weights and a 1:2 bias, 2nd layer
# a sigmoid on the 4:2 result, 3rd layer a linear function with 2:1 weights (and a bias), final layer a
# sigmoid on the 4:1 vector; MSE cost, plain full-batch gradient descent with learning rate 0.5 on
# weights drawn uniformly from [-0.3, 0.3), 120000 iterations, "Iteration i, cost: ..." every 2000
# iterations and the predictions at the end.
import csv
import numpy as np
import torch

np.random.seed(440558); torch.manual_seed(440558); torch.set_num_threads(1)
X = torch.tensor([[0., 0.], [0., 1.], [1., 0.], [1., 1.]]); Y = torch.tensor([[0.], [1.], [1.], [0.]])
W1 = ((torch.rand(2, 2) - 0.5) * 0.6).requires_grad_(); b1 = ((torch.rand(1, 2) - 0.5) * 0.6).requires_grad_()
W2 = ((torch.rand(2, 1) - 0.5) * 0.6).requires_grad_(); b2 = ((torch.rand(1, 1) - 0.5) * 0.6).requires_grad_()
lr = 0.5
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['iteration', 'cost'])
for i in range(120001):
    a1 = torch.sigmoid(X @ W1 + b1)
    out = torch.sigmoid(a1 @ W2 + b2)
    cost = ((out - Y) ** 2).mean()
    for p in (W1, b1, W2, b2): p.grad = None
    cost.backward()
    with torch.no_grad():
        for p in (W1, b1, W2, b2): p -= lr * p.grad
    if i % 2000 == 0:
        print('Iteration %d, cost: %.6f' % (i, cost.item()))
        wr.writerow([i, cost.item()])
print('Predictions:', [round(v, 4) for v in out.detach().view(-1).tolist()], 'targets:', Y.view(-1).tolist())
