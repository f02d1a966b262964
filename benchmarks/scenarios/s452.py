# BVLC/caffe GoogLeNet-style training in miniature, ported to PyTorch: a small inception-like
# classifier (stem convolutions + two inception blocks + global average pooling + fc, ReLU, no batch
# norm, "xavier" weights and constant bias 0.2 as in bvlc_googlenet's train_val.prototxt) on 10
# classes of synthetic 32 x 32 RGB images (3200 training, 640 test), Caffe-style input transform
# (raw 0-255 pixels minus mean_value 104/117/123, no scaling), SoftmaxWithLoss
# (-log(max(p_label, FLT_MIN))), solver base_lr 0.01, momentum 0.9, weight_decay 0.0002,
# lr_policy "step" (gamma 0.96 every 320 iterations), batch 32, 240 iterations, a "display: 20"
# loss line and a test pass (loss1/top-1) every 60 iterations as in Caffe's log.
import time, csv
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(3); torch.manual_seed(3); torch.set_num_threads(1)
K, N_TR, N_TE = 10, 3200, 640
protos = np.random.uniform(40, 215, (K, 3, 8, 8))
def make(n):
    y = np.random.randint(0, K, n)
    img = np.repeat(np.repeat(protos[y], 4, 2), 4, 3) + np.random.randn(n, 3, 32, 32) * 30
    return np.clip(img, 0, 255).astype(np.float32), y
xtr, ytr = make(N_TR); xte, yte = make(N_TE)
mean = np.array([104, 117, 123], np.float32).reshape(1, 3, 1, 1)
xtr = torch.tensor(xtr - mean); xte = torch.tensor(xte - mean); ytr = torch.tensor(ytr); yte = torch.tensor(yte)

class Inception(nn.Module):
    def __init__(self, cin, c1, c3r, c3, c5r, c5, cp):
        super().__init__()
        self.b1 = nn.Conv2d(cin, c1, 1)
        self.b3 = nn.Sequential(nn.Conv2d(cin, c3r, 1), nn.ReLU(), nn.Conv2d(c3r, c3, 3, padding=1))
        self.b5 = nn.Sequential(nn.Conv2d(cin, c5r, 1), nn.ReLU(), nn.Conv2d(c5r, c5, 5, padding=2))
        self.bp = nn.Sequential(nn.MaxPool2d(3, 1, 1), nn.Conv2d(cin, cp, 1))
    def forward(self, x):
        return F.relu(torch.cat([self.b1(x), self.b3(x), self.b5(x), self.bp(x)], 1))

net = nn.Sequential(nn.Conv2d(3, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                    nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                    Inception(64, 32, 32, 48, 8, 16, 16), Inception(112, 48, 48, 64, 12, 24, 24),
                    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(160, K))
for m in net.modules():
    if isinstance(m, (nn.Conv2d, nn.Linear)):
        nn.init.xavier_uniform_(m.weight); nn.init.constant_(m.bias, 0.2)
FLT_MIN = float(np.finfo(np.float32).tiny)
def softmax_with_loss(logits, y):
    p = F.softmax(logits, 1).gather(1, y[:, None]).squeeze(1)
    return -torch.log(torch.clamp(p, min=FLT_MIN)).mean()

opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9, weight_decay=0.0002)
sched = torch.optim.lr_scheduler.StepLR(opt, 320, 0.96)
def test(it):
    net.eval(); correct = 0; tl = 0.0
    with torch.no_grad():
        for b in range(0, N_TE, 64):
            out = net(xte[b:b + 64]); tl += softmax_with_loss(out, yte[b:b + 64]).item() * len(out)
            correct += (out.argmax(1) == yte[b:b + 64]).sum().item()
    print(f'I1112 solver.cpp:330] Iteration {it}, Testing net (#0)')
    print(f'I1112 solver.cpp:397]     Test net output #0: loss1/top-1 = {correct / N_TE:g}')
    print(f'I1112 solver.cpp:397]     Test net output #1: loss1/loss1 = {tl / N_TE:g} (* 1 = {tl / N_TE:g} loss)', flush=True)
    net.train(); return correct / N_TE
print('I1112 caffe.cpp:248] Starting Optimization')
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f); wr.writerow(['iteration', 'loss', 'lr', 'test_top1'])
acc = test(0); t0 = time.time(); run = []
for it in range(240):
    idx = torch.randint(0, N_TR, (32,))
    loss = softmax_with_loss(net(xtr[idx]), ytr[idx])
    opt.zero_grad(); loss.backward(); opt.step(); sched.step()
    run.append(loss.item()); run = run[-20:]
    if it % 20 == 0:
        sm = sum(run) / len(run)
        print(f'I1112 solver.cpp:218] Iteration {it} ({20 / max(time.time() - t0, 1e-6):.4g} iter/s), loss = {sm:g}')
        print(f'I1112 solver.cpp:237]     Train net output #0: loss1/loss1 = {loss.item():g} (* 1 = {loss.item():g} loss)')
        print(f'I1112 sgd_solver.cpp:105] Iteration {it}, lr = {opt.param_groups[0]["lr"]:g}', flush=True); t0 = time.time()
        wr.writerow([it, loss.item(), opt.param_groups[0]['lr'], acc]); f.flush()
    if (it + 1) % 60 == 0:
        acc = test(it + 1)
