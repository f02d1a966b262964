# SRCNN (9-1-5) super-resolution, trained on 33x33 bicubic-upscaled sub-images -> 21x21 HR centres
import csv
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)
torch.set_num_threads(1)

image_size, label_size, scale = 33, 21, 3
batch_size = 64
learning_rate = 1e-4
epoch = 12


class SRCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 64, 9)
        self.conv2 = nn.Conv2d(64, 32, 1)
        self.conv3 = nn.Conv2d(32, 1, 5)
        for c in (self.conv1, self.conv2, self.conv3):
            nn.init.normal_(c.weight, std=1e-3)
            nn.init.zeros_(c.bias)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        return self.conv3(x)


def prepare_data(n, g):
    # smooth random "natural" textures in [0,1]
    base = torch.rand(n, 1, 9, 9, generator=g)
    hr = F.interpolate(base, size=(image_size, image_size), mode="bicubic", align_corners=False).clamp(0, 1)
    hr = (hr + 0.03 * torch.randn(hr.shape, generator=g)).clamp(0, 1)
    lr_img = F.interpolate(F.interpolate(hr, scale_factor=1 / scale, mode="bicubic", align_corners=False),
                           size=(image_size, image_size), mode="bicubic", align_corners=False)
    off = (image_size - label_size) // 2
    return lr_img, hr[:, :, off:off + label_size, off:off + label_size]


g = torch.Generator().manual_seed(0)
train_data, train_label = prepare_data(1200, g)
test_data, test_label = prepare_data(200, g)

model = SRCNN()
optim = torch.optim.SGD(model.parameters(), lr=learning_rate)

f = open("metrics.csv", "w", newline="")
wr = csv.writer(f)
wr.writerow(["step", "epoch", "train_loss", "val_loss", "val_psnr"])
counter = 0
for ep in range(epoch):
    batch_idxs = len(train_data) // batch_size
    for idx in range(batch_idxs):
        batch_images = train_data[idx * batch_size:(idx + 1) * batch_size]
        batch_labels = train_label[idx * batch_size:(idx + 1) * batch_size]
        counter += 1
        loss = torch.mean((batch_labels - model(batch_images)) ** 2)
        optim.zero_grad()
        loss.backward()
        optim.step()
        if counter % 10 == 0:
            with torch.no_grad():
                vl = torch.mean((test_label - model(test_data)) ** 2).item()
            wr.writerow([counter, ep, f"{loss.item():.6f}", f"{vl:.6f}", f"{10 * math.log10(1 / vl):.3f}"])
            print("Epoch: [%2d], step: [%2d], loss: [%.8f]" % ((ep + 1), counter, loss.item()))
f.close()
