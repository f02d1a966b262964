"""SqueezeNet-style classifier (fire modules) on synthetic 16x16 colour texture images, 6 classes.

Training loop and prints follow the train.py whose output is kept in deep-learning-algorithm/LightWeightCNN
docs/squeezenet/log2.md (torchvision-tutorial style `Name - Epoch e/E`, `----------`, `train Loss: ... Top-1 Acc: ...
Top-5 Acc: ...`, `test Loss: ...`, `Training Name complete in ...`, `Best test Top-1 Acc: ...`); with 6 classes
Top-3 accuracy is printed in place of Top-5.
"""
import copy
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)

torch.manual_seed(1)


def make_images(n, seed):
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, 6, (n,), generator=g)
    yy, xx = torch.meshgrid(torch.arange(16.), torch.arange(16.), indexing='ij')
    angles = torch.tensor([0., 0.5, 1.0, 1.6, 2.1, 2.6])
    freqs = torch.tensor([0.9, 1.2, 0.9, 1.2, 0.9, 1.2])
    colours = torch.tensor([[1., .2, .2], [.2, 1., .2], [.2, .2, 1.], [1., 1., .2], [.2, 1., 1.], [1., .2, 1.]])
    imgs = torch.empty(n, 3, 16, 16)
    for i in range(n):
        c = labels[i]
        a = angles[c] + 0.25 * torch.randn(1, generator=g)
        ph = 6.28 * torch.rand(1, generator=g)
        wave = torch.sin(freqs[c] * (xx * torch.cos(a) + yy * torch.sin(a)) + ph)
        col = colours[(int(c) + int(torch.randint(0, 2, (1,), generator=g))) % 6] if torch.rand(1, generator=g) < 0.3 else colours[c]
        imgs[i] = col[:, None, None] * wave[None] + 1.1 * torch.randn(3, 16, 16, generator=g)
    mean, std = imgs.mean(dim=(0, 2, 3)), imgs.std(dim=(0, 2, 3))
    imgs = (imgs - mean[None, :, None, None]) / std[None, :, None, None]
    return imgs, labels


class Fire(nn.Module):
    def __init__(self, inplanes, squeeze_planes, expand_planes):
        super(Fire, self).__init__()
        self.conv1 = nn.Conv2d(inplanes, squeeze_planes, kernel_size=1, stride=1)
        self.bn1 = nn.BatchNorm2d(squeeze_planes)
        self.relu1 = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(squeeze_planes, expand_planes, kernel_size=1, stride=1)
        self.bn2 = nn.BatchNorm2d(expand_planes)
        self.conv3 = nn.Conv2d(squeeze_planes, expand_planes, kernel_size=3, stride=1, padding=1)
        self.bn3 = nn.BatchNorm2d(expand_planes)
        self.relu2 = nn.ReLU(inplace=True)

    def forward(self, x):
        x = self.relu1(self.bn1(self.conv1(x)))
        out1 = self.bn2(self.conv2(x))
        out2 = self.bn3(self.conv3(x))
        out = torch.cat([out1, out2], 1)
        out = self.relu2(out)
        return out


class SqueezeNet(nn.Module):
    def __init__(self, num_classes=6):
        super(SqueezeNet, self).__init__()
        self.conv1 = nn.Conv2d(3, 32, kernel_size=3, stride=1, padding=1)
        self.bn1 = nn.BatchNorm2d(32)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool1 = nn.MaxPool2d(kernel_size=2, stride=2)
        self.fire2 = Fire(32, 8, 16)
        self.fire3 = Fire(32, 8, 16)
        self.maxpool2 = nn.MaxPool2d(kernel_size=2, stride=2)
        self.fire4 = Fire(32, 16, 32)
        self.fire5 = Fire(64, 16, 32)
        self.drop = nn.Dropout(0.3)
        self.conv2 = nn.Conv2d(64, num_classes, kernel_size=1, stride=1)
        self.avg_pool = nn.AdaptiveAvgPool2d(1)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                n = m.kernel_size[0] * m.kernel_size[1] * m.in_channels
                m.weight.data.normal_(0, np.sqrt(2. / n))

    def forward(self, x):
        x = self.maxpool1(self.relu(self.bn1(self.conv1(x))))
        x = self.fire2(x)
        x = self.fire3(x)
        x = self.maxpool2(x)
        x = self.fire4(x)
        x = self.fire5(x)
        x = self.conv2(self.drop(x))
        x = self.avg_pool(x).flatten(1)
        return F.softmax(x, dim=1)


def topk_correct(outputs, labels, k):
    _, pred = outputs.topk(k, 1, True, True)
    return pred.eq(labels.view(-1, 1).expand_as(pred)).float().sum().item()


def train_model(data_loaders, data_sizes, model_name, model, criterion, optimizer, lr_scheduler, num_epochs=25):
    since = time.time()
    best_model_weights = copy.deepcopy(model.state_dict())
    best_top1_acc = 0.0
    best_top5_acc = 0.0
    for epoch in range(num_epochs):
        print('{} - Epoch {}/{}'.format(model_name, epoch, num_epochs - 1))
        print('-' * 10)
        for phase in ['train', 'test']:
            if phase == 'train':
                model.train()
            else:
                model.eval()
            running_loss = 0.0
            running_top1 = 0.0
            running_top5 = 0.0
            for inputs, labels in data_loaders[phase]:
                optimizer.zero_grad()
                with torch.set_grad_enabled(phase == 'train'):
                    outputs = model(inputs)
                    loss = criterion(outputs, labels)
                    if phase == 'train':
                        loss.backward()
                        optimizer.step()
                running_loss += loss.item() * inputs.size(0)
                running_top1 += topk_correct(outputs, labels, 1)
                running_top5 += topk_correct(outputs, labels, 3)
            if phase == 'train':
                lr_scheduler.step()
            epoch_loss = running_loss / data_sizes[phase]
            epoch_top1_acc = running_top1 / data_sizes[phase] * 100
            epoch_top5_acc = running_top5 / data_sizes[phase] * 100
            print('{} Loss: {:.4f} Top-1 Acc: {:.4f} Top-3 Acc: {:.4f}'.format(phase, epoch_loss, epoch_top1_acc, epoch_top5_acc))
            if phase == 'test' and epoch_top1_acc > best_top1_acc:
                best_top1_acc = epoch_top1_acc
                best_model_weights = copy.deepcopy(model.state_dict())
            if phase == 'test' and epoch_top5_acc > best_top5_acc:
                best_top5_acc = epoch_top5_acc
    time_elapsed = time.time() - since
    print('Training {} complete in {:.0f}m {:.0f}s'.format(model_name, time_elapsed // 60, time_elapsed % 60))
    print('Best test Top-1 Acc: {:4f}'.format(best_top1_acc))
    print('Best test Top-3 Acc: {:4f}'.format(best_top5_acc))
    model.load_state_dict(best_model_weights)
    return model


if __name__ == '__main__':
    train_x, train_y = make_images(1280, 0)
    val_x, val_y = make_images(384, 1)
    data_loaders = {
        'train': torch.utils.data.DataLoader(torch.utils.data.TensorDataset(train_x, train_y), batch_size=32, shuffle=True),
        'test': torch.utils.data.DataLoader(torch.utils.data.TensorDataset(val_x, val_y), batch_size=64, shuffle=False)}
    data_sizes = {x: len(data_loaders[x].dataset) for x in ['train', 'test']}
    print(data_loaders)
    print(data_sizes)
    model = SqueezeNet(num_classes=6)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.5)
    train_model(data_loaders, data_sizes, 'SqueezeNet', model, criterion, optimizer, lr_scheduler, num_epochs=12)
    print('train SqueezeNet done')
    print()
