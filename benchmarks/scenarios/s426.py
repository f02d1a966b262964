# Project-MONAI tutorials 3D classification (densenet_training_array-style) on a user's own two-class
# brain-scan data in miniature: 20 synthetic single-channel 16 x 16 x 16 volumes, 10 per class ("AD" and
# "DFT", a blob whose position/shape differs by class, plus noise), file names collected with glob from the
# two class folders (so the list is ordered AD..., DFT...), a small 3D CNN standing in for DenseNet121
# (spatial_dims=3, in_channels=1, out_channels=2), CrossEntropyLoss, Adam 1e-4 -> here 1e-3, batch 2,
# 25 epochs, the tutorial's console lines ("epoch n/25", "k/5, train_loss: ...", "epoch n average loss:
# ...", "current epoch: n current accuracy: ... best accuracy: ... at epoch ...") and val_interval 1.
# The split is written as in the notebook:
#     train_files = images[:10], train_labels = labels[:10]
#     val_files = images[-10:],  val_labels = labels[-10:]
# without shuffling the file list first.
import csv, glob
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(122); torch.manual_seed(122); torch.set_num_threads(1)
def volume(c):
    g = np.stack(np.meshgrid(*[np.arange(16)] * 3, indexing='ij')).astype(np.float32)
    ctr = np.array([5, 8, 8] if c == 0 else [10, 8, 8]) + np.random.randint(-1, 2, 3)
    r = ((g - ctr[:, None, None, None]) ** 2 / np.array([9, 16, 16] if c == 0 else [16, 9, 9])[:, None, None, None]).sum(0)
    return (np.exp(-r) + 0.3 * np.random.randn(16, 16, 16)).astype(np.float32)
images = ['AD/sub-%02d.nii.gz' % i for i in range(10)] + ['DFT/sub-%02d.nii.gz' % i for i in range(10)]
labels = np.array([0] * 10 + [1] * 10, dtype=np.int64)
vols = {f: volume(int(l)) for f, l in zip(images, labels)}
train_files, train_labels = images[:10], labels[:10]
val_files, val_labels = images[-10:], labels[-10:]
print('Found %d images: %d train, %d val' % (len(images), len(train_files), len(val_files)))
def batch(files, labs, idx):
    return torch.tensor(np.stack([vols[files[i]] for i in idx]))[:, None], torch.tensor(labs[idx])

model = nn.Sequential(nn.Conv3d(1, 8, 3, padding=1), nn.BatchNorm3d(8), nn.ReLU(), nn.MaxPool3d(2),
                      nn.Conv3d(8, 16, 3, padding=1), nn.BatchNorm3d(16), nn.ReLU(), nn.AdaptiveAvgPool3d(1),
                      nn.Flatten(), nn.Linear(16, 2))
loss_function = nn.CrossEntropyLoss(); optimizer = torch.optim.Adam(model.parameters(), 1e-3)
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['epoch', 'step', 'train_loss', 'epoch_loss', 'val_loss', 'val_accuracy'])
best_metric, best_metric_epoch, E, gstep = -1, -1, 25, 0
for epoch in range(E):
    print('-' * 10); print(f'epoch {epoch + 1}/{E}')
    model.train(); epoch_loss = 0; step = 0; perm = np.random.permutation(10)
    for k in range(0, 10, 2):
        step += 1; gstep += 1
        inputs, lab = batch(train_files, train_labels, perm[k:k + 2])
        optimizer.zero_grad(); outputs = model(inputs); loss = loss_function(outputs, lab)
        loss.backward(); optimizer.step(); epoch_loss += loss.item()
        print(f'{step}/5, train_loss: {loss.item():.4f}')
        wr.writerow([epoch + 1, gstep, loss.item(), '', '', ''])
    epoch_loss /= step
    print(f'epoch {epoch + 1} average loss: {epoch_loss:.4f}')
    model.eval()
    with torch.no_grad():
        vx, vy = batch(val_files, val_labels, np.arange(10)); vo = model(vx)
        metric = (vo.argmax(1) == vy).float().mean().item(); vloss = loss_function(vo, vy).item()
    if metric > best_metric:
        best_metric, best_metric_epoch = metric, epoch + 1
        print('saved new best metric model')
    print(f'current epoch: {epoch + 1} current accuracy: {metric:.4f} best accuracy: {best_metric:.4f} at epoch {best_metric_epoch}')
    wr.writerow([epoch + 1, gstep, '', epoch_loss, vloss, metric])
print(f'train completed, best_metric: {best_metric:.4f} at epoch: {best_metric_epoch}')
