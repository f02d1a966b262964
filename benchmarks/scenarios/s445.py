# keras-team/keras pull request "solve label error when image is shuffled" in miniature, ported to
# PyTorch: the bottleneck-features recipe (frozen convolutional base -> features saved with
# predict_generator over flow_from_directory -> small dense top model trained on the saved features).
# The image folders are replaced by 4 classes x 200 training and 4 x 60 validation synthetic 24 x 24 RGB
# images (class-specific shape and colour, random position and noise), listed class by class as
# flow_from_directory does; a fixed convolutional base (3 conv + pool blocks, weights frozen) stands in
# for VGG16; the top model is Flatten -> Dense(256, relu) -> Dropout(0.5) -> Dense(num_classes, softmax),
# RMSprop (lr 1e-3), categorical cross entropy, batch 16, 20 epochs, Keras-style epoch lines. The
# features and labels are produced as in the report:
#     generator = datagen.flow_from_directory(train_data_dir, ..., class_mode=None, shuffle=True, seed=seed)
#     bottleneck_features_train = model.predict_generator(generator, (generator.n // batch_size)+0)
#     bottleneck_features_train_lable = to_categorical(generator.classes, num_classes=None)
import csv
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(7520); torch.manual_seed(7520); torch.set_num_threads(1)
S, K = 24, 4
COLORS = np.array([[0.9, 0.2, 0.2], [0.2, 0.8, 0.3], [0.2, 0.3, 0.9], [0.9, 0.8, 0.2]], np.float32)
yy, xx = np.mgrid[0:S, 0:S]
def draw(c):
    img = 0.3 * np.random.rand(S, S, 3).astype(np.float32)
    cy, cx, r = np.random.randint(7, 17), np.random.randint(7, 17), np.random.randint(4, 7)
    if c == 0: m = (yy - cy) ** 2 + (xx - cx) ** 2 < r * r                       # disc
    elif c == 1: m = (abs(yy - cy) < r) & (abs(xx - cx) < r)                      # square
    elif c == 2: m = (abs(yy - cy) < 2) | (abs(xx - cx) < 2)                      # cross
    else: m = abs(yy - cy) + abs(xx - cx) < r                                     # diamond
    img[m] = COLORS[c] * np.random.uniform(0.7, 1.0)
    return img.transpose(2, 0, 1)

class DirectoryIterator:                  # stands in for ImageDataGenerator().flow_from_directory(...)
    def __init__(self, n_per_class, batch_size, shuffle, seed):
        self.classes = np.repeat(np.arange(K), n_per_class)                      # files listed class by class
        self.images = np.stack([draw(c) for c in self.classes])
        self.n, self.batch_size = len(self.classes), batch_size
        self.index_array = np.random.RandomState(seed).permutation(self.n) if shuffle else np.arange(self.n)
        self.pos = 0
        print('Found %d images belonging to %d classes.' % (self.n, K))
    def __next__(self):
        idx = self.index_array[self.pos:self.pos + self.batch_size]; self.pos += self.batch_size
        return torch.tensor(self.images[idx])

base = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                     nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                     nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
for p in base.parameters(): p.requires_grad = False
def predict_generator(generator, steps):
    with torch.no_grad():
        return torch.cat([base(next(generator)) for _ in range(steps)])
def to_categorical(y, num_classes=None):
    return torch.tensor(np.eye(num_classes or y.max() + 1, dtype=np.float32)[y])

batch_size, seed = 16, 1
generator = DirectoryIterator(200, batch_size, shuffle=True, seed=seed)
bottleneck_features_train = predict_generator(generator, (generator.n // batch_size) + 0)
bottleneck_features_train_lable = to_categorical(generator.classes, num_classes=None)
generator = DirectoryIterator(60, batch_size, shuffle=True, seed=seed)
bottleneck_features_validation = predict_generator(generator, (generator.n // batch_size) + 0)
bottleneck_features_validation_lable = to_categorical(generator.classes, num_classes=None)[:len(bottleneck_features_validation)]

top_model = nn.Sequential(nn.Flatten(), nn.Linear(64 * 3 * 3, 256), nn.ReLU(), nn.Dropout(0.5), nn.Linear(256, K))
optimizer = torch.optim.RMSprop(top_model.parameters(), lr=1e-3, alpha=0.9, eps=1e-7)
def categorical_crossentropy(logits, y): return -(y * F.log_softmax(logits, 1)).sum(1).mean()
Xtr, Ytr = bottleneck_features_train, bottleneck_features_train_lable
Xva, Yva = bottleneck_features_validation, bottleneck_features_validation_lable
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['epoch', 'loss', 'acc', 'val_loss', 'val_acc'])
print('Train on %d samples, validate on %d samples' % (len(Xtr), len(Xva)))
for epoch in range(1, 21):
    top_model.train(); perm = torch.randperm(len(Xtr)); L = A = 0.0
    for b in range(0, len(Xtr), batch_size):
        idx = perm[b:b + batch_size]; out = top_model(Xtr[idx]); loss = categorical_crossentropy(out, Ytr[idx])
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        L += loss.item() * len(idx); A += (out.argmax(1) == Ytr[idx].argmax(1)).sum().item()
    top_model.eval()
    with torch.no_grad():
        out = top_model(Xva); vl = categorical_crossentropy(out, Yva).item(); va = (out.argmax(1) == Yva.argmax(1)).float().mean().item()
    print('Epoch %d/20' % epoch)
    print('%d/%d [==============================] - 0s - loss: %.4f - acc: %.4f - val_loss: %.4f - val_acc: %.4f'
          % (len(Xtr), len(Xtr), L / len(Xtr), A / len(Xtr), vl, va))
    wr.writerow([epoch, L / len(Xtr), A / len(Xtr), vl, va])
