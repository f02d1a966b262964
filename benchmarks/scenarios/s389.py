"""network.py (Nielsen-style, numpy) with the sigmoid swapped for a ReLU.

Synthetic 8x8 "digits": 10 class templates of strokes, jittered by a one-pixel shift,
per-pixel noise and brightness. 3000 training images, 1000 validation images.
Network [64, 30, 10], quadratic cost, mini-batch SGD (batch 10, eta 3.0), weights ~ N(0, 1)
as in the book's default initializer.
"""
import random
import numpy as np

np.random.seed(1)
random.seed(1)

def make_templates():
    t = np.zeros((10, 8, 8))
    rng = np.random.RandomState(7)
    for c in range(10):
        for _ in range(3):
            if rng.rand() < 0.5:
                r = rng.randint(0, 8); a, b = sorted(rng.randint(0, 8, 2)); t[c, r, a:b + 1] = 1
            else:
                col = rng.randint(0, 8); a, b = sorted(rng.randint(0, 8, 2)); t[c, a:b + 1, col] = 1
    return t

T = make_templates()

def sample(n):
    xs, ys = [], []
    for _ in range(n):
        c = np.random.randint(10)
        img = np.roll(T[c], np.random.randint(-1, 2), axis=np.random.randint(2))
        img = img * np.random.uniform(0.7, 1.0) + np.random.normal(0, 0.15, (8, 8))
        xs.append(np.clip(img, 0, 1).reshape(64, 1)); ys.append(c)
    return xs, ys

def vectorized_result(j):
    e = np.zeros((10, 1)); e[j] = 1.0; return e

tx, ty = sample(3000)
training_data = [(x, vectorized_result(y)) for x, y in zip(tx, ty)]
vx, vy = sample(1000)
test_data = list(zip(vx, vy))

def sigmoid(z):
    # return 1.0 / (1.0 + np.exp(-z))
    return z * (z > 0)

def sigmoid_prime(z):
    # return sigmoid(z) * (1 - sigmoid(z))
    return 1.0 * (z > 0)

class Network(object):
    def __init__(self, sizes):
        self.num_layers = len(sizes)
        self.sizes = sizes
        self.biases = [np.random.randn(y, 1) for y in sizes[1:]]
        self.weights = [np.random.randn(y, x) for x, y in zip(sizes[:-1], sizes[1:])]

    def feedforward(self, a):
        for b, w in zip(self.biases, self.weights):
            a = sigmoid(np.dot(w, a) + b)
        return a

    def SGD(self, training_data, epochs, mini_batch_size, eta, test_data=None):
        n = len(training_data)
        for j in range(epochs):
            random.shuffle(training_data)
            mini_batches = [training_data[k:k + mini_batch_size] for k in range(0, n, mini_batch_size)]
            for mini_batch in mini_batches:
                self.update_mini_batch(mini_batch, eta)
            if test_data:
                correct = self.evaluate(test_data)
                cost = self.total_cost(training_data[:1000])
                dead = self.dead_fraction(training_data[:500])
                print("Epoch {0}: {1} / {2}, Accuracy score: {3}   (train cost {4:.4f}, "
                      "hidden units never active: {5:.2f})".format(
                          j, correct, len(test_data), correct / len(test_data), cost, dead))
            else:
                print("Epoch {0} complete".format(j))

    def update_mini_batch(self, mini_batch, eta):
        X = np.hstack([x for x, y in mini_batch]); Y = np.hstack([y for x, y in mini_batch])
        nabla_b, nabla_w = self.backprop(X, Y)
        m = len(mini_batch)
        self.weights = [w - (eta / m) * nw for w, nw in zip(self.weights, nabla_w)]
        self.biases = [b - (eta / m) * nb.sum(1, keepdims=True) for b, nb in zip(self.biases, nabla_b)]

    def backprop(self, x, y):
        activation = x; activations = [x]; zs = []
        for b, w in zip(self.biases, self.weights):
            z = np.dot(w, activation) + b; zs.append(z)
            activation = sigmoid(z); activations.append(activation)
        delta = self.cost_derivative(activations[-1], y) * sigmoid_prime(zs[-1])
        nabla_b = [None] * len(self.biases); nabla_w = [None] * len(self.weights)
        nabla_b[-1] = delta; nabla_w[-1] = np.dot(delta, activations[-2].T)
        for l in range(2, self.num_layers):
            delta = np.dot(self.weights[-l + 1].T, delta) * sigmoid_prime(zs[-l])
            nabla_b[-l] = delta; nabla_w[-l] = np.dot(delta, activations[-l - 1].T)
        return nabla_b, nabla_w

    def evaluate(self, test_data):
        test_results = [(np.argmax(self.feedforward(x)), y) for (x, y) in test_data]
        return sum(int(x == y) for (x, y) in test_results)

    def total_cost(self, data):
        return float(np.mean([0.5 * np.sum((self.feedforward(x) - y) ** 2) for x, y in data]))

    def dead_fraction(self, data):
        X = np.hstack([x for x, y in data])
        h = sigmoid(np.dot(self.weights[0], X) + self.biases[0])
        return float(np.mean(h.max(1) <= 0))

    def cost_derivative(self, output_activations, y):
        return output_activations - y

net = Network([64, 30, 10])
net.SGD(training_data, 10, 10, 3.0, test_data=test_data)
