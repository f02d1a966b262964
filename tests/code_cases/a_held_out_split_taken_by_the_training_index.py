import numpy as np
import torch
import torch.nn as nn

feats = np.random.rand(500, 8).astype(np.float32)
labels = (feats.sum(1) > 4).astype(np.int64)
order = np.random.permutation(500)
trainIdx, testIdx = order[:400], order[400:]
trainX, trainY = torch.tensor(feats[trainIdx]), torch.tensor(labels[trainIdx])
testX, testY = torch.tensor(feats[trainIdx]), torch.tensor(labels[trainIdx])  # expect: held_out_from_train_index=True
clf = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
sgd = torch.optim.SGD(clf.parameters(), lr=0.1)
for epoch in range(20):
    sgd.zero_grad()
    nn.functional.cross_entropy(clf(trainX), trainY).backward()
    sgd.step()
    with torch.no_grad():
        print(epoch, (clf(testX).argmax(1) == testY).float().mean().item())
