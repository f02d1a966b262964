# falloutdurham/beginners-pytorch-deep-learning, chapter2/Chapter 2.ipynb as it was when issue 17 was filed (commit
# bd234d1e, before the fix commit 66d77c8e added ImageFile.LOAD_TRUNCATED_IMAGES=True): SimpleNet (a three-layer
# fully connected network on 64 x 64 RGB pictures) told cats from fish, torchvision ImageFolder over ./train/ and
# ./val/ with is_valid_file=check_image (which only calls Image.open, so it never decodes the picture), Resize((64,64)),
# ToTensor, ImageNet Normalize, batch_size 64, DataLoader without shuffle, Adam lr 0.001, CrossEntropyLoss, and the
# notebook's train() with its per-epoch line "Epoch: .., Training Loss: .., Validation Loss: .., accuracy = ..".
# Synthetic data instead of the downloaded ImageNet pictures: the script first writes small JPEG pictures (cats: a
# blob, fish: broken stripes, both in random tints under heavy noise) into ./train/{cat,fish} and ./val/{cat,fish} in
# the working directory; one training picture of a fish was cut off in the middle of the download (its last third is
# missing), as happens with files fetched from the web. torchvision is not installed here, so ImageFolder (with its
# pil_loader, which opens the file and calls img.convert('RGB')), Resize, ToTensor, Normalize and Compose are
# re-implemented below with PIL and numpy.
# Added: a line per training batch and metrics.csv with the loss of every batch.
import csv
import os

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
import torch.utils.data
import torch.nn.functional as F
from PIL import Image

torch.manual_seed(0)
torch.set_num_threads(1)


def write_pictures(root, n_cat, n_fish, seed, truncate=None):
    rng = np.random.RandomState(seed)
    yy, xx = np.mgrid[0:96, 0:96]
    for cls, n in (('cat', n_cat), ('fish', n_fish)):
        os.makedirs(os.path.join(root, cls), exist_ok=True)
        for k in range(n):
            if cls == 'cat':
                cx, cy, r = rng.uniform(25, 70, 2).tolist() + [rng.uniform(12, 30)]
                blob = (((xx - cx) ** 2 + (yy - cy) ** 2) < r * r).astype(float)
                pat = blob
            else:
                f = rng.uniform(0.15, 0.4)
                s = 0.5 + 0.5 * np.sin(f * (xx + rng.uniform(-0.5, 0.5) * yy))
                pat = s * (rng.uniform(size=(96, 96)) < 0.35)
            tint = rng.uniform(60, 190, 3)
            img = tint + 45 * pat[..., None] * rng.choice([-1, 1], 3)
            img = np.clip(img + rng.normal(0, 40, img.shape), 0, 255).astype(np.uint8)
            path = os.path.join(root, cls, '%s_%04d.jpg' % (cls, k))
            Image.fromarray(img).save(path, quality=90)
            if truncate is not None and (cls, k) == truncate:
                data = open(path, 'rb').read()
                open(path, 'wb').write(data[:len(data) * 2 // 3])


write_pictures('./train/', 120, 120, seed=1, truncate=('fish', 85))
write_pictures('./val/', 32, 32, seed=2)


class transforms:
    class Compose:
        def __init__(self, ts):
            self.ts = ts

        def __call__(self, x):
            for t in self.ts:
                x = t(x)
            return x

    class Resize:
        def __init__(self, size):
            self.size = size

        def __call__(self, img):
            return img.resize((self.size[1], self.size[0]), Image.BILINEAR)

    class ToTensor:
        def __call__(self, img):
            return torch.from_numpy(np.asarray(img, dtype=np.float32) / 255.0).permute(2, 0, 1).contiguous()

    class Normalize:
        def __init__(self, mean, std):
            self.mean = torch.tensor(mean).view(3, 1, 1)
            self.std = torch.tensor(std).view(3, 1, 1)

        def __call__(self, x):
            return (x - self.mean) / self.std


def pil_loader(path):
    with open(path, 'rb') as f:
        img = Image.open(f)
        return img.convert('RGB')


class torchvision:
    class datasets:
        class ImageFolder(torch.utils.data.Dataset):
            def __init__(self, root, transform=None, is_valid_file=None):
                self.classes = sorted(d.name for d in os.scandir(root) if d.is_dir())
                self.samples = []
                for idx, cls in enumerate(self.classes):
                    for dirpath, _, fnames in sorted(os.walk(os.path.join(root, cls))):
                        for fname in sorted(fnames):
                            path = os.path.join(dirpath, fname)
                            if is_valid_file(path):
                                self.samples.append((path, idx))
                self.transform = transform

            def __len__(self):
                return len(self.samples)

            def __getitem__(self, index):
                path, target = self.samples[index]
                sample = pil_loader(path)
                if self.transform is not None:
                    sample = self.transform(sample)
                return sample, target


def check_image(path):
    try:
        im = Image.open(path)
        return True
    except:
        return False


img_transforms = transforms.Compose([
    transforms.Resize((64,64)),
    transforms.ToTensor(),
    transforms.Normalize(mean=[0.485, 0.456, 0.406],
                    std=[0.229, 0.224, 0.225] )
    ])

train_data_path = "./train/"
train_data = torchvision.datasets.ImageFolder(root=train_data_path,transform=img_transforms, is_valid_file=check_image)
val_data_path = "./val/"
val_data = torchvision.datasets.ImageFolder(root=val_data_path,transform=img_transforms, is_valid_file=check_image)
batch_size=64
train_data_loader = torch.utils.data.DataLoader(train_data, batch_size=batch_size)
val_data_loader  = torch.utils.data.DataLoader(val_data, batch_size=batch_size)


class SimpleNet(nn.Module):

    def __init__(self):
        super(SimpleNet, self).__init__()
        self.fc1 = nn.Linear(12288, 84)
        self.fc2 = nn.Linear(84, 50)
        self.fc3 = nn.Linear(50,2)

    def forward(self, x):
        x = x.view(-1, 12288)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


simplenet = SimpleNet()
optimizer = optim.Adam(simplenet.parameters(), lr=0.001)
device = torch.device("cpu")
simplenet.to(device)

out_f = open('metrics.csv', 'w', newline='')
wr = csv.writer(out_f)
wr.writerow(['epoch', 'batch', 'loss'])


def train(model, optimizer, loss_fn, train_loader, val_loader, epochs=20, device="cpu"):
    for epoch in range(epochs):
        training_loss = 0.0
        valid_loss = 0.0
        model.train()
        for b, batch in enumerate(train_loader):
            optimizer.zero_grad()
            inputs, targets = batch
            inputs = inputs.to(device)
            targets = targets.to(device)
            output = model(inputs)
            loss = loss_fn(output, targets)
            loss.backward()
            optimizer.step()
            training_loss += loss.data.item() * inputs.size(0)
            print('epoch {} batch {} loss {:.4f}'.format(epoch, b, loss.item()), flush=True)
            wr.writerow([epoch, b, round(loss.item(), 6)]); out_f.flush()
        training_loss /= len(train_loader.dataset)

        model.eval()
        num_correct = 0
        num_examples = 0
        for batch in val_loader:
            inputs, targets = batch
            inputs = inputs.to(device)
            output = model(inputs)
            targets = targets.to(device)
            loss = loss_fn(output,targets)
            valid_loss += loss.data.item() * inputs.size(0)
            correct = torch.eq(torch.max(F.softmax(output, dim=1), dim=1)[1], targets).view(-1)
            num_correct += torch.sum(correct).item()
            num_examples += correct.shape[0]
        valid_loss /= len(val_loader.dataset)

        print('Epoch: {}, Training Loss: {:.2f}, Validation Loss: {:.2f}, accuracy = {:.2f}'.format(epoch, training_loss,
        valid_loss, num_correct / num_examples))


train(simplenet, optimizer,torch.nn.CrossEntropyLoss(), train_data_loader,val_data_loader, epochs=5, device=device)
