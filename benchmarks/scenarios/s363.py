# Video action recognition in miniature, after pytorch-video-recognition's train.py (C3D on UCF101) run on Windows:
# synthetic 3x8x32x32 clips of 10 action classes (a blob moving in a class-specific direction), a small C3D-like
# 3-D CNN, CrossEntropyLoss, SGD lr 1e-3 momentum 0.9 weight decay 5e-4, StepLR stepped at the start of each
# epoch as in the script, batch 16. The dataset's labels come out of numpy as int32 (the default integer type on
# Windows: np.array(label_list) gives int32 there), and the training loop passes them straight to the criterion.
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
torch.set_num_threads(1)
rng = np.random.default_rng(365)
NCLS = 10


class VideoDataset(Dataset):
    def __init__(self, n):
        self.labels = np.array(rng.integers(0, NCLS, n), dtype=np.int32)  # np.array(...) on Windows -> int32
        self.clips = []
        for y in self.labels:
            clip = rng.normal(0, 0.1, (3, 8, 32, 32)).astype(np.float32)
            dy, dx = np.sin(2 * np.pi * y / NCLS), np.cos(2 * np.pi * y / NCLS)
            for t in range(8):
                cy, cx = int(16 + 2 * t * dy), int(16 + 2 * t * dx)
                clip[:, t, max(cy - 3, 0):cy + 3, max(cx - 3, 0):cx + 3] = 1.0
            self.clips.append(clip)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return torch.from_numpy(self.clips[i]), torch.from_numpy(np.array(self.labels[i]))


class C3D(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv3d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool3d((1, 2, 2)),
            nn.Conv3d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool3d(2),
            nn.Conv3d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool3d(2))
        self.fc = nn.Sequential(nn.Flatten(), nn.Linear(64 * 2 * 4 * 4, 256), nn.ReLU(), nn.Dropout(0.5), nn.Linear(256, num_classes))

    def forward(self, x):
        return self.fc(self.features(x))


print("Training C3D from scratch...")
model = C3D(NCLS)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9, weight_decay=5e-4)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.1)
print('Total params: %.2fM' % (sum(p.numel() for p in model.parameters()) / 1000000.0))
print('Training model on {} dataset...'.format('ucf101'))
train_dataloader = DataLoader(VideoDataset(480), batch_size=16, shuffle=True, num_workers=0)
val_dataloader = DataLoader(VideoDataset(96), batch_size=16, num_workers=0)
trainval_loaders = {'train': train_dataloader, 'val': val_dataloader}
for epoch in range(0, 20):
    for phase in ['train', 'val']:
        running_loss = 0.0
        running_corrects = 0.0
        if phase == 'train':
            scheduler.step()
            model.train()
        else:
            model.eval()
        for inputs, labels in trainval_loaders[phase]:
            optimizer.zero_grad()
            if phase == 'train':
                outputs = model(inputs)
            else:
                with torch.no_grad():
                    outputs = model(inputs)
            probs = nn.Softmax(dim=1)(outputs)
            preds = torch.max(probs, 1)[1]
            loss = criterion(outputs, labels)
            if phase == 'train':
                loss.backward()
                optimizer.step()
            running_loss += loss.item() * inputs.size(0)
            running_corrects += torch.sum(preds == labels.data)
        epoch_loss = running_loss / len(trainval_loaders[phase].dataset)
        epoch_acc = running_corrects.double() / len(trainval_loaders[phase].dataset)
        print("[{}] Epoch: {}/{} Loss: {} Acc: {}".format(phase, epoch + 1, 20, epoch_loss, epoch_acc))
