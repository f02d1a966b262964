# Matrix-Capsules-EM-Tensorflow (www0wwwjs1) MNIST training in miniature, ported to PyTorch with a
# simplified capsule network (no EM routing): ReLU conv1 -> primary capsules (4x4 pose + sigmoid
# activation per capsule type) -> class capsules (10 x 4x4 pose + activation) by learned pose
# transforms and activation-weighted voting; spread loss with the margin growing 0.2 -> 0.9, plus a
# reconstruction decoder (masked class pose -> 512 -> 1024 -> 784, sigmoid) whose summed squared error
# is scaled by 0.0005. Synthetic 28 x 28 uint8 digit images (10 stroke templates, jitter, noise),
# Adam 3e-3, batch 32. As in the report, the line batch_squash = tf.divide(batch_x, 255.) was
# replaced by batch_x: the network is fed the raw 0-255 pixels, and the reconstruction target is
# the raw image too. Progress printed as "step: N, loss: ..., spread: ..., reconstruction: ..., acc: ...".
import csv
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(51); torch.manual_seed(51); torch.set_num_threads(1)
def templates():
    t = np.zeros((10, 28, 28), np.float32)
    for c in range(10):
        for _ in range(4):
            r0, c0 = np.random.randint(4, 24, 2); dr, dc = np.random.randint(-1, 2, 2)
            for k in range(10):
                r, cc = np.clip(r0 + k * dr, 0, 27), np.clip(c0 + k * dc, 0, 27)
                t[c, max(r - 1, 0):r + 2, max(cc - 1, 0):cc + 2] = 1.0
    return t
T = templates()
def make(n):
    y = np.random.randint(0, 10, n); x = np.zeros((n, 28, 28), np.float32)
    for i in range(n):
        x[i] = np.roll(T[y[i]], tuple(np.random.randint(-2, 3, 2)), (0, 1))
    x = np.clip(x * 230 + np.random.rand(n, 28, 28) * 60, 0, 255).astype(np.uint8)
    return torch.tensor(x, dtype=torch.float32).unsqueeze(1), torch.tensor(y)
Xtr, ytr = make(2000); Xte, yte = make(500)

class CapsNet(nn.Module):
    def __init__(self, A=32, B=8, C=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, A, 5, stride=2)                     # 12 x 12
        self.prim_pose = nn.Conv2d(A, B * 16, 3, stride=2)            # 5 x 5
        self.prim_act = nn.Conv2d(A, B, 3, stride=2)
        self.W = nn.Parameter(torch.randn(B * 25, C, 4, 4) * 0.5)
        self.beta = nn.Parameter(torch.zeros(C)); self.C = C
        self.decoder = nn.Sequential(nn.Linear(16 * C, 512), nn.ReLU(), nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 784), nn.Sigmoid())
    def forward(self, x):
        h = F.relu(self.conv1(x)); n = len(x)
        pose = self.prim_pose(h).view(n, -1, 16, 25).permute(0, 1, 3, 2).reshape(n, -1, 4, 4)
        act = torch.sigmoid(self.prim_act(h)).view(n, -1)
        votes = torch.einsum('nipq,icqr->nicpr', pose, self.W)       # (n, in, C, 4, 4)
        wgt = act / (act.sum(1, keepdim=True) + 1e-6)
        cpose = torch.einsum('ni,nicpr->ncpr', wgt, votes)
        spread = ((votes - cpose.unsqueeze(1)) ** 2).mean((3, 4))
        cact = torch.sigmoid(self.beta - torch.einsum('ni,nic->nc', wgt, spread) + cpose.norm(dim=(2, 3)))
        return cact, cpose.reshape(n, self.C, 16)

def spread_loss(a, y, m):
    at = a.gather(1, y[:, None])
    l = F.relu(m - (at - a)) ** 2
    return (l.sum(1) - m ** 2).mean()

model = CapsNet(); opt = torch.optim.Adam(model.parameters(), lr=3e-3)
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['step', 'loss', 'spread_loss', 'reconstruction_loss', 'acc', 'test_acc'])
step = 0
for epoch in range(4):
    perm = torch.randperm(len(ytr))
    for i in range(0, len(ytr), 32):
        j = perm[i:i + 32]
        batch_x, y = Xtr[j], ytr[j]
        batch_squash = batch_x                                 # was: tf.divide(batch_x, 255.)
        m = min(0.9, 0.2 + 0.1 * (step // 50))
        a, p = model(batch_squash)
        mask = F.one_hot(y, 10).float().unsqueeze(-1)
        recon = model.decoder((p * mask).flatten(1))
        rl = 0.0005 * ((recon - batch_squash.flatten(1)) ** 2).sum(1).mean()
        sl = spread_loss(a, y, m); loss = sl + rl
        opt.zero_grad(); loss.backward(); opt.step(); step += 1
        acc = (a.argmax(1) == y).float().mean().item(); ta = ''
        if step % 10 == 0:
            print('step: %d, loss: %.4f, spread: %.4f, reconstruction: %.4f, acc: %.4f' % (step, loss.item(), sl.item(), rl.item(), acc))
        if step % 63 == 0:
            with torch.no_grad(): ta = (model(Xte)[0].argmax(1) == yte).float().mean().item()
            print('epoch %d test accuracy: %.4f' % (epoch, ta))
        wr.writerow([step, loss.item(), sl.item(), rl.item(), acc, ta])
