# nodefluxio/vortex issue "[BUG] Scheduler.step() placement in default trainer" in miniature: DefaultTrainer.train()
# of vortex (src/development/vortex/development/core/engine/trainer/default_trainer.py at commit 95365ba0) calls
# self.scheduler.step() after every optimizer.step(), i.e. once per batch, whatever the scheduler; the epoch number is
# only passed (self.scheduler.step(epoch)) when the argument-less call raises, as it does for vortex's own
# timm-style schedulers, so a torch.optim.lr_scheduler class such as StepLR, whose step_size is meant in epochs, is
# advanced once per batch. The training pipeline prints "epoch N loss : L with lr : LR" after every epoch (LR is
# scheduler.get_last_lr()[0] read at the last batch) and "epoch N validation : accuracy:.." every val_epoch epochs.
# The configuration follows examples/custom_models/alexnet/mnist.yml (SGD momentum 0.9, weight_decay 0.0005, batch 32,
# shuffle, val_epoch 4, 20 epochs, CrossEntropyLoss) with the scheduler set to torch's StepLR(step_size=5, gamma=0.5)
# (halve the rate every 5 epochs) and lr 0.01.
# Scaled down for the scenario: a small AlexNet-style CNN on 28 x 28 single-channel inputs instead of alexnet at 224,
# synthetic 10-class "digit" images (3200 training, 800 validation, generated in memory) instead of MNIST, 12 epochs,
# validation every 4 epochs plus at the end; metrics.csv has every batch loss and learning rate and the validation
# accuracy.
import csv

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
torch.set_num_threads(1)

EPOCHS = 12
VAL_EPOCH = 4


def make_data(n, rng, templates):
    y = rng.randint(0, 10, n)
    x = np.zeros((n, 28, 28), np.float32)
    for i in range(n):
        dx, dy = rng.randint(-2, 3, 2)
        x[i] = np.roll(np.roll(templates[y[i]], dx, axis=1), dy, axis=0) * rng.uniform(0.6, 1.0)
    x += rng.normal(0, 0.5, x.shape).astype(np.float32)
    return torch.from_numpy(x).unsqueeze(1), torch.from_numpy(y).long()


def make_templates(rng):
    temps = []
    for c in range(10):
        t = np.zeros((28, 28), np.float32)
        for _ in range(3):
            x0, y0, x1, y1 = rng.randint(5, 23, 4)
            for s in np.linspace(0, 1, 40):
                px, py = int(round(x0 + s * (x1 - x0))), int(round(y0 + s * (y1 - y0)))
                t[max(py - 1, 0):py + 2, max(px - 1, 0):px + 2] = 1.0
        temps.append(t)
    return temps


class AlexNetSmall(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 5, padding=2), nn.ReLU(inplace=True), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2),
            nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(
            nn.Dropout(), nn.Linear(32 * 3 * 3, 128), nn.ReLU(inplace=True), nn.Linear(128, num_classes))

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


class DefaultTrainer:
    def __init__(self, model, optimizer, scheduler, criterion, accumulation_step=1, wr=None):
        self.model, self.optimizer, self.scheduler, self.criterion = model, optimizer, scheduler, criterion
        self.accumulation_step = accumulation_step
        self.lr = self.optimizer.param_groups[0]['lr']
        self.global_step = 0
        self.wr = wr

    def train(self, dataloader, epoch):
        epoch_loss, step_loss = 0., 0.
        self.model.train()
        for i, (inputs, targets) in enumerate(dataloader):
            if self.scheduler is not None:
                self.lr = self.scheduler.get_last_lr()[0]
            preds = self.model(inputs)
            batch_loss = self.criterion(preds, targets)
            batch_loss.backward()
            epoch_loss += batch_loss.detach()
            step_loss += batch_loss.detach()
            if (i + 1) % self.accumulation_step == 0:
                self.optimizer.step()
                if self.scheduler:
                    try:
                        self.scheduler.step()
                    except:
                        self.scheduler.step(epoch)
                self.optimizer.zero_grad()
                self.wr.writerow([epoch, self.global_step, '%.5f' % (step_loss.item() / self.accumulation_step),
                                  '%.3e' % self.lr, ''])
                self.global_step += 1
                step_loss = 0
        return (epoch_loss / len(dataloader)), self.lr

    __call__ = train


def validate(model, loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
            total += len(y)
    return {'accuracy': correct / total}


if __name__ == '__main__':
    rng = np.random.RandomState(3)
    templates = make_templates(rng)
    xtr, ytr = make_data(3200, rng, templates)
    xva, yva = make_data(800, rng, templates)
    dataloader = DataLoader(TensorDataset(xtr, ytr), batch_size=32, shuffle=True, num_workers=0)
    val_loader = DataLoader(TensorDataset(xva, yva), batch_size=100)

    model = AlexNetSmall(10)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=0.0005)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.5)
    out = open('metrics.csv', 'w', newline='')
    wr = csv.writer(out)
    wr.writerow(['epoch', 'step', 'loss', 'lr', 'val_accuracy'])
    trainer = DefaultTrainer(model, optimizer, scheduler, nn.CrossEntropyLoss(), wr=wr)

    epoch_losses, learning_rates = [], []
    for epoch in range(EPOCHS):
        loss, lr = trainer(dataloader, epoch)
        epoch_losses.append(loss.item())
        learning_rates.append(lr)
        print('epoch %s loss : %s with lr : %s' % (epoch, loss.item(), lr), flush=True)
        if (epoch + 1) % VAL_EPOCH == 0 or epoch == EPOCHS - 1:
            val_results = validate(model, val_loader)
            wr.writerow([epoch, trainer.global_step, '', '', '%.4f' % val_results['accuracy']])
            print('epoch %s validation : %s' % (epoch, ', '.join(
                ['{}:{:.4f}'.format(key, value) for key, value in val_results.items()])), flush=True)
    out.close()
    print("\nloss: {}\nlearning rates: {}".format(['%.4f' % l for l in epoch_losses], learning_rates))
