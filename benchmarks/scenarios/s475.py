# ayu-22/BPPNet-Back-Projected-Pyramid-Network Single_Image_Dehazing.ipynb in miniature: the DU_Net
# wrapper with a UNet generator (conv-BatchNorm-ReLU(inplace) blocks applied twice in a row here
# instead of four times, the outputs concatenated and passed through a pyramid of convolutions with
# kernel sizes 3-11, InstanceNorm, ReLU, 1x1 conv and sigmoid), a spectral-norm discriminator with
# LeakyReLU(0.2, inplace=True) and a sigmoid output, the notebook's AdversarialLoss(type='hinge')
# (-log(outputs) for real, -log(1 - outputs) for fake), MSE and SSIM losses (the pretrained VGG19
# content loss is left out), Adam lr 0.00001 for both networks, process() computing the
# discriminator loss and the generator loss from the same forward pass, and backward() doing
# dis_loss.backward(retain_graph=True); dis_optimizer.step(); unet_loss.backward(); unet_optimizer.step().
# Synthetic hazy / clear 64 x 64 image pairs (YCrCb-like 3 channels) replace the NTIRE crops, batch 2.
import csv
from math import exp
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F3
from collections import OrderedDict
from torch.utils.data import DataLoader

np.random.seed(2); torch.manual_seed(2); torch.set_num_threads(1)

class UNet(nn.Module):
    def __init__(self, in_channels=3, out_channels=3, init_features=8):
        super(UNet, self).__init__()
        features = init_features
        self.encoder1 = UNet._block(in_channels, features, name="enc1")
        self.pool1 = nn.MaxPool2d(kernel_size=2, stride=2)
        self.encoder2 = UNet._block(features, features * 2, name="enc2")
        self.pool2 = nn.MaxPool2d(kernel_size=2, stride=2)
        self.bottleneck = UNet._block(features * 2, features * 4, name="bottleneck")
        self.upconv2 = nn.ConvTranspose2d(features * 4, features * 2, kernel_size=2, stride=2)
        self.decoder2 = UNet._block((features * 2) * 2, features * 2, name="dec2")
        self.upconv1 = nn.ConvTranspose2d(features * 2, features, kernel_size=2, stride=2)
        self.decoder1 = UNet._block(features * 2, features, name="dec1")
        self.conv = nn.Conv2d(in_channels=features, out_channels=out_channels, kernel_size=1)
        self.conv_1 = nn.Conv2d(in_channels=64, out_channels=out_channels, kernel_size=1)
        self.pyramids = nn.ModuleList([nn.Sequential(
            nn.Conv2d(in_channels=6, out_channels=16, kernel_size=k, padding=k // 2),
            nn.InstanceNorm2d(16, track_running_stats=False), nn.ReLU(True)) for k in (3, 5, 7, 11)])

    def unet_pass(self, x):
        enc1 = self.encoder1(x)
        enc2 = self.encoder2(self.pool1(enc1))
        bottleneck = self.bottleneck(self.pool2(enc2))
        dec2 = self.decoder2(torch.cat((self.upconv2(bottleneck), enc2), dim=1))
        dec1 = self.decoder1(torch.cat((self.upconv1(dec2), enc1), dim=1))
        return self.conv(dec1)

    def forward(self, x):
        coonv1_1 = self.unet_pass(x)          # block1
        coonv1_2 = self.unet_pass(coonv1_1)   # block2
        concat = torch.cat((coonv1_1, coonv1_2), dim=1)
        concat_py = torch.cat([p(concat) for p in self.pyramids], dim=1)
        return torch.sigmoid(self.conv_1(concat_py))

    @staticmethod
    def _block(in_channels, features, name):
        return nn.Sequential(OrderedDict([
            (name + "conv1", nn.Conv2d(in_channels, features, kernel_size=3, padding=1, bias=False)),
            (name + "norm1", nn.BatchNorm2d(num_features=features)),
            (name + "relu1", nn.ReLU(inplace=True)),
            (name + "conv2", nn.Conv2d(features, features, kernel_size=3, padding=1, bias=False)),
            (name + "norm2", nn.BatchNorm2d(num_features=features)),
            (name + "relu2", nn.ReLU(inplace=True))]))

def spectral_norm(module, mode=True):
    if mode:
        return nn.utils.spectral_norm(module)
    return module

class Discriminator(nn.Module):
    def __init__(self, in_channels, use_sigmoid=True, use_spectral_norm=True):
        super().__init__()
        self.use_sigmoid = use_sigmoid
        self.conv1 = nn.Sequential(spectral_norm(nn.Conv2d(in_channels, 32, 4, 2, 1, bias=not use_spectral_norm), use_spectral_norm), nn.LeakyReLU(0.2, inplace=True))
        self.conv2 = nn.Sequential(spectral_norm(nn.Conv2d(32, 64, 4, 2, 1, bias=not use_spectral_norm), use_spectral_norm), nn.LeakyReLU(0.2, inplace=True))
        self.conv3 = nn.Sequential(spectral_norm(nn.Conv2d(64, 128, 4, 1, 1, bias=not use_spectral_norm), use_spectral_norm), nn.LeakyReLU(0.2, inplace=True))
        self.conv5 = nn.Sequential(spectral_norm(nn.Conv2d(128, 1, 4, 1, 1, bias=not use_spectral_norm), use_spectral_norm))
    def forward(self, x):
        conv1 = self.conv1(x); conv2 = self.conv2(conv1); conv3 = self.conv3(conv2); conv5 = self.conv5(conv3)
        outputs = conv5
        if self.use_sigmoid:
            outputs = torch.sigmoid(conv5)
        return outputs, [conv1, conv2, conv3, conv5]

class AdversarialLoss(nn.Module):
    def __init__(self, type='hinge', target_real_label=1.0, target_fake_label=0.0):
        super().__init__()
        self.type = type
        self.register_buffer('real_label', torch.tensor(target_real_label))
        self.register_buffer('fake_label', torch.tensor(target_fake_label))
        self.criterion = nn.ReLU()
    def __call__(self, outputs, is_real, is_disc=None):
        if is_real:
            return -torch.log(outputs).mean()
        else:
            return -torch.log(1 - outputs).mean()

def gaussian(window_size, sigma):
    gauss = torch.Tensor([exp(-(x - window_size // 2) ** 2 / float(2 * sigma ** 2)) for x in range(window_size)])
    return gauss / gauss.sum()
def create_window(window_size, channel):
    _1D_window = gaussian(window_size, 1.5).unsqueeze(1)
    _2D_window = _1D_window.mm(_1D_window.t()).float().unsqueeze(0).unsqueeze(0)
    return _2D_window.expand(channel, 1, window_size, window_size).contiguous()
def _ssim(img1, img2, window, window_size, channel):
    mu1 = F3.conv2d(img1, window, padding=window_size // 2, groups=channel)
    mu2 = F3.conv2d(img2, window, padding=window_size // 2, groups=channel)
    mu1_sq, mu2_sq, mu1_mu2 = mu1.pow(2), mu2.pow(2), mu1 * mu2
    sigma1_sq = F3.conv2d(img1 * img1, window, padding=window_size // 2, groups=channel) - mu1_sq
    sigma2_sq = F3.conv2d(img2 * img2, window, padding=window_size // 2, groups=channel) - mu2_sq
    sigma12 = F3.conv2d(img1 * img2, window, padding=window_size // 2, groups=channel) - mu1_mu2
    C1 = 0.01 ** 2; C2 = 0.03 ** 2
    return (((2 * mu1_mu2 + C1) * (2 * sigma12 + C2)) / ((mu1_sq + mu2_sq + C1) * (sigma1_sq + sigma2_sq + C2))).mean()
class SSIM(torch.nn.Module):
    def __init__(self, window_size=11):
        super(SSIM, self).__init__(); self.window_size = window_size
    def forward(self, img1, img2):
        channel = img1.size(1)
        return _ssim(img1, img2, create_window(self.window_size, channel).type_as(img1), self.window_size, channel)

class DU_Net(nn.Module):
    def __init__(self, unet_input, unet_output, discriminator_input):
        super().__init__()
        unet = UNet(in_channels=unet_input, out_channels=unet_output)
        discriminator = Discriminator(in_channels=discriminator_input, use_sigmoid=True)
        self.add_module('unet', unet)
        self.add_module('discriminator', discriminator)
        self.add_module('criterion', nn.MSELoss())
        self.add_module('adversarial_loss', AdversarialLoss(type='hinge'))
        self.add_module('ssim_loss', SSIM(window_size=11))
        self.unet_optimizer = torch.optim.Adam(unet.parameters(), lr=float(0.00001), betas=(0.9, 0.999))
        self.dis_optimizer = torch.optim.Adam(params=discriminator.parameters(), lr=float(0.00001), betas=(0.9, 0.999))

    def process(self, haze_images, dehaze_images):
        self.unet_optimizer.zero_grad()
        self.dis_optimizer.zero_grad()
        unet_loss = 0
        dis_loss = 0
        outputs = self.unet(haze_images)
        # discriminator loss
        dis_real, dis_real_feat = self.discriminator(dehaze_images)
        dis_fake, dis_fake_feat = self.discriminator(outputs.detach())
        dis_real_loss = self.adversarial_loss(dis_real, True, True)
        dis_fake_loss = self.adversarial_loss(dis_fake, False, True)
        dis_loss += (dis_real_loss + dis_fake_loss) / 2
        # unet loss
        unet_fake, unet_fake_feat = self.discriminator(outputs)
        unet_gan_loss = self.adversarial_loss(unet_fake, True, False) * 0.7
        unet_loss += unet_gan_loss
        unet_criterion = self.criterion(outputs, dehaze_images)
        unet_loss += unet_criterion
        ssim_loss = self.ssim_loss(outputs, dehaze_images)
        ssim_loss = (1 - ssim_loss) * 2
        unet_loss += ssim_loss
        return unet_loss, dis_loss, unet_criterion, 1 - ssim_loss / 2

    def backward(self, unet_loss, dis_loss):
        dis_loss.backward(retain_graph=True)
        self.dis_optimizer.step()
        unet_loss.backward()
        self.unet_optimizer.step()

class Dataset(torch.utils.data.Dataset):
    def __init__(self, n=40):
        super().__init__()
        yy, xx = np.mgrid[0:64, 0:64] / 64.0
        self.clear, self.haze = [], []
        for _ in range(n):
            scene = np.stack([0.5 + 0.4 * np.sin(xx * np.random.uniform(2, 9) + yy * np.random.uniform(2, 9) + np.random.rand() * 6) for _ in range(3)]).astype(np.float32)
            t = np.float32(np.random.uniform(0.4, 0.8)) * np.exp(-yy.astype(np.float32))
            self.clear.append(torch.tensor(scene)); self.haze.append(torch.tensor(scene * t + 0.85 * (1 - t)))
    def __len__(self):
        return len(self.clear)
    def __getitem__(self, index):
        return self.haze[index], self.clear[index]

train_loader = DataLoader(dataset=Dataset(), batch_size=2, num_workers=0, drop_last=True, shuffle=False)
DUNet = DU_Net(3, 3, 3)
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'batch', 'unet_loss', 'dis_loss', 'mse', 'ssim']); f.flush()

def train(max_epochs):
    for epoch in range(max_epochs):
        i = 1
        mse_epoch = 0.0; ssim_epoch = 0.0; unet_epoch = 0.0
        for haze_images, dehaze_images, in train_loader:
            unet_loss, dis_loss, mse, ssim = DUNet.process(haze_images, dehaze_images)
            DUNet.backward(unet_loss, dis_loss)
            print('Epoch: ' + str(epoch + 1) + ' || Batch: ' + str(i) + " || unet loss: " + str(unet_loss.cpu().item()) + " || dis loss: " + str(dis_loss.cpu().item()) + " || mse: " + str(mse.cpu().item()) + " | ssim:" + str(ssim.cpu().item()), flush=True)
            wr.writerow([epoch + 1, i, unet_loss.item(), dis_loss.item(), mse.item(), ssim.item()]); f.flush()
            mse_epoch = mse_epoch + mse.cpu().item()
            ssim_epoch = ssim_epoch + ssim.cpu().item()
            unet_epoch = unet_epoch + unet_loss.cpu().item()
            i = i + 1
        print()
        mse_epoch = mse_epoch / i; ssim_epoch = ssim_epoch / i; unet_epoch = unet_epoch / i
        print("mse: + " + str(mse_epoch) + " | ssim: " + str(ssim_epoch) + " | unet:" + str(unet_epoch))
        print()

epochs = 3
train(epochs)
