# ugent-korea/pytorch-unet-segmentation in miniature: src/main.py's training of CleanU_Net(in_channels=1,
# out_channels=2) for the ISBI 2012 electron-microscopy membrane segmentation (masks: 1 = cell interior, 0 =
# membrane), RMSprop(lr=0.001), batch_size=2, train_model() / get_loss_train() of src/modules.py (accuracy =
# accuracy_check_for_batch(masks, torch.argmax(outputs, dim=1)), the pixel agreement of the arg-max channel with the
# mask), the validation every 5 epochs and the print lines "Epoch N Train loss: ... Train acc ..." / "Val loss: ...
# val acc: ...". As in the report, the repository's nn.CrossEntropyLoss() is replaced by nn.BCELoss() while the
# network keeps its two output channels: the outputs go through a sigmoid and the 0/1 mask is broadcast to both
# channels so that the shapes match. A smaller U-Net (16-32-64 channels, padded convolutions) replaces CleanU_Net,
# 30 synthetic 64 x 64 "EM" images (Voronoi cells with dark 2-pixel membranes, textured cytoplasm, dark organelles
# inside the cells, noise; about 75% interior pixels) replace the 30 ISBI training images, 6 more are used for
# validation, 40 epochs instead of 2000, no augmentation, CPU instead of GPU.
import csv
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
S = 64

def em_image(r):
    yy, xx = np.mgrid[0:S, 0:S]
    k = r.randint(9, 15)
    seeds = r.rand(k, 2) * S
    d = np.sqrt((yy[None] - seeds[:, 0, None, None]) ** 2 + (xx[None] - seeds[:, 1, None, None]) ** 2)
    ds = np.sort(d, 0)
    mask = (ds[1] - ds[0] > 2.0).astype(np.int64)                       # 0 on the membranes between cells
    img = 0.62 + 0.08 * r.randn(k)[d.argmin(0)]                          # cell-specific cytoplasm brightness
    img = img + 0.05 * np.sin(xx / r.uniform(1.5, 3)) * np.cos(yy / r.uniform(1.5, 3))
    for _ in range(r.randint(3, 7)):                                     # dark organelles (labelled interior)
        cy, cx, rad = r.rand() * S, r.rand() * S, r.uniform(1.5, 3.5)
        img[((yy - cy) ** 2 + (xx - cx) ** 2 < rad ** 2) & (mask == 1)] = 0.28 + 0.05 * r.rand()
    img[mask == 0] = 0.22
    img = img + r.normal(0, 0.09, (S, S))
    return np.clip(img, 0, 1).astype(np.float32), mask

r = np.random.RandomState(3)
train_set = [em_image(r) for _ in range(30)]; val_set = [em_image(r) for _ in range(6)]
MEAN, STD = np.mean([i for i, _ in train_set]), np.std([i for i, _ in train_set])

def loader(data, batch_size, shuffle):
    idx = np.random.permutation(len(data)) if shuffle else np.arange(len(data))
    for s in range(0, len(idx), batch_size):
        b = [data[i] for i in idx[s:s + batch_size]]
        yield (torch.tensor(np.stack([(x - MEAN) / STD for x, _ in b]))[:, None], torch.tensor(np.stack([m for _, m in b])))

class CleanU_Net(nn.Module):
    def __init__(self, in_channels=1, out_channels=2):
        super().__init__()
        blk = lambda i, o: nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(),
                                         nn.Conv2d(o, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU())
        self.d1, self.d2, self.d3 = blk(in_channels, 16), blk(16, 32), blk(32, 64)
        self.u2 = nn.ConvTranspose2d(64, 32, 2, 2); self.c2 = blk(64, 32)
        self.u1 = nn.ConvTranspose2d(32, 16, 2, 2); self.c1 = blk(32, 16)
        self.out = nn.Conv2d(16, out_channels, 1)
    def forward(self, x):
        x1 = self.d1(x); x2 = self.d2(F.max_pool2d(x1, 2)); x3 = self.d3(F.max_pool2d(x2, 2))
        y = self.c2(torch.cat([self.u2(x3), x2], 1)); y = self.c1(torch.cat([self.u1(y), x1], 1))
        return self.out(y)

def accuracy_check_for_batch(masks, predictions, batch_size):
    total_acc = 0
    for index in range(batch_size):
        total_acc += np.sum(np.equal(masks[index].numpy(), predictions[index].numpy())) / masks[index].numel()
    return total_acc / batch_size

bce = nn.BCELoss()
def criterion(outputs, masks):                      # nn.BCELoss() on the two-channel output
    return bce(torch.sigmoid(outputs), masks[:, None].expand_as(outputs).float())

def train_model(model, data_train, criterion, optimizer):
    model.train()
    for batch, (images, masks) in enumerate(data_train):
        outputs = model(images)
        loss = criterion(outputs, masks)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

def get_loss_train(model, data_train, criterion):
    model.eval()
    total_acc = 0; total_loss = 0
    for batch, (images, masks) in enumerate(data_train):
        with torch.no_grad():
            outputs = model(images)
            loss = criterion(outputs, masks)
            preds = torch.argmax(outputs, dim=1).float()
            acc = accuracy_check_for_batch(masks.cpu(), preds.cpu(), images.size()[0])
            total_acc = total_acc + acc
            total_loss = total_loss + loss.cpu().item()
    return total_acc / (batch + 1), total_loss / (batch + 1)

model = CleanU_Net(in_channels=1, out_channels=2)
optimizer = torch.optim.RMSprop(model.parameters(), lr=0.001)
epoch_start, epoch_end = 0, 40
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'train_loss', 'train_acc', 'val_loss', 'val_acc'])
print("Initializing Training!")
for i in range(epoch_start, epoch_end):
    train_model(model, loader(train_set, 2, True), criterion, optimizer)
    train_acc, train_loss = get_loss_train(model, loader(train_set, 2, False), criterion)
    print('Epoch', str(i + 1), 'Train loss:', train_loss, "Train acc", train_acc)
    row = [i + 1, round(train_loss, 6), round(train_acc, 6), '', '']
    if (i + 1) % 5 == 0:
        val_acc, val_loss = get_loss_train(model, loader(val_set, 1, False), criterion)
        print('Val loss:', val_loss, "val acc:", val_acc)
        row[3:] = [round(val_loss, 6), round(val_acc, 6)]
    wr.writerow(row); f.flush()
f.close()
