# facebookresearch/VideoPose3D issue "differents with model.eval() and model.train()?" in miniature: run.py's
# supervised training of the temporal dilated-convolution model that lifts 2D keypoint sequences to 3D poses
# (TemporalModel: expand conv of width 3 + BatchNorm1d + ReLU + Dropout(0.25), then residual blocks of a dilated
# conv (width 3, dilation 3, 9) and a 1x1 conv, each with BatchNorm1d, ReLU and dropout; MPJPE loss on the
# root-relative 3D joints; Adam(amsgrad=True) lr 0.001 with lr_decay 0.95 per epoch; BatchNorm momentum decayed
# from 0.1 to 0.001 over the epochs with set_bn_momentum). After every epoch run.py evaluates with a copy in
# eval() mode, on the test set (3d_valid) and again on the training set (3d_eval), and prints
# "[epoch] time ... lr ... 3d_train ... 3d_eval ... 3d_valid ..." in millimetres, where 3d_train is the running
# MPJPE of the training batches in train() mode. Receptive field 27 frames (-arc 3,3,3), 128 channels instead of
# 1024, batch 64 instead of 1024, 12 epochs; synthetic 17-joint skeletons (random bone lengths, smooth periodic joint angles)
# seen by random cameras (120 training and 30 test sequences of 60 frames) replace Human3.6M, with noisy 2D
# projections as the "detections".
import csv, math, time
import numpy as np
import torch, torch.nn as nn

torch.manual_seed(1234); np.random.seed(1234); torch.set_num_threads(1)
rs = np.random.RandomState(1234)

# ---------------- synthetic Human3.6M-like data (17 joints, metres, root = joint 0)
PARENTS = [-1, 0, 1, 2, 0, 4, 5, 0, 7, 8, 9, 8, 11, 12, 8, 14, 15]
BONE = np.array([0, .13, .45, .44, .13, .45, .44, .23, .25, .11, .12, .15, .28, .25, .15, .28, .25])
DIRS = np.array([[0, 0, 0], [-1, 0, 0], [0, -1, 0], [0, -1, 0], [1, 0, 0], [0, -1, 0], [0, -1, 0], [0, 1, 0], [0, 1, 0],
                 [0, 1, 0], [0, 1, 0], [1, .2, 0], [1, -.5, 0], [1, -.5, 0], [-1, .2, 0], [-1, -.5, 0], [-1, -.5, 0]], np.float32)
DIRS = DIRS / np.maximum(np.linalg.norm(DIRS, axis=1, keepdims=True), 1e-6)

def rot(ax, ay, az):
    cx, sx, cy, sy, cz, sz = np.cos(ax), np.sin(ax), np.cos(ay), np.sin(ay), np.cos(az), np.sin(az)
    Rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]]); Ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    Rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    return Rz @ Ry @ Rx

def sequence(n_frames):
    scale = rs.uniform(0.85, 1.15); bone = BONE * scale * rs.uniform(0.92, 1.08, 17)
    freq = rs.uniform(0.02, 0.08); amp = rs.uniform(0.1, 0.6, (17, 3)); ph = rs.uniform(0, 6.3, (17, 3))
    out = np.zeros((n_frames, 17, 3), np.float32)
    for f in range(n_frames):
        R = [None] * 17; P = np.zeros((17, 3))
        R[0] = rot(0.1 * np.sin(freq * f), freq * f * 0.5 + ph[0, 1], 0)
        for j in range(1, 17):
            a = amp[j] * np.sin(2 * np.pi * freq * f + ph[j]) * np.array([0.9, 0.4, 0.5])
            R[j] = R[PARENTS[j]] @ rot(*a)
            P[j] = P[PARENTS[j]] + R[j] @ DIRS[j] * bone[j]
        out[f] = P
    return out

def project(seq3d, noise):
    yaw = rs.uniform(0, 2 * np.pi); Rc = rot(rs.uniform(-0.2, 0.2), yaw, 0); d = rs.uniform(4.0, 6.0); f = rs.uniform(1.0, 1.3)
    cam = seq3d @ Rc.T + np.array([0, 0, d])
    p2d = f * cam[..., :2] / cam[..., 2:3] + noise * rs.randn(*cam[..., :2].shape)
    return p2d.astype(np.float32), (cam - cam[:, :1]).astype(np.float32)      # 2D input, root-relative 3D target

def windows(p2d, p3d, rf):
    pad = rf // 2
    p2 = np.concatenate([np.repeat(p2d[:1], pad, 0), p2d, np.repeat(p2d[-1:], pad, 0)])
    idx = np.arange(len(p2d))[:, None] + np.arange(rf)[None]
    return p2[idx], p3d[:, None]

RF = 27
def build(n_seq, n_frames, noise):
    X, Y = [], []
    for _ in range(n_seq):
        x, y = windows(*project(sequence(n_frames), noise), RF)
        X.append(x); Y.append(y)
    return torch.tensor(np.concatenate(X)), torch.tensor(np.concatenate(Y))

t_data = time.time()
X_train, Y_train = build(120, 60, 0.006)           # subjects S1, S5, S6, S7, S8
X_test, Y_test = build(30, 60, 0.006)             # subjects S9, S11
print('Loading dataset...\nPreparing data...\nLoading 2D detections...')

# ---------------- common/model.py
class TemporalModel(nn.Module):
    def __init__(self, num_joints_in, in_features, num_joints_out, filter_widths, dropout=0.25, channels=1024):
        super().__init__()
        self.num_joints_out = num_joints_out
        self.drop = nn.Dropout(dropout); self.relu = nn.ReLU(inplace=True)
        self.pad = [filter_widths[0] // 2]
        self.expand_bn = nn.BatchNorm1d(channels, momentum=0.1)
        self.shrink = nn.Conv1d(channels, num_joints_out * 3, 1)
        self.expand_conv = nn.Conv1d(num_joints_in * in_features, channels, filter_widths[0], bias=False)
        layers_conv, layers_bn = [], []
        next_dilation = filter_widths[0]
        for i in range(1, len(filter_widths)):
            self.pad.append((filter_widths[i] - 1) * next_dilation // 2)
            layers_conv.append(nn.Conv1d(channels, channels, filter_widths[i], dilation=next_dilation, bias=False))
            layers_bn.append(nn.BatchNorm1d(channels, momentum=0.1))
            layers_conv.append(nn.Conv1d(channels, channels, 1, dilation=1, bias=False))
            layers_bn.append(nn.BatchNorm1d(channels, momentum=0.1))
            next_dilation *= filter_widths[i]
        self.layers_conv = nn.ModuleList(layers_conv); self.layers_bn = nn.ModuleList(layers_bn)

    def set_bn_momentum(self, momentum):
        self.expand_bn.momentum = momentum
        for bn in self.layers_bn:
            bn.momentum = momentum

    def receptive_field(self):
        return 1 + 2 * sum(self.pad)

    def forward(self, x):
        sz = x.shape[:3]
        x = x.view(x.shape[0], x.shape[1], -1).permute(0, 2, 1)
        x = self.drop(self.relu(self.expand_bn(self.expand_conv(x))))
        for i in range(len(self.pad) - 1):
            pad = self.pad[i + 1]
            res = x[:, :, pad: x.shape[2] - pad]
            x = self.drop(self.relu(self.layers_bn[2 * i](self.layers_conv[2 * i](x))))
            x = res + self.drop(self.relu(self.layers_bn[2 * i + 1](self.layers_conv[2 * i + 1](x))))
        x = self.shrink(x).permute(0, 2, 1)
        return x.view(sz[0], -1, self.num_joints_out, 3)

def mpjpe(predicted, target):
    return torch.mean(torch.norm(predicted - target, dim=len(target.shape) - 1))

# ---------------- run.py (supervised, no trajectory model)
epochs, lr, lr_decay, batch_size = 12, 0.001, 0.95, 64
model_pos_train = TemporalModel(17, 2, 17, filter_widths=[3, 3, 3], dropout=0.25, channels=128)
model_pos = TemporalModel(17, 2, 17, filter_widths=[3, 3, 3], dropout=0.25, channels=128)
print('INFO: Receptive field: %d frames' % model_pos.receptive_field())
print('INFO: Trainable parameter count:', sum(p.numel() for p in model_pos.parameters()))
print('INFO: Training on %d frames' % X_train.shape[0])
optimizer = torch.optim.Adam(model_pos_train.parameters(), lr=lr, amsgrad=True)
initial_momentum, final_momentum = 0.1, 0.001
losses_3d_train, losses_3d_train_eval, losses_3d_valid = [], [], []
wr = csv.writer(open('metrics.csv', 'w', newline=''))
wr.writerow(['epoch', 'lr', 'loss_3d_train_mm', 'loss_3d_eval_mm', 'loss_3d_valid_mm', 'bn_momentum'])
print('** Note: reported losses are averaged over all frames and test-time augmentation is not used here.')
print('** The final evaluation will be carried out after the last training epoch.')

def evaluate(model, X, Y):
    tot, N = 0.0, 0
    for s in range(0, X.shape[0], 2048):
        xb, yb = X[s:s + 2048], Y[s:s + 2048]
        tot += xb.shape[0] * mpjpe(model(xb), yb).item(); N += xb.shape[0]
    return tot / N

epoch = 0
while epoch < epochs:
    start_time = time.time()
    epoch_loss_3d_train, N = 0, 0
    model_pos_train.train()
    perm = torch.randperm(X_train.shape[0])
    for s in range(0, X_train.shape[0], batch_size):
        idx = perm[s:s + batch_size]
        inputs_2d, inputs_3d = X_train[idx], Y_train[idx]
        optimizer.zero_grad()
        predicted_3d_pos = model_pos_train(inputs_2d)
        loss_3d_pos = mpjpe(predicted_3d_pos, inputs_3d)
        epoch_loss_3d_train += inputs_3d.shape[0] * loss_3d_pos.item()
        N += inputs_3d.shape[0]
        loss_3d_pos.backward()
        optimizer.step()
    losses_3d_train.append(epoch_loss_3d_train / N)
    with torch.no_grad():
        model_pos.load_state_dict(model_pos_train.state_dict())
        model_pos.eval()
        losses_3d_valid.append(evaluate(model_pos, X_test, Y_test))               # Evaluate on test set
        losses_3d_train_eval.append(evaluate(model_pos, X_train, Y_train))        # Evaluate on training set, this time in evaluation mode
    elapsed = (time.time() - start_time) / 60
    print('[%d] time %.2f lr %f 3d_train %f 3d_eval %f 3d_valid %f' % (
        epoch + 1, elapsed, lr, losses_3d_train[-1] * 1000, losses_3d_train_eval[-1] * 1000, losses_3d_valid[-1] * 1000), flush=True)
    wr.writerow([epoch + 1, round(lr, 7), round(losses_3d_train[-1] * 1000, 3), round(losses_3d_train_eval[-1] * 1000, 3),
                 round(losses_3d_valid[-1] * 1000, 3), round(model_pos_train.expand_bn.momentum, 5)])
    lr *= lr_decay
    for param_group in optimizer.param_groups:
        param_group['lr'] *= lr_decay
    epoch += 1
    momentum = initial_momentum * np.exp(-epoch / epochs * np.log(initial_momentum / final_momentum))
    model_pos_train.set_bn_momentum(momentum)
print('Evaluating...')
print('Protocol #1 Error (MPJPE): %.2f mm' % (losses_3d_valid[-1] * 1000))
