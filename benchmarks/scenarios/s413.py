# udacity deep-learning-v2-pytorch transfer-learning exercise in miniature: a small VGG-style
# feature extractor (conv blocks + AdaptiveAvgPool2d((7, 7)), 32 channels instead of 512) with a
# VGG16-style classifier (Linear(32*7*7, 256) -> ReLU -> Dropout -> Linear(256, 5)), trained on
# synthetic 3 x 100 x 111 images (the poster's images were 400 x 444), Adam, batch 1 as in the
# post, "Epoch: n \tTraining Loss: x" progress lines. The custom forward() passes the pooled
# feature map straight to the classifier without flattening it (x.view(x.size(0), -1) missing).
import csv
import numpy as np
import torch, torch.nn as nn

np.random.seed(396); torch.manual_seed(396); torch.set_num_threads(1)
X = torch.randn(40, 3, 100, 111); y = torch.randint(0, 5, (40,))
for i in range(40): X[i, y[i] % 3] += 0.5
print(X[:1].shape); print(X[1:2].shape)

class VGGish(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(nn.Linear(32 * 7 * 7, 256), nn.ReLU(), nn.Dropout(0.5), nn.Linear(256, 5))
    def forward(self, x):
        x = self.features(x)
        x = self.avgpool(x)
        x = self.classifier(x)          # feature map goes in as (1, 32, 7, 7)
        return x

model = VGGish()
for p in model.features.parameters(): p.requires_grad = False
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.classifier.parameters(), lr=0.001)
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['epoch', 'train_loss'])
for epoch in range(1, 4):
    train_loss = 0.0; model.train()
    for i in range(len(X)):
        data, target = X[i:i + 1], y[i:i + 1]
        optimizer.zero_grad()
        output = model(data)
        loss = criterion(output, target)
        loss.backward(); optimizer.step(); train_loss += loss.item()
    train_loss /= len(X)
    print('Epoch: {} \tTraining Loss: {:.6f}'.format(epoch, train_loss))
    wr.writerow([epoch, train_loss])
