import torch
import torch.nn as nn

extractor = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten())
for p in extractor.parameters():
    p.requires_grad = False  # expect: frozen_params=[]
images, labels = torch.randn(256, 3, 16, 16), torch.randint(0, 4, (256,))
with torch.no_grad():
    features = extractor(images)

head = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 4))
optimizer = torch.optim.Adam(head.parameters(), lr=1e-3)
for epoch in range(3):
    for i in range(0, 256, 32):
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(head(features[i:i + 32]), labels[i:i + 32])
        loss.backward()
        optimizer.step()

# (bottleneck features: the frozen extractor runs once under no_grad and its outputs are the head's data;
# the head, the model the loss trains, has nothing frozen)
# expect-not: frozen_weights
# expect-detail: frozen_params: outside the model the loss trains (head)
