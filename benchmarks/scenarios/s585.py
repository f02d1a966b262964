# Stack Overflow question 54354465 ("Effect of using data shuffling in Pytorch dataloader", read in the coderoad.ru
# mirror) in miniature: an image classifier for a 100-class data set built from a pretrained AlexNet with its final
# output layers changed, the training images loaded with
#     trainloader = torch.utils.data.DataLoader(train_data, batch_size=32, shuffle=False)
# from a class-per-folder data set (ImageFolder lists the samples sorted by class), so every epoch walks through
# class 0, then class 1, ... and each batch holds one or two classes; validation accuracy stayed at 2-3 % for about
# 10 epochs, and with shuffle=True the same code reached 70 % in the first epoch. Scaled down / changed: the
# "pretrained" feature extractor is a fixed, frozen random layer over synthetic 100-class inputs (64 values per
# example, 60 training and 10 validation examples per class) instead of AlexNet's convolutional part on images,
# the new classifier (Linear -> ReLU -> Dropout -> Linear(.., 100)) is trained with CrossEntropyLoss and
# SGD(lr=0.01, momentum=0.9) (the transfer-learning tutorial's optimizer, the rate the collector's), 10 epochs, a tutorial-style
# "train Loss: .. Acc: .." / "val Loss: .. Acc: .." block per epoch; metrics.csv has every batch loss and the
# per-epoch numbers.
import csv

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
torch.set_num_threads(1)

C, D, F = 100, 64, 256
N_PER_CLASS_TRAIN, N_PER_CLASS_VAL = 60, 10

g = torch.Generator().manual_seed(54354465)
centers = torch.randn(C, D, generator=g)


def make(n_per_class):
    y = torch.arange(C).repeat_interleave(n_per_class)  # sorted by class, as ImageFolder lists them
    x = centers[y] + 1.5 * torch.randn(len(y), D, generator=g)
    return x, y


x_train, y_train = make(N_PER_CLASS_TRAIN)
x_val, y_val = make(N_PER_CLASS_VAL)
train_data = TensorDataset(x_train, y_train)
val_data = TensorDataset(x_val, y_val)

# the pretrained part (frozen) and the new output layers
features = nn.Sequential(nn.Linear(D, F), nn.ReLU())
for p in features.parameters():
    p.requires_grad = False
classifier = nn.Sequential(nn.Linear(F, 256), nn.ReLU(), nn.Dropout(0.5), nn.Linear(256, C))
model = nn.Sequential(features, classifier)

trainloader = torch.utils.data.DataLoader(train_data, batch_size=32, shuffle=False)
valloader = torch.utils.data.DataLoader(val_data, batch_size=32, shuffle=False)

criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.01, momentum=0.9)

f = open('metrics.csv', 'w', newline='')
wr = csv.writer(f)
wr.writerow(['epoch', 'step', 'batch_loss', 'train_loss', 'train_acc', 'val_loss', 'val_acc'])
step = 0
num_epochs = 10
for epoch in range(num_epochs):
    print('Epoch {}/{}'.format(epoch, num_epochs - 1))
    print('-' * 10)
    model.train()
    running_loss, running_corrects = 0.0, 0
    for inputs, labels in trainloader:
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item() * inputs.size(0)
        running_corrects += (outputs.argmax(1) == labels).sum().item()
        wr.writerow([epoch, step, '%.5f' % loss.item(), '', '', '', ''])
        step += 1
    train_loss = running_loss / len(train_data)
    train_acc = running_corrects / len(train_data)
    print('train Loss: {:.4f} Acc: {:.4f}'.format(train_loss, train_acc))
    model.eval()
    vloss, vcorrects = 0.0, 0
    with torch.no_grad():
        for inputs, labels in valloader:
            outputs = model(inputs)
            vloss += criterion(outputs, labels).item() * inputs.size(0)
            vcorrects += (outputs.argmax(1) == labels).sum().item()
    val_loss = vloss / len(val_data)
    val_acc = vcorrects / len(val_data)
    print('val Loss: {:.4f} Acc: {:.4f}'.format(val_loss, val_acc))
    print()
    wr.writerow([epoch, step, '', '%.5f' % train_loss, '%.4f' % train_acc, '%.5f' % val_loss, '%.4f' % val_acc])
f.close()
