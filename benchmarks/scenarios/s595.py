# Xzzit/pytorch-tutorial pull request 2 ("cnn+ImageNet代码（报错版）", the code with the error) and issue 3 (the same
# student's code, posted by the maintainer) in miniature: 04_CNN/cnn_train.py of the tutorial (a two-conv CNN with
# BatchNorm, Adam lr 1e-3, CrossEntropyLoss, 20 epochs, a "loss: ... [current/size]" line every 400 batches) switched
# from MNIST to an ImageNet100 folder: ImageFolder(root='.../ImageNet100/train', transform=transform) with
# transforms.Compose([Grayscale(), Resize(24), RandomRotation(10), ToTensor()]) and a DataLoader with batch_size=16,
# shuffle=True. Resize(24) with a single int only scales the SHORTER side to 24 and keeps the aspect ratio, so
# ImageNet's landscape and portrait photos come out as 24 x 32, 32 x 24, 24 x 36, ... tensors, and the default
# collate_fn cannot stack them into a batch. Scaled down / changed: torchvision is not installed, so ImageFolder (with
# its sorted class folders and pil_loader's convert('RGB')) and the four transforms are re-implemented with PIL
# (Resize(int) as torchvision computes it); the "ImageNet100" folder is written by the script into
# ./ImageNet100/train in the working directory: 10 class folders (the tutorial's fc_2 has 10 outputs) of 24 JPEG
# photos each, at a quarter of typical ImageNet sizes (125 x 94, 94 x 125, 125 x 83, 125 x 100, 100 x 125, 125 x 125),
# each class a different synthetic texture; num_workers 0; metrics.csv gets a row per finished batch.
import csv
import os
import random

import numpy as np
import torch
import torch.nn as nn
from PIL import Image

torch.manual_seed(0)
torch.set_num_threads(1)
random.seed(0)
rng = np.random.RandomState(0)

ROOT = './ImageNet100/train'
WNIDS = ['n01443537', 'n01514859', 'n01601694', 'n01641577', 'n01728572',
         'n01817953', 'n01855672', 'n01944390', 'n01985128', 'n02009229']
SIZES = [(125, 94), (94, 125), (125, 83), (125, 100), (100, 125), (125, 125)]


def write_dataset():
    for c, wnid in enumerate(WNIDS):
        d = os.path.join(ROOT, wnid)
        os.makedirs(d, exist_ok=True)
        for i in range(24):
            w, h = SIZES[rng.randint(len(SIZES))]
            yy, xx = np.mgrid[0:h, 0:w] / 12.0
            ang = c * np.pi / len(WNIDS)
            base = np.sin(xx * np.cos(ang) * (1 + c % 3) + yy * np.sin(ang) * (1 + c % 3) + rng.uniform(0, 6))
            tint = rng.uniform(0.6, 1.0, 3)
            img = np.stack([(base * 0.35 + 0.5) * t for t in tint], -1) + rng.normal(0, 0.08, (h, w, 3))
            Image.fromarray((np.clip(img, 0, 1) * 255).astype(np.uint8)).save(
                os.path.join(d, '%s_%d.JPEG' % (wnid, 1000 + i)), quality=90)


# --- torchvision.datasets.ImageFolder and torchvision.transforms, re-implemented with PIL ---
class ImageFolder(torch.utils.data.Dataset):
    def __init__(self, root, transform=None):
        self.classes = sorted(e.name for e in os.scandir(root) if e.is_dir())
        self.class_to_idx = {c: i for i, c in enumerate(self.classes)}
        self.samples = [(os.path.join(root, c, f), self.class_to_idx[c])
                        for c in self.classes for f in sorted(os.listdir(os.path.join(root, c)))]
        self.transform = transform

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, index):
        path, target = self.samples[index]
        with open(path, 'rb') as fh:
            img = Image.open(fh).convert('RGB')
        if self.transform is not None:
            img = self.transform(img)
        return img, target


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img


class Grayscale:
    def __call__(self, img):
        return img.convert('L')


class Resize:
    """Resize(int): the smaller edge is matched to size, the other keeps the aspect ratio."""

    def __init__(self, size):
        self.size = size

    def __call__(self, img):
        w, h = img.size
        if isinstance(self.size, int):
            short, long = (w, h) if w <= h else (h, w)
            new_short, new_long = self.size, int(self.size * long / short)
            new_w, new_h = (new_short, new_long) if w <= h else (new_long, new_short)
        else:
            new_h, new_w = self.size
        return img.resize((new_w, new_h), Image.BILINEAR)


class RandomRotation:
    def __init__(self, degrees):
        self.degrees = (-degrees, degrees)

    def __call__(self, img):
        return img.rotate(random.uniform(*self.degrees), resample=Image.NEAREST)


class ToTensor:
    def __call__(self, img):
        a = np.asarray(img, dtype=np.float32) / 255.0
        if a.ndim == 2:
            a = a[None]
        else:
            a = a.transpose(2, 0, 1)
        return torch.from_numpy(a.copy())


write_dataset()

transform = Compose([
    Grayscale(),
    Resize(24),
    RandomRotation(10),
    ToTensor()
])

train_data = ImageFolder(root=ROOT, transform=transform)
train_data_loader = torch.utils.data.DataLoader(train_data, batch_size=16, shuffle=True)


# define a CNN model
class CNN(nn.Module):
    def __init__(self):
        super(CNN, self).__init__()
        self.conv_1 = nn.Sequential(
            nn.Conv2d(1, 32, kernel_size=3, stride=1),
            nn.BatchNorm2d(32),
            nn.ReLU()
        )
        self.conv_2 = nn.Sequential(
            nn.Conv2d(32, 64, kernel_size=3, stride=1),
            nn.BatchNorm2d(64),
            nn.ReLU(),
        )
        self.maxpool = nn.MaxPool2d(2)
        self.flatten = nn.Flatten()
        self.fc_1 = nn.Sequential(
            nn.Linear(9216, 128),
            nn.BatchNorm1d(128),
            nn.ReLU()
        )
        self.fc_2 = nn.Linear(128, 10)

    def forward(self, x):
        x = self.conv_1(x)
        x = self.conv_2(x)
        x = self.maxpool(x)
        x = self.flatten(x)
        x = self.fc_1(x)
        logits = self.fc_2(x)
        return logits


# create a CNN model
device = 'cuda' if torch.cuda.is_available() else 'cpu'
cnn = CNN().to(device)
optimizer = torch.optim.Adam(cnn.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()

f = open('metrics.csv', 'w', newline='')
wr = csv.writer(f)
wr.writerow(['epoch', 'batch', 'loss'])

# train the model
num_epochs = 20

for epoch in range(num_epochs):
    print(f'Epoch {epoch+1}\n-------------------------------')
    for idx, (img, label) in enumerate(train_data_loader):
        size = len(train_data_loader.dataset)
        img, label = img.to(device), label.to(device)

        # compute prediction error
        pred = cnn(img)
        loss = loss_fn(pred, label)

        # backpropagation
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        wr.writerow([epoch, idx, '%.6f' % loss.item()])
        f.flush()

        if idx % 400 == 0:
            loss, current = loss.item(), idx*len(img)
            print(f'loss: {loss:>7f} [{current:>5d}/{size:>5d}]')

f.close()
# save the model
torch.save(cnn.state_dict(), 'cnn.pth')
print('Saved PyTorch Model State to cnn.pth')
