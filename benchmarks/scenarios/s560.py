# Hsintien-Ng/idinvert_pytorch-reproduced issue "optimizer_D.zero_grad() missing?" in miniature: the encoder training
# of the PyTorch re-implementation of In-Domain GAN Inversion (training/training_loop_encoder.py before commit cf33025
# "fix zero_grad() on D"). A frozen StyleGAN-style generator G (synthesis only, eval mode), an encoder E that maps an
# image to the layer-wise latent codes [num_layers, w_space_dim], a frozen perceptual network F and a discriminator D.
# Every step: D is updated with GAN_loss (softplus) on real images and on the detached reconstructions, the "gradient
# div" term (div_loss_: squared gradient of D at the real images), and loss_ep_weight * loss_real^2; then E is updated
# with loss_pix_weight * MSE(x, x_rec) + loss_feat_weight * perceptual MSE + loss_adv_weight * softplus(-D(x_rec)).
# optimizer_E.zero_grad() is called before E_loss.backward(), but optimizer_D.zero_grad() is never called, so D's
# .grad keeps the sum of every D-loss gradient since the start (and E_loss.backward() also adds the adversarial
# gradient to D's parameters each step). Loss weights and the Adam settings (betas 0.9/0.99, eps 1e-8) are the ones in
# train_encoder.py (pix 1.0, feat 5e-5, adv 0.1; real 1.0, fake 1.0, gp 5.0, ep 0.001); the log line is the one the
# loop writes to its logger ("Epoch:000, Step:0000, lr:.., D-[real:.., fake:.., gp:..], G-[pix:.., feat:.., adv:..],
# loss:.."). Scaled down: 32 x 32 images made by G itself from random codes (so that the encoder can invert them),
# 4 x 16 latent codes, small conv networks for E, D and F (F's weights fixed and random instead of VGG16), 1600
# training and 64 validation images, batch 16, 3 epochs, learning rate 1e-4 for both networks instead of 1e-5, decay
# 0.8 every 300 steps. metrics.csv has the logged losses, D's gradient norm and the validation pixel loss.
import csv, math
import torch, torch.nn as nn, torch.nn.functional as Fn
import torch.autograd as autograd

torch.manual_seed(3); torch.set_num_threads(1)

NUM_LAYERS, W_DIM = 4, 16
encode_dim = [NUM_LAYERS, W_DIM]


class Synthesis(nn.Module):
    def __init__(self):
        super().__init__()
        self.const = nn.Parameter(torch.randn(1, 32, 4, 4))
        self.convs = nn.ModuleList([nn.Conv2d(32, 32, 3, padding=1) for _ in range(NUM_LAYERS)])
        self.styles = nn.ModuleList([nn.Linear(W_DIM, 32) for _ in range(NUM_LAYERS)])
        self.to_rgb = nn.Conv2d(32, 3, 1)

    def forward(self, w):
        x = self.const.expand(w.shape[0], -1, -1, -1)
        for i in range(NUM_LAYERS):
            if i > 0:
                x = Fn.interpolate(x, scale_factor=2, mode='nearest')
            s = self.styles[i](w[:, i]).unsqueeze(-1).unsqueeze(-1)
            x = Fn.leaky_relu(self.convs[i](x * (1 + 0.5 * s)), 0.2)
            x = x / (x.pow(2).mean(dim=(2, 3), keepdim=True) + 1e-8).sqrt()
        return torch.tanh(self.to_rgb(x))


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, 32, 3, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(32, 64, 3, 2, 1), nn.BatchNorm2d(64),
            nn.LeakyReLU(0.2), nn.Conv2d(64, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.LeakyReLU(0.2), nn.Flatten(),
            nn.Linear(64 * 16, NUM_LAYERS * W_DIM))

    def forward(self, x):
        return self.net(x)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, 32, 3, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(32, 64, 3, 2, 1), nn.LeakyReLU(0.2),
            nn.Conv2d(64, 64, 3, 2, 1), nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(64 * 16, 1))

    def forward(self, x):
        return self.net(x)


class Perceptual(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, 1, 1),
                                 nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 3, 1, 1), nn.ReLU())

    def forward(self, x):
        return self.net((x + 1) * 127.5)


def div_loss_(D, real_x, fake_x, p=2):
    x_ = real_x.requires_grad_(True)
    y_ = D(x_)
    grad = autograd.grad(outputs=y_, inputs=x_, grad_outputs=torch.ones_like(y_), create_graph=True,
                         retain_graph=True, only_inputs=True)[0]
    div = (grad * grad).sum(dim=1, keepdim=True).sum(dim=2, keepdim=True).sum(dim=3, keepdim=True)
    return torch.mean(div)


def GAN_loss(scores_out, real=True):
    if real:
        return torch.mean(Fn.softplus(-scores_out))
    return torch.mean(Fn.softplus(scores_out))


# frozen "pretrained" generator and the data it generates
G = Synthesis().eval()
for p in G.parameters():
    p.requires_grad_(False)
with torch.no_grad():
    train_x = torch.cat([G(torch.randn(200, NUM_LAYERS, W_DIM)) for _ in range(8)])
    val_x = G(torch.randn(64, NUM_LAYERS, W_DIM))

E = Encoder(); D = Discriminator(); F = Perceptual().eval()
for p in F.parameters():
    p.requires_grad_(False)
E.train(); D.train()

loss_pix_weight, loss_feat_weight, loss_adv_weight = 1.0, 0.00005, 0.1
loss_real_weight, loss_fake_weight, loss_gp_weight, loss_ep_weight = 1.0, 1.0, 5.0, 0.001
opt_args = dict(betas=(0.9, 0.99), eps=1e-8)
optimizer_E = torch.optim.Adam(E.parameters(), lr=1e-4, **opt_args)
optimizer_D = torch.optim.Adam(D.parameters(), lr=1e-4, **opt_args)
lr_scheduler_E = torch.optim.lr_scheduler.ExponentialLR(optimizer_E, gamma=0.8)
lr_scheduler_D = torch.optim.lr_scheduler.ExponentialLR(optimizer_D, gamma=0.8)
decay_step = 300
batch_size, max_epoch, log_every = 16, 3, 20

f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['step', 'epoch', 'lr', 'd_real', 'd_fake', 'd_gp', 'd_loss', 'd_grad_norm', 'pix', 'feat', 'adv',
             'e_loss', 'val_pix'])

global_step = 0
for epoch in range(max_epoch):
    perm = torch.randperm(train_x.shape[0])
    learning_rate = optimizer_E.param_groups[0]['lr']
    sums = dict(real=0., fake=0., gp=0., pix=0., feat=0., adv=0.); nb = 0
    for step in range(train_x.shape[0] // batch_size):
        E.train()
        x = train_x[perm[step * batch_size:(step + 1) * batch_size]].clone()
        z = E(x).view(batch_size, *encode_dim)
        x_rec = G(z)

        # optimizing D
        x_real = D(x)
        x_fake = D(x_rec.detach())
        loss_real = GAN_loss(x_real, real=True)
        loss_fake = GAN_loss(x_fake, real=False)
        loss_gp = div_loss_(D, x, x_rec.detach())
        log_message = f'D-[real:{loss_real.item():.3f}, fake:{loss_fake.item():.3f}, gp:{loss_gp.item():.3f}]'
        D_loss = loss_real_weight * loss_real + loss_fake_weight * loss_fake + loss_gp_weight * loss_gp + \
            loss_ep_weight * (loss_real * loss_real)
        D_loss.backward()
        d_grad_norm = math.sqrt(sum(float(p.grad.pow(2).sum()) for p in D.parameters()))
        optimizer_D.step()

        # optimizing E
        x = x.detach()
        loss_pix = torch.mean((x - x_rec) ** 2)
        log_message += f', G-[pix:{loss_pix.item():.3f}'
        x_feat = F(x); x_rec_feat = F(x_rec)
        loss_feat = torch.mean((x_feat - x_rec_feat) ** 2)
        log_message += f', feat:{loss_feat.item():.3f}'
        x_adv = D(x_rec)
        loss_adv = GAN_loss(x_adv, real=True)
        log_message += f', adv:{loss_adv.item():.3f}]'
        E_loss = loss_pix_weight * loss_pix + loss_feat_weight * loss_feat + loss_adv_weight * loss_adv
        log_message += f', loss:{E_loss.item():.3f}'
        optimizer_E.zero_grad()
        E_loss.backward()
        optimizer_E.step()

        for k, v in (('real', loss_real), ('fake', loss_fake), ('gp', loss_gp), ('pix', loss_pix),
                     ('feat', loss_feat), ('adv', loss_adv)):
            sums[k] += v.item()
        nb += 1
        val_pix = ''
        if step % log_every == 0:
            E.eval()
            with torch.no_grad():
                val_pix = float(torch.mean((val_x - G(E(val_x).view(-1, *encode_dim))) ** 2))
            print(f'Epoch:{epoch:03d}, Step:{step:04d}, lr:{learning_rate:.2e}, {log_message}, '
                  f'D grad norm:{d_grad_norm:.3f}, val pix:{val_pix:.4f}', flush=True)
        wr.writerow([global_step, epoch, learning_rate, round(loss_real.item(), 5), round(loss_fake.item(), 5),
                     round(loss_gp.item(), 5), round(D_loss.item(), 5), round(d_grad_norm, 5),
                     round(loss_pix.item(), 5), round(loss_feat.item(), 5), round(loss_adv.item(), 5),
                     round(E_loss.item(), 5), val_pix])
        global_step += 1
        if (global_step + 1) % decay_step == 0:
            lr_scheduler_E.step()
        if (global_step + 1) % decay_step == 0:
            lr_scheduler_D.step()
    print(f'Epoch: {epoch:03d}, lr: {learning_rate:.2e}, D-[real:{sums["real"] / nb:.3f}, '
          f'fake:{sums["fake"] / nb:.3f}, gp:{sums["gp"] / nb:.3f}], G-[pix:{sums["pix"] / nb:.3f}, '
          f'feat:{sums["feat"] / nb:.3f}, adv:{sums["adv"] / nb:.3f}]', flush=True)
f.close()
