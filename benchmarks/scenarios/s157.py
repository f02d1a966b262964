"""DANN-style digit classifier: source domain labelled, target domain unlabelled.
Feature extractor + class classifier + domain discriminator with gradient reversal."""
import csv
import numpy as np
import torch
import torch.nn as nn
from torch.autograd import Function
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
np.random.seed(0)
torch.set_num_threads(1)

N_CLASSES = 10
DIM = 48


class ReverseLayerF(Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.neg() * ctx.alpha, None


class Extractor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(DIM, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU())

    def forward(self, x):
        return self.net(x)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, N_CLASSES), nn.Softmax(dim=1))

    def forward(self, x):
        return self.net(x)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2), nn.Softmax(dim=1))

    def forward(self, x, alpha):
        return self.net(ReverseLayerF.apply(x, alpha))


def make_domain(n, shift, rng):
    centers = np.random.default_rng(1).normal(0, 1.0, (N_CLASSES, DIM))
    y = rng.integers(0, N_CLASSES, n)
    x = centers[y] + rng.normal(0, 0.8, (n, DIM)) + shift
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y)


def main():
    rng = np.random.default_rng(0)
    xs, ys = make_domain(6000, 0.0, rng)
    xt, yt = make_domain(6000, 0.4, rng)
    xt_test, yt_test = make_domain(1000, 0.4, rng)
    src_loader = DataLoader(TensorDataset(xs, ys), batch_size=64, shuffle=True)
    tgt_loader = DataLoader(TensorDataset(xt, yt), batch_size=64, shuffle=True)

    extractor, classifier, discriminator = Extractor(), Classifier(), Discriminator()
    class_criterion = nn.CrossEntropyLoss()
    domain_criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(list(extractor.parameters()) + list(classifier.parameters())
                                + list(discriminator.parameters()), lr=0.01, momentum=0.9)
    epochs = 12
    total = epochs * len(src_loader)
    step = 0
    f = open("metrics.csv", "w", newline="")
    w = csv.writer(f)
    w.writerow(["step", "epoch", "train_loss", "class_loss", "domain_loss", "target_acc", "lr"])
    for epoch in range(epochs):
        for (x_s, y_s), (x_t, _) in zip(src_loader, tgt_loader):
            p = step / total
            alpha = 2. / (1. + np.exp(-10 * p)) - 1
            feat_s, feat_t = extractor(x_s), extractor(x_t)
            class_loss = class_criterion(classifier(feat_s), y_s)
            d_s = discriminator(feat_s, alpha)
            d_t = discriminator(feat_t, alpha)
            domain_loss = domain_criterion(d_s, torch.zeros(len(x_s), dtype=torch.long)) + \
                domain_criterion(d_t, torch.ones(len(x_t), dtype=torch.long))
            loss = class_loss + domain_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            if step % 20 == 0:
                with torch.no_grad():
                    acc = (classifier(extractor(xt_test)).argmax(1) == yt_test).float().mean().item()
                w.writerow([step, epoch, f"{loss.item():.5f}", f"{class_loss.item():.5f}",
                            f"{domain_loss.item():.5f}", f"{acc:.4f}", 0.01])
        print('Epoch: {} | class_loss: {:.4f} | domain_loss: {:.4f} | target acc: {:.2f}%'.format(
            epoch + 1, class_loss.item(), domain_loss.item(), 100 * acc))
    f.close()


if __name__ == "__main__":
    main()
