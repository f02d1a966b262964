# MLP on flattened 28x28 digit images, plain minibatch SGD, hand-rolled like the JAX example
import csv
import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)


def random_layer_params(m, n, scale=1e-2):
    return torch.randn(n, m) * scale, torch.randn(n) * scale


def init_network_params(sizes):
    return [random_layer_params(m, n) for m, n in zip(sizes[:-1], sizes[1:])]


layer_sizes = [784, 512, 512, 10]
step_size = 40.0
num_epochs = 4
batch_size = 128
n_targets = 10

params = [(w.requires_grad_(), b.requires_grad_()) for w, b in init_network_params(layer_sizes)]


def predict(params, image):
    activations = image
    for w, b in params[:-1]:
        activations = torch.relu(activations @ w.T + b)
    final_w, final_b = params[-1]
    logits = activations @ final_w.T + final_b
    return logits - torch.logsumexp(logits, dim=1, keepdim=True)


def loss_fn(params, images, targets):
    preds = predict(params, images)
    return -torch.mean(preds * targets)


def accuracy(params, images, labels):
    return (predict(params, images).argmax(1) == labels).float().mean().item()


# synthetic "digits": 10 prototype strokes + pixel noise, pixel values 0..255 scaled to 0..1
g = torch.Generator().manual_seed(1)
protos = (torch.rand(10, 784, generator=g) > 0.8).float()
def make(n):
    lab = torch.randint(0, 10, (n,), generator=g)
    img = (protos[lab] * 0.9 + torch.rand(n, 784, generator=g) * 0.35).clamp(0, 1)
    return img, lab
train_images, train_labels = make(12000)
test_images, test_labels = make(2000)
train_targets = F.one_hot(train_labels, n_targets).float()

log = open("metrics.csv", "w", newline="")
w = csv.writer(log)
w.writerow(["step", "epoch", "train_loss", "train_acc", "test_acc", "lr"])
step = 0
for epoch in range(num_epochs):
    perm = torch.randperm(len(train_images))
    for i in range(0, len(perm), batch_size):
        idx = perm[i:i + batch_size]
        loss = loss_fn(params, train_images[idx], train_targets[idx])
        grads = torch.autograd.grad(loss, [p for layer in params for p in layer])
        with torch.no_grad():
            flat = [p for layer in params for p in layer]
            for p, dp in zip(flat, grads):
                p -= step_size * dp
        step += 1
        if step % 5 == 0:
            with torch.no_grad():
                w.writerow([step, epoch, f"{loss.item():.5f}", f"{accuracy(params, train_images[:2000], train_labels[:2000]):.4f}",
                            f"{accuracy(params, test_images, test_labels):.4f}", step_size])
    with torch.no_grad():
        train_acc = accuracy(params, train_images, train_labels)
        test_acc = accuracy(params, test_images, test_labels)
    print("Epoch {} in {} steps".format(epoch, step))
    print("Training set accuracy {}".format(train_acc))
    print("Test set accuracy {}".format(test_acc))
    print("loss {}".format(loss.item()))
log.close()
