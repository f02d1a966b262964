# dreamgonfly/GAN-tutorial GAN.ipynb in miniature: the notebook's MNIST GAN (Generator 100 -> 256 ->
# 512 -> 1024 -> 784 with LeakyReLU(0.2, inplace=True) and Tanh; Discriminator 784 -> 1024 -> 512 ->
# 256 -> 1 with LeakyReLU(0.2, inplace=True), nn.Dropout(inplace=True) after each hidden layer and a
# Sigmoid; BCELoss; Adam lr 0.0002 betas (0.5, 0.999) for both; batch 60; the notebook's
# "Epoch: {epoch:<3d} D Loss: ... G Loss: ..." line per epoch). MNIST is replaced by 1200 synthetic
# 28 x 28 "digit" images in [-1, 1] (a few random strokes per class plus noise), torch.autograd.Variable
# and loss.data[0] are written in current PyTorch (tensors, loss.item()); the model code is unchanged.
import csv
import numpy as np
import torch, torch.nn as nn
from torch.optim import Adam

np.random.seed(1); torch.manual_seed(1); torch.set_num_threads(1)
protos = []
for c in range(10):
    im = np.zeros((28, 28), np.float32)
    for _ in range(3):
        r0, c0, r1, c1 = np.random.randint(4, 24, 4)
        for t in np.linspace(0, 1, 30):
            r, cc = int(r0 + t * (r1 - r0)), int(c0 + t * (c1 - c0)); im[r - 1:r + 2, cc - 1:cc + 2] = 1
    protos.append(im)
labels = np.random.randint(0, 10, 1200)
imgs = np.stack([np.roll(protos[l], np.random.randint(-2, 3), axis=1) for l in labels]) + 0.1 * np.random.randn(1200, 28, 28)
mnist = torch.tensor(np.clip(imgs, 0, 1) * 2 - 1, dtype=torch.float32).unsqueeze(1)

class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()
        self.main = nn.Sequential(
            nn.Linear(in_features=100, out_features=256),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(in_features=256, out_features=512),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(in_features=512, out_features=1024),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(in_features=1024, out_features=28*28),
            nn.Tanh())
    def forward(self, inputs):
        return self.main(inputs).view(-1, 1, 28, 28)
class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        self.main = nn.Sequential(
            nn.Linear(in_features=28*28, out_features=1024),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Dropout(inplace=True),
            nn.Linear(in_features=1024, out_features=512),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Dropout(inplace=True),
            nn.Linear(in_features=512, out_features=256),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Dropout(inplace=True),
            nn.Linear(in_features=256, out_features=1),
            nn.Sigmoid())
    def forward(self, inputs):
        inputs = inputs.view(-1, 28*28)
        return self.main(inputs)

G = Generator(); D = Discriminator()
criterion = nn.BCELoss()
G_optimizer = Adam(G.parameters(), lr=0.0002, betas=(0.5, 0.999))
D_optimizer = Adam(D.parameters(), lr=0.0002, betas=(0.5, 0.999))
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['epoch', 'D_loss', 'G_loss'])
for epoch in range(30):
    D_losses = []; G_losses = []
    perm = torch.randperm(len(mnist))
    for i in range(0, len(mnist), 60):
        real_data = mnist[perm[i:i + 60]]
        batch_size = real_data.size(0)
        target_real = torch.ones(batch_size, 1)
        target_fake = torch.zeros(batch_size, 1)
        D_result_from_real = D(real_data)
        D_loss_real = criterion(D_result_from_real, target_real)
        z = torch.randn((batch_size, 100))
        fake_data = G(z)
        D_result_from_fake = D(fake_data)
        D_loss_fake = criterion(D_result_from_fake, target_fake)
        D_loss = D_loss_real + D_loss_fake
        D.zero_grad()
        D_loss.backward()
        D_optimizer.step()
        D_losses.append(D_loss.item())
        z = torch.randn((batch_size, 100))
        fake_data = G(z)
        D_result_from_fake = D(fake_data)
        G_loss = criterion(D_result_from_fake, target_real)
        G.zero_grad()
        G_loss.backward()
        G_optimizer.step()
        G_losses.append(G_loss.item())
    message = "Epoch: {epoch:<3d} D Loss: {d_loss:<.6} G Loss: {g_loss:<.6}".format(
        epoch=epoch, d_loss=sum(D_losses)/len(D_losses), g_loss=sum(G_losses)/len(G_losses))
    print(message)
    wr.writerow([epoch, sum(D_losses)/len(D_losses), sum(G_losses)/len(G_losses)])
