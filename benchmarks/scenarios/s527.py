# fregu856/deeplabv3 in miniature: train.py (DeepLabV3 trained with nn.CrossEntropyLoss on label images, Adam lr 1e-4
# with add_weight_decay(l2_value=0.0001), batch_size = 3, the "######## NEW EPOCH ########" / "epoch: %d/%d" /
# "train loss: %g" / "val loss: %g" prints) moved to a custom data set as in the report: the number of classes set in
# the model, the class-weights file dropped (plain nn.CrossEntropyLoss()), and the data and label images put in the
# Cityscapes folder layout. The custom label images store every class as a grey value of its own (class 1 is pixel
# value 78, as in the report; the background is 0) instead of the class index that Cityscapes' trainId label images
# hold, and DatasetTrain passes the label image through unchanged. Scaled down: a small stride-8 ResNet-like
# backbone with ASPP (1x1, two dilated 3x3 branches, image pooling) instead of ResNet18-OS8 DeepLabV3, 60 training and
# 15 validation synthetic 64 x 64 scenes with regions of 8 classes (colour and texture per class) instead of street
# scenes, CPU. metrics.csv has the train and val loss per epoch.
import csv
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
num_classes = 8
num_epochs = 6
batch_size = 3
learning_rate = 0.0001
LABEL_GREY = [0, 78, 106, 130, 154, 178, 202, 226]          # grey value of each class in the custom label PNGs

rs = np.random.RandomState(3)
colours = rs.uniform(0, 1, (num_classes, 3)).astype(np.float32); freqs = rs.uniform(0.2, 1.2, num_classes)
def scene(r, H=64):
    cls = np.zeros((H, H), np.int64)
    for _ in range(r.randint(3, 7)):
        c = r.randint(1, num_classes); y0, x0 = r.randint(0, H - 12, 2); h, w = r.randint(10, 34, 2)
        cls[y0:y0 + h, x0:x0 + w] = c
    yy, xx = np.mgrid[0:H, 0:H]
    img = colours[cls].transpose(2, 0, 1) * (0.8 + 0.2 * np.sin(freqs[cls] * (xx + yy)))[None]
    img = img + r.normal(0, 0.15, img.shape)
    label_img = np.array(LABEL_GREY, np.uint8)[cls]               # what the custom label PNG holds
    return img.astype(np.float32), label_img

class DatasetTrain(torch.utils.data.Dataset):
    def __init__(self, n, seed):
        r = np.random.RandomState(seed); self.items = [scene(r) for _ in range(n)]
    def __len__(self): return len(self.items)
    def __getitem__(self, i):
        img, label_img = self.items[i]
        return torch.from_numpy(img), torch.from_numpy(label_img)

class ASPP(nn.Module):
    def __init__(self, cin, num_classes, c=32):
        super().__init__()
        self.conv_1x1_1 = nn.Conv2d(cin, c, 1); self.bn_1 = nn.BatchNorm2d(c)
        self.conv_3x3_1 = nn.Conv2d(cin, c, 3, padding=2, dilation=2); self.bn_2 = nn.BatchNorm2d(c)
        self.conv_3x3_2 = nn.Conv2d(cin, c, 3, padding=4, dilation=4); self.bn_3 = nn.BatchNorm2d(c)
        self.conv_1x1_2 = nn.Conv2d(cin, c, 1); self.bn_4 = nn.BatchNorm2d(c)
        self.conv_1x1_3 = nn.Conv2d(4 * c, c, 1); self.bn_5 = nn.BatchNorm2d(c)
        self.conv_1x1_4 = nn.Conv2d(c, num_classes, 1)
    def forward(self, f):
        h, w = f.shape[2:]
        a = F.relu(self.bn_1(self.conv_1x1_1(f))); b = F.relu(self.bn_2(self.conv_3x3_1(f)))
        c = F.relu(self.bn_3(self.conv_3x3_2(f)))
        img = F.interpolate(F.relu(self.bn_4(self.conv_1x1_2(F.adaptive_avg_pool2d(f, 1)))), size=(h, w), mode='bilinear')
        return self.conv_1x1_4(F.relu(self.bn_5(self.conv_1x1_3(torch.cat([a, b, c, img], 1)))))

class DeepLabV3(nn.Module):
    def __init__(self):
        super().__init__()
        self.num_classes = num_classes
        self.resnet = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.ReLU(),
                                    nn.Conv2d(16, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.ReLU(),
                                    nn.Conv2d(32, 48, 3, 2, 1), nn.BatchNorm2d(48), nn.ReLU(),
                                    nn.Conv2d(48, 48, 3, 1, 2, dilation=2), nn.BatchNorm2d(48), nn.ReLU())
        self.aspp = ASPP(48, self.num_classes)
    def forward(self, x):
        h, w = x.shape[2:]
        return F.interpolate(self.aspp(self.resnet(x)), size=(h, w), mode='bilinear')

def add_weight_decay(net, l2_value, skip_list=()):
    decay, no_decay = [], []
    for name, param in net.named_parameters():
        if not param.requires_grad: continue
        (no_decay if len(param.shape) == 1 or name in skip_list else decay).append(param)
    return [{'params': no_decay, 'weight_decay': 0.0}, {'params': decay, 'weight_decay': l2_value}]

network = DeepLabV3()
train_dataset, val_dataset = DatasetTrain(60, 1), DatasetTrain(15, 2)
num_train_batches = int(len(train_dataset) / batch_size); num_val_batches = int(len(val_dataset) / batch_size)
print("num_train_batches:", num_train_batches); print("num_val_batches:", num_val_batches)
train_loader = torch.utils.data.DataLoader(dataset=train_dataset, batch_size=batch_size, shuffle=True, num_workers=0)
val_loader = torch.utils.data.DataLoader(dataset=val_dataset, batch_size=batch_size, shuffle=False, num_workers=0)
params = add_weight_decay(network, l2_value=0.0001)
optimizer = torch.optim.Adam(params, lr=learning_rate)
loss_fn = nn.CrossEntropyLoss()

f = open('metrics.csv', 'w', newline=''); w = csv.writer(f); w.writerow(['epoch', 'train_loss', 'val_loss']); f.flush()
for epoch in range(num_epochs):
    print("###########################"); print("######## NEW EPOCH ########"); print("###########################")
    print("epoch: %d/%d" % (epoch + 1, num_epochs))
    network.train(); batch_losses = []
    for step, (imgs, label_imgs) in enumerate(train_loader):
        label_imgs = label_imgs.type(torch.LongTensor)
        outputs = network(imgs)
        loss = loss_fn(outputs, label_imgs)
        batch_losses.append(loss.item())
        optimizer.zero_grad(); loss.backward(); optimizer.step()
    train_loss = np.mean(batch_losses); print("train loss: %g" % train_loss); print("####")
    network.eval(); batch_losses = []
    with torch.no_grad():
        for step, (imgs, label_imgs) in enumerate(val_loader):
            batch_losses.append(loss_fn(network(imgs), label_imgs.type(torch.LongTensor)).item())
    val_loss = np.mean(batch_losses); print("val loss: %g" % val_loss)
    w.writerow([epoch + 1, round(float(train_loss), 5), round(float(val_loss), 5)]); f.flush()
f.close()
