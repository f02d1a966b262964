# trainval_net.py-style detector training loop in miniature: a tiny conv backbone with an
# objectness/box head on synthetic 3x64x64 images holding one bright box each. Each sample is
# "read from disk" in __getitem__ (simulated storage latency of about 6 ms per image plus a
# per-image decode/resize/normalise done in numpy), collated by a synchronous DataLoader.
import time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(3); np.random.seed(3); torch.set_num_threads(1)

class RoiDataset(Dataset):
    def __init__(self, n):
        rng = np.random.RandomState(0)
        self.boxes = []
        for _ in range(n):
            w, h = rng.randint(12, 28, 2); x, y = rng.randint(0, 64 - w), rng.randint(0, 64 - h)
            self.boxes.append((x, y, x + w, y + h))
        self.seeds = rng.randint(0, 2 ** 31, n)
    def __len__(self):
        return len(self.boxes)
    def __getitem__(self, i):
        time.sleep(0.006)                              # image read from network storage
        rng = np.random.RandomState(self.seeds[i])
        img = rng.rand(96, 96, 3).astype(np.float32) * 0.3   # "decode" at source resolution
        x1, y1, x2, y2 = self.boxes[i]
        big = np.kron(img[:64, :64], np.ones((1, 1, 1), np.float32))
        big[y1:y2, x1:x2] += 0.6
        big = (big - 0.4) / 0.25
        gt = torch.tensor(self.boxes[i], dtype=torch.float32) / 64.0
        return torch.from_numpy(big.transpose(2, 0, 1).copy()), gt

class TinyDet(nn.Module):
    def __init__(self):
        super().__init__()
        self.base = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(), nn.Conv2d(16, 32, 3, 2, 1), nn.ReLU(),
                                  nn.Conv2d(32, 32, 3, 2, 1), nn.ReLU())
        self.rpn_cls = nn.Conv2d(32, 1, 1)
        self.bbox = nn.Linear(32 * 64, 4)
    def forward(self, x):
        f = self.base(x)
        return self.rpn_cls(f), self.bbox(f.flatten(1))

ds = RoiDataset(1280)
loader = DataLoader(ds, batch_size=16, shuffle=True, num_workers=0)
net = TinyDet()
lr = 1e-3
optimizer = torch.optim.SGD(net.parameters(), lr=lr, momentum=0.9, weight_decay=1e-4)
disp_interval = 20
for epoch in range(1, 3):
    start = time.time(); data_time = 0.0; comp_time = 0.0; loss_temp = 0.0
    t_data = time.time()
    for step, (im_data, gt_boxes) in enumerate(loader):
        t_comp = time.time(); data_time += t_comp - t_data
        cls_map, box = net(im_data)
        centers = ((gt_boxes[:, :2] + gt_boxes[:, 2:]) / 2 * 8).long().clamp(0, 7)
        target = torch.zeros_like(cls_map)
        target[torch.arange(len(centers)), 0, centers[:, 1], centers[:, 0]] = 1
        rpn_loss_cls = F.binary_cross_entropy_with_logits(cls_map, target, pos_weight=torch.tensor(20.0))
        rpn_loss_box = F.smooth_l1_loss(box, gt_boxes)
        loss = rpn_loss_cls + 10 * rpn_loss_box
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        loss_temp += loss.item()
        comp_time += time.time() - t_comp
        if step % disp_interval == 0 and step > 0:
            end = time.time()
            loss_temp /= disp_interval
            print("[session 1][epoch %2d][iter %4d/%4d] loss: %.4f, lr: %.2e" % (epoch, step, len(loader), loss_temp, lr))
            print("\t\t\ttime cost: %f, data: %f, compute: %f (model busy %.0f%%)" % (
                end - start, data_time, comp_time, 100 * comp_time / (end - start)))
            print("\t\t\trpn_cls: %.4f, rpn_box: %.4f" % (rpn_loss_cls.item(), rpn_loss_box.item()))
            loss_temp = 0.0; start = time.time(); data_time = 0.0; comp_time = 0.0
        t_data = time.time()
