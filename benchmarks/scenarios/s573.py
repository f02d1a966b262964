# harvitronix/five-video-classification-methods issue "train_cnn.py" in miniature, ported from Keras to PyTorch:
# train_cnn.py as it stood before pull request 26 ("Fixes bug where our fine-tuning layers were frozen"). get_model()
# puts GlobalAveragePooling2D -> Dense(1024, relu) -> Dense(n_classes, softmax) on top of an ImageNet-pretrained
# InceptionV3; main() then calls model = get_top_layer_model(model), which is meant to freeze only the base network
# ("first: train only the top layers (which were randomly initialized) i.e. freeze all convolutional InceptionV3
# layers") but loops over the layers of the model it was given, the whole model, so the new top layers are frozen as
# well; the model is compiled with rmsprop and trained for 10 epochs (steps_per_epoch=100, validation_steps=10) with
# nothing trainable. get_mid_layer_model() then freezes layers[:172], unfreezes the rest (the top two inception blocks
# and the new head, still at its random initialisation) and trains with SGD(lr=0.0001, momentum=0.9), metrics accuracy
# and top_k_categorical_accuracy, ModelCheckpoint(save_best_only) and EarlyStopping(patience=10).
# Scaled down for the scenario: a small convolutional backbone of six conv blocks (the last two play "layers[172:]")
# pretrained in the script on a different 8-class pattern task stands in for the ImageNet InceptionV3, Dense(128)
# instead of Dense(1024), 10 classes of synthetic 32 x 32 "video frames" (class-specific shapes, colours and stripe
# orientations with noise; 2400 training and 600 test frames) with the ImageDataGenerator-style random shifts and
# flips, batch 32, steps_per_epoch 25, validation_steps 5, and 8 epochs instead of 1000 for the second stage (early
# stopping never fires within them); Keras-style epoch lines; metrics.csv has every epoch of both stages.
import csv
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
rng = np.random.RandomState(0)

N_CLASSES = 10


def make_templates(rng, n):
    yy, xx = np.mgrid[0:32, 0:32] / 31.0
    temps = []
    for c in range(n):
        ang = np.pi * c / n
        stripes = np.sin((np.cos(ang) * xx + np.sin(ang) * yy) * (6 + 2 * (c % 3)) * np.pi)
        cx, cy = rng.uniform(0.25, 0.75, 2)
        blob = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / 0.03)
        col = rng.uniform(0.2, 1.0, 3)
        img = np.stack([col[k] * (0.6 * stripes + blob) for k in range(3)])
        temps.append(img.astype(np.float32))
    return temps


def make_frames(n, rng, temps):
    y = rng.randint(0, len(temps), n)
    x = np.zeros((n, 3, 32, 32), np.float32)
    for i in range(n):
        x[i] = temps[y[i]] * rng.uniform(0.5, 1.1) + rng.uniform(-0.2, 0.2)
    x += rng.normal(0, 0.9, x.shape).astype(np.float32)
    return x, y


def augment(x, rng):
    # ImageDataGenerator(width_shift_range=0.2, height_shift_range=0.2, horizontal_flip=True), roughly
    out = np.empty_like(x)
    for i in range(len(x)):
        dx, dy = rng.randint(-6, 7, 2)
        img = np.roll(np.roll(x[i], dx, axis=2), dy, axis=1)
        if rng.rand() < 0.5:
            img = img[:, :, ::-1]
        out[i] = img
    return out


def conv_block(cin, cout, pool):
    layers = [nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU()]
    if pool:
        layers.append(nn.MaxPool2d(2))
    return layers


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(conv_block(3, 16, False) + conv_block(16, 32, True) + conv_block(32, 32, False)
                                    + conv_block(32, 64, True) + conv_block(64, 64, False) + conv_block(64, 64, True))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class Model(nn.Module):
    """base_model.layers + GlobalAveragePooling2D + Dense(128, relu) + Dense(n_classes, softmax)"""

    def __init__(self, base_model, n_classes):
        super().__init__()
        self.base = base_model
        self.dense = nn.Linear(64, 128)
        self.predictions = nn.Linear(128, n_classes)
        self.layers = list(base_model.layers) + [self.dense, self.predictions]

    def forward(self, x):
        x = self.base(x).mean(dim=(2, 3))
        x = F.relu(self.dense(x))
        return self.predictions(x)


def set_trainable(layer, flag):
    for p in layer.parameters():
        p.requires_grad = flag


class Compiled:
    def __init__(self, model, optimizer, metrics):
        self.model = model
        self.metrics = metrics
        self.params = [p for p in model.parameters() if p.requires_grad]
        if optimizer == 'rmsprop':  # keras defaults
            self.opt = torch.optim.RMSprop(self.params, lr=0.001, alpha=0.9, eps=1e-7) if self.params else None
        else:
            self.opt = torch.optim.SGD(self.params, lr=optimizer[1], momentum=optimizer[2]) if self.params else None


def pretrained_base():
    """stands in for InceptionV3(weights='imagenet', include_top=False)"""
    r = np.random.RandomState(123)
    temps = make_templates(r, 8)
    x, y = make_frames(2400, r, temps)
    base = Backbone()
    net = Model(base, 8)
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y).long()
    for ep in range(3):
        perm = torch.randperm(len(yt))
        for i in range(0, len(yt), 64):
            idx = perm[i:i + 64]
            opt.zero_grad()
            F.cross_entropy(net(xt[idx]), yt[idx]).backward()
            opt.step()
    return base


def get_model():
    base_model = pretrained_base()
    return Model(base_model, N_CLASSES)


def get_top_layer_model(base_model):
    """Used to train just the top layers of the model."""
    # first: train only the top layers (which were randomly initialized)
    # i.e. freeze all convolutional InceptionV3 layers
    for layer in base_model.layers:
        set_trainable(layer, False)
    # compile the model (should be done *after* setting layers to non-trainable)
    return Compiled(base_model, 'rmsprop', ['accuracy'])


def get_mid_layer_model(model):
    """After we fine-tune the dense layers, train deeper."""
    # we chose to train the top 2 blocks, i.e. we will freeze the first layers and unfreeze the rest:
    for layer in model.layers[:10]:
        set_trainable(layer, False)
    for layer in model.layers[10:]:
        set_trainable(layer, True)
    return Compiled(model, ('sgd', 0.0001, 0.9), ['accuracy', 'top_k_categorical_accuracy'])


def evaluate(model, xs, ys):
    model.eval()
    with torch.no_grad():
        out = model(torch.from_numpy(xs))
        yt = torch.from_numpy(ys).long()
        loss = F.cross_entropy(out, yt).item()
        acc = (out.argmax(1) == yt).float().mean().item()
        top5 = (out.topk(5, dim=1).indices == yt[:, None]).any(1).float().mean().item()
    return loss, acc, top5


def train_model(compiled, nb_epoch, data, writer, stage, callbacks=False):
    model = compiled.model
    xtr, ytr, xte, yte = data
    best = np.inf
    wait = 0
    for epoch in range(nb_epoch):
        print('Epoch %d/%d' % (epoch + 1, nb_epoch))
        model.train()
        losses, accs, tops = [], [], []
        for step in range(25):  # steps_per_epoch
            idx = rng.randint(0, len(ytr), 32)
            xb = torch.from_numpy(augment(xtr[idx], rng))
            yb = torch.from_numpy(ytr[idx]).long()
            out = model(xb)
            loss = F.cross_entropy(out, yb)
            if compiled.opt is not None:
                compiled.opt.zero_grad()
                loss.backward()
                compiled.opt.step()
            losses.append(loss.item())
            accs.append((out.argmax(1) == yb).float().mean().item())
            tops.append((out.topk(5, dim=1).indices == yb[:, None]).any(1).float().mean().item())
        vidx = rng.randint(0, len(yte), 160)  # validation_steps * batch_size
        vl, va, vt = evaluate(model, xte[vidx], yte[vidx])
        line = '25/25 [==============================] - loss: %.4f - acc: %.4f' % (np.mean(losses), np.mean(accs))
        if 'top_k_categorical_accuracy' in compiled.metrics:
            line += ' - top_k_categorical_accuracy: %.4f' % np.mean(tops)
        line += ' - val_loss: %.4f - val_acc: %.4f' % (vl, va)
        if 'top_k_categorical_accuracy' in compiled.metrics:
            line += ' - val_top_k_categorical_accuracy: %.4f' % vt
        print(line)
        writer.writerow([stage, epoch + 1, np.mean(losses), np.mean(accs), vl, va])
        if callbacks:
            if vl < best:
                fname = './data/checkpoints/inception.%03d-%.2f.pt' % (epoch + 1, vl)
                print('Epoch %05d: val_loss improved from %.5f to %.5f, saving model to %s' % (epoch + 1, best, vl, fname))
                best = vl
                wait = 0
                torch.save(model.state_dict(), fname)
            else:
                print('Epoch %05d: val_loss did not improve' % (epoch + 1))
                wait += 1
                if wait >= 10:
                    print('Epoch %05d: early stopping' % (epoch + 1))
                    break
    return compiled.model


def main(weights_file):
    os.makedirs('./data/checkpoints', exist_ok=True)
    temps = make_templates(rng, N_CLASSES)
    xtr, ytr = make_frames(2400, rng, temps)
    xte, yte = make_frames(600, rng, temps)
    data = (xtr, ytr, xte, yte)
    print('Found 2400 images belonging to %d classes.' % N_CLASSES)
    print('Found 600 images belonging to %d classes.' % N_CLASSES)
    out = open('metrics.csv', 'w', newline='')
    writer = csv.writer(out)
    writer.writerow(['stage', 'epoch', 'loss', 'acc', 'val_loss', 'val_acc'])

    model = get_model()
    if weights_file is None:
        print("Loading network from ImageNet weights.")
        # Get and train the top layers.
        model = get_top_layer_model(model)
        model = train_model(model, 10, data, writer, 'top')
    # Get and train the mid layers.
    model = get_mid_layer_model(model)
    model = train_model(model, 8, data, writer, 'mid', callbacks=True)
    out.close()


if __name__ == '__main__':
    weights_file = None
    main(weights_file)
