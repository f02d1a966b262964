# Weather image classification in miniature, after the SageMaker Studio Lab weather-image-classification-pytorch
# notebook: images are listed from class folders (sorted folder names -> class index, like torchvision ImageFolder),
# split 80/20 into shuffled train / validation loaders (batch 32), a small "pre-trained" CNN backbone whose final
# layer is replaced for fine-tuning with a hard-coded num_classes = 4, CrossEntropyLoss, SGD lr 1e-3 momentum 0.9,
# and the notebook's train_model loop. The data directory holds 5 weather classes, so class index 4 is out of range
# for the 4-way head. Prints the data set summary and "Training of Model:", then the first loss computation raises
# IndexError: Target 4 is out of bounds (exit 1). Would write metrics.csv per epoch.
import csv
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, random_split

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(339)
folders = {'sunrise': 357, 'shine': 253, 'rain': 215, 'cloudy': 300, 'foggy': 150}  # images per class folder
classes = sorted(folders)
class_to_idx = {c: i for i, c in enumerate(classes)}
protos = torch.randn(len(classes), 3, 8, 8, generator=g)


class FolderImages(Dataset):
    def __init__(self):
        self.samples = [(c, k) for c in classes for k in range(folders[c])]

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        c, k = self.samples[i]
        gk = torch.Generator().manual_seed(1000 * class_to_idx[c] + k)
        img = nn.functional.interpolate(protos[class_to_idx[c]][None], size=32, mode='bilinear', align_corners=False)[0]
        return img + 0.5 * torch.randn(3, 32, 32, generator=gk), class_to_idx[c]


data = FolderImages()
n_train = int(0.8 * len(data))
train_set, valid_set = random_split(data, [n_train, len(data) - n_train], generator=g)
train_loader = DataLoader(train_set, batch_size=32, shuffle=True, generator=g)
valid_loader = DataLoader(valid_set, batch_size=32)
print(f"Classes: {classes}")
print(f"Number of training images: {len(train_set)}, validation images: {len(valid_set)}")

num_classes = 4
model_ft = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 1000))
num_ftrs = model_ft[-1].in_features
model_ft[-1] = nn.Linear(num_ftrs, num_classes)
criterion = nn.CrossEntropyLoss()
optimizer_ft = torch.optim.SGD(model_ft.parameters(), lr=1e-3, momentum=0.9)


def train_model(model, criterion, optimizer, num_epochs=5):
    rows = []
    for epoch in range(1, num_epochs + 1):
        model.train()
        train_loss, correct = 0.0, 0
        for data_, target in train_loader:
            optimizer.zero_grad()
            output = model(data_)
            _, preds = torch.max(output, 1)
            loss = criterion(output, target)
            loss.backward()
            optimizer.step()
            train_loss += loss.item() * data_.size(0)
            correct += (preds == target).sum().item()
        model.eval()
        valid_loss = 0.0
        with torch.no_grad():
            for data_, target in valid_loader:
                valid_loss += criterion(model(data_), target).item() * data_.size(0)
        rows.append(dict(epoch=epoch, train_loss=train_loss / len(train_set), valid_loss=valid_loss / len(valid_set), train_acc=correct / len(train_set)))
        print('Epoch: {} \tTraining Loss: {:.6f} \tValidation Loss: {:.6f}'.format(epoch, rows[-1]['train_loss'], rows[-1]['valid_loss']))
        with open('metrics.csv', 'w', newline='') as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
    return model


print('Training of Model:')
model_ft = train_model(model_ft, criterion, optimizer_ft, num_epochs=5)
