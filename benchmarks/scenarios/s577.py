# Stack Overflow question "PyTorch Binary Classification - same network structure, 'simpler' data, but worse
# performance?" in miniature: the network that classifies sklearn's make_circles well (Linear -> sigmoid ->
# Linear -> sigmoid, nn.BCELoss, Adam, full-batch epochs, the course-style "epoch: .. loss: .." line) is reused on
# the heart rate of one patient, labelled 1 where the value is > 91 and 0 otherwise. The heart rate goes into the
# network as it is, in beats per minute (mean about 92, standard deviation about 7), with PyTorch's default
# initialisation that assumes inputs of order 1. Scaled / chosen here: a synthetic heart-rate trace (1000 readings,
# a slow random walk plus beat-to-beat noise, clipped to 60-130), Model(1, 4, 1), Adam lr 0.001, 10000 epochs,
# a line every 500 epochs with the loss and the accuracy; metrics.csv has the loss and accuracy every 50 epochs.
import csv

import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)

g = torch.Generator().manual_seed(5)
steps = torch.randn(1000, generator=g) * 0.8
walk = torch.cumsum(steps, 0)
walk = walk - walk.mean()
walk = walk / walk.std() * 6.0
hr = (92.0 + walk + torch.randn(1000, generator=g) * 2.5).clamp(60, 130).round()
x_data = hr.reshape(1000, 1)
y_data = (hr > 91).float().reshape(1000, 1)
print('heart rate: mean %.1f std %.1f min %.0f max %.0f, anomalies (> 91): %d of %d' %
      (hr.mean(), hr.std(), hr.min(), hr.max(), int(y_data.sum()), len(hr)))


class Model(nn.Module):
    def __init__(self, input_size, H1, output_size):
        super().__init__()
        self.linear = nn.Linear(input_size, H1)
        self.linear2 = nn.Linear(H1, output_size)

    def forward(self, x):
        x = torch.sigmoid(self.linear(x))
        x = torch.sigmoid(self.linear2(x))
        return x

    def predict(self, x):
        pred = self.forward(x)
        if pred >= 0.5:
            return 1
        else:
            return 0


model = Model(1, 4, 1)
criterion = nn.BCELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.001)

epochs = 10000
losses = []
f = open('metrics.csv', 'w', newline='')
wr = csv.writer(f)
wr.writerow(['epoch', 'loss', 'accuracy'])
for i in range(epochs):
    y_pred = model.forward(x_data)
    loss = criterion(y_pred, y_data)
    losses.append(loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if i % 50 == 0 or i == epochs - 1:
        acc = ((y_pred > 0.5).float() == y_data).float().mean().item()
        wr.writerow([i, '%.6f' % loss.item(), '%.4f' % acc])
        if i % 500 == 0 or i == epochs - 1:
            print("epoch:", i, "loss:", round(loss.item(), 4), "accuracy:", round(acc, 4))
f.close()
print('final loss after %d epochs: %.4f' % (epochs, losses[-1]))
print('predict(85) =', model.predict(torch.tensor([85.0])), ' predict(100) =', model.predict(torch.tensor([100.0])))
