# zackchase/mxnet-the-straight-dope "Dropout regularization from scratch" (chapter03,
# mlp-dropout-scratch) in miniature, ported from mxnet.nd to torch tensors: hand-made parameters
# W1 (784x256), W2 (256x128), W3 (128x10) and biases drawn as random_normal * .01, relu, a
# dropout(X, drop_probability) function with inverted scaling, net(X, drop_prob=0.0) applying it
# after both hidden layers, softmax_cross_entropy summed over classes per example, hand-written
# SGD(params, lr) on the summed batch loss with learning_rate .001, batch_size 64, 10 epochs,
# training with net(data, drop_prob=.5), a moving average of the loss and evaluate_accuracy()
# on the training and test sets after every epoch ("Epoch %s. Loss: %s, Train_acc %s, Test_acc %s").
# 10 classes of synthetic 28 x 28 "digit" images (16000 training, 1000 test) stand in for MNIST.
import csv
import numpy as np
import torch

np.random.seed(1); torch.manual_seed(1); torch.set_num_threads(1)

# ---- synthetic MNIST-like data: stroke templates per class, random shifts, thickness and noise
def make_templates():
    t = np.zeros((10, 28, 28), np.float32)
    for k in range(10):
        for _ in range(5):
            r0, c0 = np.random.randint(6, 22, 2); r1, c1 = np.random.randint(6, 22, 2)
            for a in np.linspace(0, 1, 40):
                r, c = int(r0 + a * (r1 - r0)), int(c0 + a * (c1 - c0)); t[k, r - 2:r + 2, c - 2:c + 2] = 1.0
    return t
templates = make_templates()
def make_set(n):
    X = np.zeros((n, 28, 28), np.float32); y = np.random.randint(0, 10, n)
    for i in range(n):
        dr, dc = np.random.randint(-3, 4, 2)
        img = np.roll(np.roll(templates[y[i]], dr, 0), dc, 1) * np.random.uniform(0.8, 1.0)
        other = np.roll(templates[np.random.randint(10)], np.random.randint(-6, 7), 1) * np.random.uniform(0.0, 0.8)
        X[i] = np.clip(img + other + (np.random.rand(28, 28) < 0.12) * np.random.rand(28, 28).astype(np.float32), 0, 1)
    return torch.tensor(X.reshape(n, 784)), torch.tensor(y)
X_train, y_train = make_set(16000)
X_test, y_test = make_set(1000)
batch_size = 64
def train_data():
    perm = torch.randperm(len(X_train))
    for b in range(0, len(perm), batch_size):
        idx = perm[b:b + batch_size]; yield X_train[idx], y_train[idx]
def test_data():
    for b in range(0, len(X_test), batch_size):
        yield X_test[b:b + batch_size], y_test[b:b + batch_size]
def train_eval_data():
    for b in range(0, len(X_train), batch_size):
        yield X_train[b:b + batch_size], y_train[b:b + batch_size]

W1 = torch.randn(784, 256) * .01; b1 = torch.randn(256) * .01
W2 = torch.randn(256, 128) * .01; b2 = torch.randn(128) * .01
W3 = torch.randn(128, 10) * .01; b3 = torch.randn(10) * .01
params = [W1, b1, W2, b2, W3, b3]
for param in params:
    param.requires_grad_(True)

def relu(X):
    return torch.clamp(X, min=0)

def dropout(X, drop_probability):
    keep_probability = 1 - drop_probability
    mask = (torch.rand(X.shape) < keep_probability).float()
    if keep_probability > 0.0:
        scale = (1 / keep_probability)
    else:
        scale = 0.0
    return mask * X * scale

def softmax_cross_entropy(yhat_linear, y):
    return -torch.sum(y * torch.log_softmax(yhat_linear, dim=1), dim=1)

def net(X, drop_prob=0.0):
    h1 = relu(X @ W1 + b1)
    h1 = dropout(h1, drop_prob)
    h2 = relu(h1 @ W2 + b2)
    h2 = dropout(h2, drop_prob)
    yhat_linear = h2 @ W3 + b3
    return yhat_linear

def SGD(params, lr):
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad
            param.grad = None

def evaluate_accuracy(data_iterator, net):
    numerator = 0.; denominator = 0.
    with torch.no_grad():
        for data, label in data_iterator:
            output = net(data)
            predictions = torch.argmax(output, dim=1)
            numerator += (predictions == label).sum().item()
            denominator += data.shape[0]
    return numerator / denominator

f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'step', 'moving_loss', 'train_acc', 'test_acc'])
epochs = 10
moving_loss = 0.
learning_rate = .001
step = 0
for e in range(epochs):
    for i, (data, label) in enumerate(train_data()):
        label_one_hot = torch.nn.functional.one_hot(label, 10).float()
        output = net(data, drop_prob=.5)
        loss = softmax_cross_entropy(output, label_one_hot)
        loss.sum().backward()
        SGD(params, learning_rate)
        step += 1
        if i == 0:
            moving_loss = loss.mean().item()
        else:
            moving_loss = .99 * moving_loss + .01 * loss.mean().item()
        if step % 20 == 0:
            wr.writerow([e, step, moving_loss, '', ''])
    test_accuracy = evaluate_accuracy(test_data(), net)
    train_accuracy = evaluate_accuracy(train_eval_data(), net)
    print("Epoch %s. Loss: %s, Train_acc %s, Test_acc %s" % (e, moving_loss, train_accuracy, test_accuracy), flush=True)
    wr.writerow([e, step, moving_loss, train_accuracy, test_accuracy]); f.flush()
