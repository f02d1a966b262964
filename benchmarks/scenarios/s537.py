# jax-ml/jax docs notebook "Training a Simple Neural Network, with PyTorch Data Loading" as it stood before pull request
# 3113, in miniature and ported from jax.numpy to torch: the MLP layer_sizes = [784, 512, 512, 10] initialised by
# random_layer_params (scale 1e-2 normal weights and biases), predict() returning logits - logsumexp(logits), the
# loss "return -np.sum(preds * targets)" over the one-hot targets, and the hand-written SGD update
# "(w - step_size * dw, b - step_size * db)" with step_size = 0.0001; the images are the raw flattened pixel values
# (FlattenAndCast, 0-255); after every epoch "Epoch {} in {:0.2f} sec", "Training set accuracy {}" and
# "Test set accuracy {}" are printed. The notebook used batch_size = 128; this run uses batch_size = 1024, the
# "larger batches" of the pull request. 12000 training and 1000 test synthetic 28 x 28 digit-like images (ten stroke
# templates with random shifts, thickness, intensity and noise) replace MNIST, 8 epochs as in the notebook.
# metrics.csv has the loss (the summed batch loss and the same per example), the global gradient norm and the
# accuracies.
import csv, math, time
import numpy as np
import torch

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)

# ---- synthetic stand-in for MNIST (raw 0-255 pixels, as FlattenAndCast gives) ----
rs = np.random.RandomState(0)
SEGS = {0: [(6, 8, 6, 20), (6, 20, 22, 20), (22, 20, 22, 8), (22, 8, 6, 8)], 1: [(5, 14, 23, 14)],
        2: [(6, 8, 6, 20), (6, 20, 14, 20), (14, 20, 14, 8), (14, 8, 22, 8), (22, 8, 22, 20)],
        3: [(6, 8, 6, 20), (14, 10, 14, 20), (22, 8, 22, 20), (6, 20, 22, 20)],
        4: [(5, 8, 14, 8), (14, 8, 14, 20), (5, 18, 23, 18)],
        5: [(6, 20, 6, 8), (6, 8, 14, 8), (14, 8, 14, 20), (14, 20, 22, 20), (22, 20, 22, 8)],
        6: [(6, 18, 6, 8), (6, 8, 22, 8), (22, 8, 22, 20), (22, 20, 14, 20), (14, 20, 14, 8)],
        7: [(6, 7, 6, 21), (6, 21, 23, 11)], 8: [(6, 8, 6, 20), (6, 20, 22, 20), (22, 20, 22, 8), (22, 8, 6, 8),
                                                  (14, 8, 14, 20)],
        9: [(14, 20, 14, 8), (14, 8, 6, 8), (6, 8, 6, 20), (6, 20, 23, 20)]}
yy, xx = np.mgrid[0:28, 0:28].astype(np.float32)


def draw(c):
    img = np.zeros((28, 28), np.float32)
    dy, dx = rs.uniform(-2.5, 2.5, 2); th = rs.uniform(1.0, 2.0); sc = rs.uniform(0.85, 1.1)
    for (y0, x0, y1, x1) in SEGS[c]:
        y0, y1 = 14 + (y0 - 14) * sc + dy, 14 + (y1 - 14) * sc + dy
        x0, x1 = 14 + (x0 - 14) * sc + dx, 14 + (x1 - 14) * sc + dx
        t = np.clip(((yy - y0) * (y1 - y0) + (xx - x0) * (x1 - x0)) / max((y1 - y0) ** 2 + (x1 - x0) ** 2, 1e-6), 0, 1)
        d = np.sqrt((yy - y0 - t * (y1 - y0)) ** 2 + (xx - x0 - t * (x1 - x0)) ** 2)
        img = np.maximum(img, np.clip(th + 0.5 - d, 0, 1))
    img = img * rs.uniform(180, 255) + rs.uniform(0, 30, (28, 28)) * (rs.uniform(size=(28, 28)) < 0.05)
    return np.clip(img, 0, 255).astype(np.uint8)


def make(n):
    ys = rs.randint(0, 10, n)
    return np.stack([draw(int(c)) for c in ys]).reshape(n, -1).astype(np.float32), ys


# ---- hyperparameters (the notebook's cell) ----
def random_layer_params(m, n, scale=1e-2):
    return scale * torch.randn(n, m), scale * torch.randn(n)


def init_network_params(sizes):
    return [random_layer_params(m, n) for m, n in zip(sizes[:-1], sizes[1:])]


layer_sizes = [784, 512, 512, 10]
param_scale = 0.1
step_size = 0.0001
num_epochs = 8
batch_size = 1024
n_targets = 10
params = init_network_params(layer_sizes)


def batched_predict(params, images):
    activations = images
    for w, b in params[:-1]:
        outputs = activations @ w.T + b
        activations = torch.clamp(outputs, min=0)
    final_w, final_b = params[-1]
    logits = activations @ final_w.T + final_b
    return logits - torch.logsumexp(logits, dim=1, keepdim=True)


def one_hot(x, k):
    return (torch.as_tensor(x)[:, None] == torch.arange(k)).float()


def accuracy(params, images, targets):
    target_class = torch.argmax(targets, dim=1)
    with torch.no_grad():
        predicted_class = torch.argmax(batched_predict(params, images), dim=1)
    return torch.mean((predicted_class == target_class).float()).item()


def loss(params, images, targets):
    preds = batched_predict(params, images)
    return -torch.sum(preds * targets)


def update(params, x, y):
    flat = [t.requires_grad_(True) for wb in params for t in wb]
    l = loss(params, x, y)
    grads = torch.autograd.grad(l, flat)
    gnorm = math.sqrt(sum(float((g.double() ** 2).sum()) for g in grads))
    new = []
    with torch.no_grad():
        for i, (w, b) in enumerate(params):
            new.append((w - step_size * grads[2 * i], b - step_size * grads[2 * i + 1]))
    return [(w.detach(), b.detach()) for w, b in new], l.item(), gnorm


train_images_np, train_y = make(12000)
test_images_np, test_y = make(1000)
train_images = torch.from_numpy(train_images_np); train_labels = one_hot(train_y, n_targets)
test_images = torch.from_numpy(test_images_np); test_labels = one_hot(test_y, n_targets)

f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'step', 'loss_sum', 'loss_per_example', 'grad_norm', 'train_acc', 'test_acc'])
step = 0
for epoch in range(num_epochs):
    start_time = time.time()
    perm = torch.randperm(len(train_images))
    for i in range(0, len(train_images), batch_size):
        idx = perm[i:i + batch_size]
        x, y = train_images[idx], one_hot(train_y[idx.numpy()], n_targets)
        params, l, gn = update(params, x, y)
        step += 1
        wr.writerow([epoch, step, '%.6g' % l, '%.6g' % (l / len(idx)), '%.6g' % gn, '', ''])
    epoch_time = time.time() - start_time

    train_acc = accuracy(params, train_images, train_labels)
    test_acc = accuracy(params, test_images, test_labels)
    print("Epoch {} in {:0.2f} sec".format(epoch, epoch_time))
    print("Training set accuracy {}".format(train_acc))
    print("Test set accuracy {}".format(test_acc), flush=True)
    wr.writerow([epoch, step, '', '', '', round(train_acc, 5), round(test_acc, 5)])
    f.flush()
f.close()
