# DeepLearning.AI community thread "Mini-batch gradient descent decreasing" (DLS course 2) in miniature: the
# course's "Optimization Methods" programming assignment, whose model() trains a 3-layer network
# (layers_dims = [2, 5, 2, 1], ReLU, ReLU, sigmoid, He-scaled initialisation) on the "moons" data set
# (sklearn make_moons, 300 points, noise .2) with mini-batch gradient descent: random_mini_batches(X, Y,
# mini_batch_size=64, seed) reshuffled every epoch (seed = seed + 1), the cross-entropy cost summed over a mini-batch
# (compute_cost) and averaged over the epoch (cost_avg = cost_total / m), the Adam update of the assignment
# (learning_rate 0.0007, beta1 0.9, beta2 0.999, epsilon 1e-8, bias correction with t counted in mini-batches),
# 5000 epochs, "Cost after epoch %i: %f" every 1000 epochs and the cost recorded every 100 epochs, then
# "Accuracy: ..." from predict(). Written in NumPy as the assignment is; make_moons is re-implemented (sklearn is not
# installed) with the same construction (two interleaved half circles, gaussian noise 0.2); metrics.csv has the cost
# of every mini-batch (what the lecture's J{t} plot shows), the epoch average and the training accuracy every 100
# epochs.
import csv
import math

import numpy as np
import torch

torch.set_num_threads(1)
np.random.seed(3)


def make_moons(n_samples=300, noise=.2, seed=3):
    r = np.random.RandomState(seed)
    n_out = n_samples // 2
    n_in = n_samples - n_out
    outer_x, outer_y = np.cos(np.linspace(0, np.pi, n_out)), np.sin(np.linspace(0, np.pi, n_out))
    inner_x, inner_y = 1 - np.cos(np.linspace(0, np.pi, n_in)), 1 - np.sin(np.linspace(0, np.pi, n_in)) - .5
    X = np.vstack([np.append(outer_x, inner_x), np.append(outer_y, inner_y)]).T
    y = np.hstack([np.zeros(n_out, dtype=np.intp), np.ones(n_in, dtype=np.intp)])
    idx = r.permutation(n_samples)
    X, y = X[idx], y[idx]
    X += r.normal(scale=noise, size=X.shape)
    return X, y


train_X, train_Y = make_moons(n_samples=300, noise=.2)
train_X = train_X.T
train_Y = train_Y.reshape((1, train_Y.shape[0]))


def initialize_parameters(layer_dims):
    np.random.seed(3)
    parameters = {}
    for l in range(1, len(layer_dims)):
        parameters['W' + str(l)] = np.random.randn(layer_dims[l], layer_dims[l - 1]) * np.sqrt(2 / layer_dims[l - 1])
        parameters['b' + str(l)] = np.zeros((layer_dims[l], 1))
    return parameters


def forward_propagation(X, parameters):
    W1, b1, W2, b2, W3, b3 = (parameters[k] for k in ('W1', 'b1', 'W2', 'b2', 'W3', 'b3'))
    z1 = W1 @ X + b1
    a1 = np.maximum(0, z1)
    z2 = W2 @ a1 + b2
    a2 = np.maximum(0, z2)
    z3 = W3 @ a2 + b3
    a3 = 1 / (1 + np.exp(-z3))
    return a3, (z1, a1, W1, b1, z2, a2, W2, b2, z3, a3, W3, b3)


def backward_propagation(X, Y, cache):
    m = X.shape[1]
    (z1, a1, W1, b1, z2, a2, W2, b2, z3, a3, W3, b3) = cache
    dz3 = 1. / m * (a3 - Y)
    dW3 = dz3 @ a2.T
    db3 = np.sum(dz3, axis=1, keepdims=True)
    da2 = W3.T @ dz3
    dz2 = da2 * (a2 > 0)
    dW2 = dz2 @ a1.T
    db2 = np.sum(dz2, axis=1, keepdims=True)
    da1 = W2.T @ dz2
    dz1 = da1 * (a1 > 0)
    dW1 = dz1 @ X.T
    db1 = np.sum(dz1, axis=1, keepdims=True)
    return {'dW1': dW1, 'db1': db1, 'dW2': dW2, 'db2': db2, 'dW3': dW3, 'db3': db3}


def compute_cost(a3, Y):
    logprobs = np.multiply(-np.log(a3), Y) + np.multiply(-np.log(1 - a3), 1 - Y)
    return np.sum(logprobs)


def random_mini_batches(X, Y, mini_batch_size=64, seed=0):
    np.random.seed(seed)
    m = X.shape[1]
    permutation = list(np.random.permutation(m))
    shuffled_X = X[:, permutation]
    shuffled_Y = Y[:, permutation].reshape((1, m))
    mini_batches = []
    num_complete = math.floor(m / mini_batch_size)
    for k in range(num_complete):
        mini_batches.append((shuffled_X[:, k * mini_batch_size:(k + 1) * mini_batch_size],
                             shuffled_Y[:, k * mini_batch_size:(k + 1) * mini_batch_size]))
    if m % mini_batch_size != 0:
        mini_batches.append((shuffled_X[:, num_complete * mini_batch_size:],
                             shuffled_Y[:, num_complete * mini_batch_size:]))
    return mini_batches


def initialize_adam(parameters):
    L = len(parameters) // 2
    v, s = {}, {}
    for l in range(1, L + 1):
        for p in ('W', 'b'):
            v['d' + p + str(l)] = np.zeros_like(parameters[p + str(l)])
            s['d' + p + str(l)] = np.zeros_like(parameters[p + str(l)])
    return v, s


def update_parameters_with_adam(parameters, grads, v, s, t, learning_rate=0.01, beta1=0.9, beta2=0.999,
                                epsilon=1e-8):
    L = len(parameters) // 2
    for l in range(1, L + 1):
        for p in ('W', 'b'):
            k = 'd' + p + str(l)
            v[k] = beta1 * v[k] + (1 - beta1) * grads[k]
            v_corrected = v[k] / (1 - beta1 ** t)
            s[k] = beta2 * s[k] + (1 - beta2) * grads[k] ** 2
            s_corrected = s[k] / (1 - beta2 ** t)
            parameters[p + str(l)] -= learning_rate * v_corrected / (np.sqrt(s_corrected) + epsilon)
    return parameters, v, s


def predict(X, y, parameters):
    a3, _ = forward_propagation(X, parameters)
    return np.mean((a3 > 0.5) == y)


def model(X, Y, layers_dims, optimizer, learning_rate=0.0007, mini_batch_size=64, beta=0.9, beta1=0.9,
          beta2=0.999, epsilon=1e-8, num_epochs=5000, print_cost=True):
    costs = []
    t = 0
    seed = 10
    m = X.shape[1]
    parameters = initialize_parameters(layers_dims)
    v, s = initialize_adam(parameters)
    f = open('metrics.csv', 'w', newline='')
    wr = csv.writer(f)
    wr.writerow(['epoch', 'minibatch', 'iteration', 'minibatch_cost', 'epoch_cost', 'train_accuracy'])
    for i in range(num_epochs):
        seed = seed + 1
        minibatches = random_mini_batches(X, Y, mini_batch_size, seed)
        cost_total = 0
        for j, minibatch in enumerate(minibatches):
            (minibatch_X, minibatch_Y) = minibatch
            a3, caches = forward_propagation(minibatch_X, parameters)
            c = compute_cost(a3, minibatch_Y)
            cost_total += c
            grads = backward_propagation(minibatch_X, minibatch_Y, caches)
            t = t + 1
            parameters, v, s = update_parameters_with_adam(parameters, grads, v, s, t, learning_rate, beta1,
                                                           beta2, epsilon)
            wr.writerow([i, j, t, '%.6f' % (c / minibatch_X.shape[1]), '', ''])
        cost_avg = cost_total / m
        if print_cost and i % 1000 == 0:
            print('Cost after epoch %i: %f' % (i, cost_avg))
        if print_cost and i % 100 == 0:
            costs.append(cost_avg)
            wr.writerow([i, '', t, '', '%.6f' % cost_avg, '%.4f' % predict(X, Y, parameters)])
    f.close()
    return parameters


layers_dims = [train_X.shape[0], 5, 2, 1]
parameters = model(train_X, train_Y, layers_dims, optimizer='adam')
print('Accuracy: ' + str(predict(train_X, train_Y, parameters)))
