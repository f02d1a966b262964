# deeplearning.ai Deep Learning Specialization, Course 2 week 1 "Regularization" programming assignment
# in miniature, ported from numpy to PyTorch: the French-football dataset stand-in (2-D positions
# where the goalkeeper kicked the ball, blue/red = which team's player headed it; 211 training and
# 200 test points around the same boundary, the training sample happening to hold more points on the
# wrong side of it: jitter 0.15 vs 0.05), the 3-layer model LINEAR->RELU->LINEAR->RELU->LINEAR->SIGMOID
# with layers_dims [2, 20, 3, 1], He-style scaled random init, full-batch gradient
# descent, learning_rate 0.3, 30000 iterations, dropout with keep_prob 0.86 on both hidden layers
# (inverted dropout), cross-entropy cost printed every 1000 iterations ("Cost after iteration i: ..."),
# then predict() without dropout on both sets: "On the train set: Accuracy: ..." / "On the test set: ...".
import csv
import numpy as np
import torch

np.random.seed(3); torch.manual_seed(3); torch.set_num_threads(1)
def make(n, noise):
    x = np.random.uniform(-0.75, 0.45, (n, 2))
    boundary = 0.25 * np.sin(4.0 * x[:, 0]) - 0.1
    y = (x[:, 1] > boundary + noise * np.random.randn(n)).astype(np.float64)
    return torch.tensor(x.T), torch.tensor(y[None, :])
train_X, train_Y = make(211, 0.15); test_X, test_Y = make(200, 0.05)
layers_dims = [2, 20, 3, 1]
params = {}
for l in range(1, 4):
    params['W%d' % l] = (torch.randn(layers_dims[l], layers_dims[l - 1], dtype=torch.float64) / np.sqrt(layers_dims[l - 1])).requires_grad_()
    params['b%d' % l] = torch.zeros(layers_dims[l], 1, dtype=torch.float64, requires_grad=True)
def forward(X, keep_prob):
    A1 = torch.relu(params['W1'] @ X + params['b1'])
    if keep_prob < 1: A1 = A1 * (torch.rand_like(A1) < keep_prob) / keep_prob
    A2 = torch.relu(params['W2'] @ A1 + params['b2'])
    if keep_prob < 1: A2 = A2 * (torch.rand_like(A2) < keep_prob) / keep_prob
    return torch.sigmoid(params['W3'] @ A2 + params['b3'])
def compute_cost(A3, Y):
    A3 = A3.clamp(1e-12, 1 - 1e-12)
    return -(Y * torch.log(A3) + (1 - Y) * torch.log(1 - A3)).mean()
learning_rate, keep_prob = 0.3, 0.86
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['iteration', 'cost', 'train_acc', 'test_acc'])
for i in range(30000):
    cost = compute_cost(forward(train_X, keep_prob), train_Y)
    for p in params.values(): p.grad = None
    cost.backward()
    with torch.no_grad():
        for p in params.values(): p -= learning_rate * p.grad
    if i % 1000 == 0:
        with torch.no_grad():
            tr = ((forward(train_X, 1.0) > 0.5).double() == train_Y).double().mean().item()
            te = ((forward(test_X, 1.0) > 0.5).double() == test_Y).double().mean().item()
        print('Cost after iteration {}: {}'.format(i, cost.item()))
        wr.writerow([i, cost.item(), tr, te])
with torch.no_grad():
    print('On the train set:'); print('Accuracy: ' + str(((forward(train_X, 1.0) > 0.5).double() == train_Y).double().mean().item()))
    print('On the test set:'); print('Accuracy: ' + str(((forward(test_X, 1.0) > 0.5).double() == test_Y).double().mean().item()))
