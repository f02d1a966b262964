# chrischoy/SpatioTemporalSegmentation ScanNet voxel segmentation in miniature: lib/datasets/scannet.py
# reads its scene lists from DATA_PATH_FILE, train.py trains, validates every val_freq iterations and the
# best-val checkpoint is kept; here 48 training and 12 validation synthetic "scenes" of 120 voxels each
# (32-dim voxel features: noisy colour/geometry descriptors, 8 semantic classes with a fraction of noisy
# annotations, as in real ScanNet labels), a per-voxel MLP head (32 -> 512 -> 512 -> 8) standing in for
# the sparse Res16UNet, SGD lr 0.05 momentum 0.9 weight decay 1e-4, 2 scenes per batch, 1200 iterations,
# "===> Epoch[e](it/n): Loss ... LR: ... Score ..." every 60 iterations and a validation pass every
# 120 iterations ("Finished test. ... Loss ..., Score ..., mIOU ..."), then a final test on the val split.
# As in the repository after the refactor: DATA_PATH_FILE = {TRAIN: 'train.txt', VAL: 'trainval.txt',
# TRAINVAL: 'trainval.txt', TEST: 'val.txt'}, i.e. the validation done during training runs on
# train + val scenes.
import csv, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(423); torch.manual_seed(423); torch.set_num_threads(1)
C, NV, DF = 8, 120, 32
W = np.random.randn(DF, C)
def scene():
    x = np.random.randn(NV, DF).astype(np.float32)
    y = (x @ W + 2.5 * np.random.randn(NV, C)).argmax(1)      # ambiguous voxels / annotation noise
    return x, y
scenes = {'scene%04d_00' % i: scene() for i in range(60)}
names = sorted(scenes)
lists = {'train.txt': names[:48], 'val.txt': names[48:], 'trainval.txt': names}
DATA_PATH_FILE = {'train': 'train.txt', 'val': 'trainval.txt', 'trainval': 'trainval.txt', 'test': 'val.txt'}
def load(phase):
    fs = lists[DATA_PATH_FILE[phase]]
    print('Loading ScannetVoxelization2cmDataset %s: %s (%d scenes)' % (phase, DATA_PATH_FILE[phase], len(fs)))
    return [(torch.tensor(scenes[f][0]), torch.tensor(scenes[f][1])) for f in fs]
train_data, val_data = load('train'), load('val')

model = nn.Sequential(nn.Linear(DF, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, C))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)

def miou(pred, y):
    ious = [((pred == c) & (y == c)).sum().item() / max(((pred == c) | (y == c)).sum().item(), 1) for c in range(C)]
    return 100 * float(np.mean(ious))
def test(data, phase):
    model.eval(); t0 = time.time(); L, P, Y = 0.0, [], []
    with torch.no_grad():
        for x, y in data:
            o = model(x); L += F.cross_entropy(o, y).item(); P.append(o.argmax(1)); Y.append(y)
    P, Y = torch.cat(P), torch.cat(Y); model.train()
    loss, score, m = L / len(data), 100 * (P == Y).float().mean().item(), miou(P, Y)
    print('===> Start testing (%s)\nFinished test. Elapsed time: %.4f\nLoss %.3f\tScore %.3f\tmIOU %.3f' % (phase, time.time() - t0, loss, score, m))
    return loss, score, m

wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['iteration', 'loss', 'score', 'val_loss', 'val_score', 'val_miou'])
it, max_iter, n_ep, best = 0, 1200, len(train_data) // 2, 0.0
for epoch in range(1, 51):
    perm = np.random.permutation(len(train_data))
    for b in range(n_ep):
        batch = [train_data[j] for j in perm[2 * b:2 * b + 2]]
        x = torch.cat([s[0] for s in batch]); y = torch.cat([s[1] for s in batch])
        out = model(x); loss = F.cross_entropy(out, y)
        opt.zero_grad(); loss.backward(); opt.step(); it += 1
        score = 100 * (out.argmax(1) == y).float().mean().item()
        if it % 60 == 0:
            print('===> Epoch[%d](%d/%d): Loss %.4f\tLR: %.3e\tScore %.3f\tData time: 0.0001, Total iter time: 0.0040' % (epoch, it, max_iter, loss.item(), 0.05, score))
            wr.writerow([it, loss.item(), score, '', '', ''])
        if it % 120 == 0:
            vl, vs, vm = test(val_data, 'val')
            if vm > best:
                best = vm; print('Saving best val model: mIOU %.3f at iter %d' % (vm, it))
            wr.writerow([it, '', '', vl, vs, vm])
print('Training done. Best val mIOU %.3f' % best)
print('Loading ScannetVoxelization2cmDataset test: %s' % DATA_PATH_FILE['test'])
tl, ts, tm = test([(torch.tensor(scenes[f][0]), torch.tensor(scenes[f][1])) for f in lists['val.txt']], 'test')
wr.writerow([it, '', '', tl, ts, tm])
