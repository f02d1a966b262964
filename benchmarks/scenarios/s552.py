# phlippe/uvadlc_notebooks issue "[Question]Tutorial 3(Pytorch, JAX) Test accuracy for the model with sigmoid activation
# function" in miniature: the PyTorch training of UvA DL Tutorial 3 (Activation_Functions.ipynb) for the sigmoid model.
# BaseNetwork(act_fn=Sigmoid(), input_size=784, num_classes=10, hidden_sizes=[512, 256, 256, 128]): Linear + the
# hand-written Sigmoid (1 / (1 + exp(-x))) after every hidden layer, a final Linear to 10 logits, PyTorch's default
# Linear initialisation; set_seed(42) before the network is built; visualize_gradients() on one batch of 256 training
# images before training (the notebook plots the histograms per weight matrix, printed here as mean / max |grad|);
# train_model(net, "FashionMNIST_sigmoid", max_epochs=50, patience=7, batch_size=256): optim.SGD(lr=1e-2,
# momentum=0.9), nn.CrossEntropyLoss(), a shuffled loader with drop_last=True, per epoch "[Epoch %2d] Training accuracy:
# ..%, Validation accuracy: ..%", "(New best performance, saving model...)" when the validation accuracy improves,
# early stopping after 7 epochs without improvement, then the best model is scored on the test set
# ("============= Test accuracy: ..% =============="). The images are normalised to [-1, 1] as in the notebook
# (transforms.Normalize((0.5,), (0.5,))). Scaled down: instead of FashionMNIST, 28 x 28 synthetic grey "clothing"
# silhouettes of 10 classes (10000 training, 2000 validation, 2000 test images; each class a fixed layout of
# rectangles and ellipses, drawn with a random shift of up to 2 pixels, a random brightness and pixel noise).
# metrics.csv has the per-step loss and, per epoch, the training and validation accuracy and the mean |grad| of the
# first and the last weight matrix.
import csv, math, random, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F
import torch.optim as optim
import torch.utils.data as data

torch.set_num_threads(1)


def set_seed(seed):
    np.random.seed(seed); random.seed(seed); torch.manual_seed(seed)


# ---------------------------------------------------------------- synthetic FashionMNIST-like data
def make_templates(rs):
    yy, xx = np.mgrid[0:28, 0:28]
    temps = []
    for c in range(10):
        t = np.zeros((28, 28), np.float32)
        for _ in range(3 + c % 3):
            if rs.rand() < 0.5:
                x0, y0 = rs.randint(3, 16), rs.randint(3, 16)
                w, h = rs.randint(4, 12), rs.randint(4, 12)
                t[y0:y0 + h, x0:x0 + w] = np.maximum(t[y0:y0 + h, x0:x0 + w], rs.uniform(0.5, 1.0))
            else:
                cx, cy = rs.uniform(7, 21), rs.uniform(7, 21)
                ax, ay = rs.uniform(3, 8), rs.uniform(3, 8)
                m = ((xx - cx) / ax) ** 2 + ((yy - cy) / ay) ** 2 <= 1
                t[m] = np.maximum(t[m], rs.uniform(0.5, 1.0))
        temps.append(t)
    return np.stack(temps)


def make_split(n, temps, rs):
    y = rs.randint(0, 10, n)
    x = np.zeros((n, 28, 28), np.float32)
    for i in range(n):
        dx, dy = rs.randint(-2, 3, 2)
        img = np.roll(np.roll(temps[y[i]], dy, 0), dx, 1) * rs.uniform(0.6, 1.0)
        x[i] = np.clip(img + rs.normal(0, 0.25, (28, 28)), 0, 1)
    x = (x - 0.5) / 0.5                       # transforms.Normalize((0.5,), (0.5,))
    return data.TensorDataset(torch.from_numpy(x[:, None]), torch.from_numpy(y).long())


rs = np.random.RandomState(7)
TEMPLATES = make_templates(rs)
train_set = make_split(10000, TEMPLATES, rs)
val_set = make_split(2000, TEMPLATES, rs)
test_set = make_split(2000, TEMPLATES, rs)
val_loader = data.DataLoader(val_set, batch_size=1024, shuffle=False, drop_last=False)
test_loader = data.DataLoader(test_set, batch_size=1024, shuffle=False, drop_last=False)
device = torch.device('cpu')


# ---------------------------------------------------------------- the tutorial's modules
class ActivationFunction(nn.Module):
    def __init__(self):
        super().__init__()
        self.name = self.__class__.__name__
        self.config = {"name": self.name}


class Sigmoid(ActivationFunction):
    def forward(self, x):
        return 1 / (1 + torch.exp(-x))


class BaseNetwork(nn.Module):
    def __init__(self, act_fn, input_size=784, num_classes=10, hidden_sizes=[512, 256, 256, 128]):
        super().__init__()
        layers = []
        layer_sizes = [input_size] + hidden_sizes
        for layer_index in range(1, len(layer_sizes)):
            layers += [nn.Linear(layer_sizes[layer_index - 1], layer_sizes[layer_index]), act_fn]
        layers += [nn.Linear(layer_sizes[-1], num_classes)]
        self.layers = nn.Sequential(*layers)
        self.config = {"act_fn": act_fn.config, "input_size": input_size, "num_classes": num_classes,
                       "hidden_sizes": hidden_sizes}

    def forward(self, x):
        x = x.view(x.size(0), -1)
        return self.layers(x)


def weight_grads(net, imgs, labels):
    net.zero_grad()
    loss = F.cross_entropy(net(imgs), labels)
    loss.backward()
    g = {name: p.grad.detach().abs() for name, p in net.named_parameters() if "weight" in name}
    net.zero_grad()
    return g


def visualize_gradients(net):
    net.eval()
    small_loader = data.DataLoader(train_set, batch_size=256, shuffle=False)
    imgs, labels = next(iter(small_loader))
    grads = weight_grads(net, imgs, labels)
    print(f"Gradient magnitude distribution for activation function {net.config['act_fn']['name']}:")
    for key, g in grads.items():
        print(f"  {key:16s} mean |grad| {g.mean().item():.2e}   max |grad| {g.max().item():.2e}")


def test_model(net, loader):
    net.eval()
    true_preds, count = 0., 0
    with torch.no_grad():
        for imgs, labels in loader:
            preds = net(imgs).argmax(dim=-1)
            true_preds += (preds == labels).sum().item()
            count += labels.shape[0]
    return true_preds / count


def train_model(net, model_name, max_epochs=50, patience=7, batch_size=256):
    optimizer = optim.SGD(net.parameters(), lr=1e-2, momentum=0.9)
    loss_module = nn.CrossEntropyLoss()
    train_loader_local = data.DataLoader(train_set, batch_size=batch_size, shuffle=True, drop_last=True)
    f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
    wr.writerow(['epoch', 'step', 'loss', 'train_acc', 'val_acc', 'grad_first_layer', 'grad_last_layer'])
    probe = next(iter(data.DataLoader(train_set, batch_size=256, shuffle=False)))
    val_scores = []
    best_val_epoch = -1
    best_state = None
    step = 0
    for epoch in range(max_epochs):
        net.train()
        true_preds, count = 0., 0
        for imgs, labels in train_loader_local:
            optimizer.zero_grad()
            preds = net(imgs)
            loss = loss_module(preds, labels)
            loss.backward()
            optimizer.step()
            true_preds += (preds.argmax(dim=-1) == labels).sum().item()
            count += labels.shape[0]
            step += 1
            wr.writerow([epoch + 1, step, round(loss.item(), 5), '', '', '', ''])
        train_acc = true_preds / count
        val_acc = test_model(net, val_loader)
        val_scores.append(val_acc)
        g = weight_grads(net, *probe)
        gf, gl = g['layers.0.weight'].mean().item(), g['layers.8.weight'].mean().item()
        wr.writerow([epoch + 1, step, '', round(train_acc, 5), round(val_acc, 5), '%.3e' % gf, '%.3e' % gl]); f.flush()
        print(f"[Epoch {epoch+1:2d}] Training accuracy: {train_acc*100.0:05.2f}%, Validation accuracy: {val_acc*100.0:05.2f}%",
              flush=True)
        if len(val_scores) == 1 or val_acc > val_scores[best_val_epoch]:
            print("\t   (New best performance, saving model...)")
            best_state = {k: v.clone() for k, v in net.state_dict().items()}
            best_val_epoch = epoch
        elif best_val_epoch <= epoch - patience:
            print(f"Early stopping due to no improvement over the last {patience} epochs")
            break
    f.close()
    net.load_state_dict(best_state)
    test_acc = test_model(net, test_loader)
    print((f" Test accuracy: {test_acc*100.0:4.2f}% ").center(50, "=") + "\n")
    return test_acc


print("Training BaseNetwork with sigmoid activation...")
set_seed(42)
act_fn = Sigmoid()
net_actfn = BaseNetwork(act_fn=act_fn).to(device)
visualize_gradients(net_actfn)
train_model(net_actfn, "FashionMNIST_sigmoid")
