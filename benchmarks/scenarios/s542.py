# fuenwang/3D-BoundingBox issue "Loss questions during training" in miniature: the repository's Train.py (PyTorch
# implementation of "3D Bounding Box Estimation Using Deep Learning and Geometry", as it stood in November 2017):
# VGG19_bn features followed by three heads (orientation: 256-256-bins*2 with ReLU and Dropout, the (cos, sin) pairs
# L2-normalised per bin; confidence: 256-256-bins; dimension: 512-512-3), bins = 2 with a 25 degree overlap,
# config.yaml "epochs: 8, bins: 2, w: 1, alpha: 1, batches: 8", SGD lr 0.0001 momentum 0.9, the loss
# "loss_theta = conf_loss + w * orient_loss; loss = alpha * dim_loss + loss_theta" with nn.CrossEntropyLoss for the
# bin confidence, nn.MSELoss for the dimensions (height, width, length in metres) and Model.OrientationLoss, which
# returns minus the mean cosine of the angle error over the bins that cover the ground-truth angle (so it lies between
# -1 and 1 and the total loss can go below zero), and the log block "------- <date> Epoch %.2d -------",
# "Confidence Loss:", "Orientation Loss:", "Dimension Loss:", "Total Loss:". Crops are taken in file order, as
# BatchDataset.Next() does. Scaled down: 32 x 32 synthetic car crops (a rotated body whose front end carries a bright
# windshield patch, so the local angle can be read from the picture; its length and width follow the car's
# dimensions, drawn around KITTI's mean car size) replace the KITTI crops (3200 for training, 500 held out), a small
# trainable conv-BatchNorm stack replaces the pre-trained VGG19_bn features (so the learning rate is 0.01 instead of
# 0.0001), the heads are 128 wide, the log block is printed every 100 iterations instead of 1000, and after every
# epoch the held-out crops are scored as Eval.py does (mean orientation error in degrees of the most confident bin,
# mean absolute dimension error in metres). metrics.csv has the four losses at every logged iteration and the
# held-out errors per epoch.
import csv, datetime, math
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
config = {'epochs': 8, 'bins': 2, 'w': 1, 'alpha': 1, 'batches': 8}
epochs, batches, bins, alpha, w = config['epochs'], config['batches'], config['bins'], config['alpha'], config['w']
N_TRAIN, N_EVAL, S = 3200, 500, 32
overlap = 25 / 180.0 * np.pi
interval = 2 * np.pi / bins
centerAngle = np.array([i * interval for i in range(bins)])

rs = np.random.RandomState(11)
yy, xx = np.mgrid[0:S, 0:S].astype(np.float32) - (S - 1) / 2.0
def crop(angle, dim):
    h, wd, l = dim
    img = np.empty((3, S, S), np.float32)
    img[:] = rs.uniform(0.25, 0.55, (3, 1, 1)) + rs.normal(0, 0.06, (3, S, S))
    c, s = math.cos(angle), math.sin(angle)
    u = xx * c + yy * s; v = -xx * s + yy * c                      # along / across the car
    half_l, half_w = 3.0 * l / 2, 3.0 * wd / 2
    body = (np.abs(u) <= half_l) & (np.abs(v) <= half_w)
    colour = rs.uniform(0.1, 0.9, 3) * (0.6 + 0.25 * (h - 1.2))
    for k in range(3): img[k][body] = colour[k] + rs.normal(0, 0.03)
    front = body & (u > half_l * 0.35) & (u < half_l * 0.75)       # windshield near the front
    img[:, front] = 1.0
    rear = body & (u < -half_l * 0.8)                               # dark rear bumper
    img[:, rear] = 0.05
    return (img - 0.45) / 0.25

def make(n):
    angles = rs.uniform(0, 2 * np.pi, n)
    dims = np.stack([rs.normal(1.53, 0.14, n), rs.normal(1.63, 0.10, n), rs.normal(3.88, 0.43, n)], 1).clip(1.0, 5.5)
    imgs = np.stack([crop(a, d) for a, d in zip(angles, dims)])
    confidence = np.zeros((n, bins)); confidence_multi = np.zeros((n, bins))
    for j in range(n):
        for i in range(bins):
            diff = abs(centerAngle[i] - angles[j])
            if diff > np.pi: diff = 2 * np.pi - diff
            if diff <= interval / 2 + overlap: confidence_multi[j, i] = 1
            if diff < interval / 2: confidence[j, i] = 1
    angleDiff = angles[:, None] - centerAngle[None, :]
    return imgs.astype(np.float32), confidence, confidence_multi, angleDiff, dims.astype(np.float32), angles

train = make(N_TRAIN); held = make(N_EVAL)

def OrientationLoss(orient, angleDiff, confGT):
    [batch, _, bins] = orient.size()
    cos_diff = torch.cos(angleDiff); sin_diff = torch.sin(angleDiff)
    cos_ori = orient[:, :, 0]; sin_ori = orient[:, :, 1]
    mask1 = (confGT != 0); mask2 = (confGT == 0)
    count = torch.sum(mask1, dim=1)
    tmp = cos_diff * cos_ori + sin_diff * sin_ori
    tmp[mask2] = 0
    total = torch.sum(tmp, dim=1)
    count = count.type(torch.FloatTensor)
    total = total / count
    return -torch.sum(total) / batch

def block(i, o): return [nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(True), nn.MaxPool2d(2)]
features = nn.Sequential(*block(3, 16), *block(16, 32), *block(32, 64), *block(64, 64))   # 64 x 2 x 2

class Model(nn.Module):
    def __init__(self, features=None, bins=2, w=0.4):
        super(Model, self).__init__()
        self.bins = bins; self.w = w; self.features = features
        self.orientation = nn.Sequential(nn.Linear(64 * 2 * 2, 128), nn.ReLU(True), nn.Dropout(),
                                         nn.Linear(128, 128), nn.ReLU(True), nn.Dropout(), nn.Linear(128, bins * 2))
        self.confidence = nn.Sequential(nn.Linear(64 * 2 * 2, 128), nn.ReLU(True), nn.Dropout(),
                                        nn.Linear(128, 128), nn.ReLU(True), nn.Dropout(), nn.Linear(128, bins))
        self.dimension = nn.Sequential(nn.Linear(64 * 2 * 2, 128), nn.ReLU(True), nn.Dropout(),
                                       nn.Linear(128, 128), nn.ReLU(True), nn.Dropout(), nn.Linear(128, 3))
    def forward(self, x):
        x = self.features(x)
        x = x.view(-1, 64 * 2 * 2)
        orientation = self.orientation(x).view(-1, self.bins, 2)
        orientation = F.normalize(orientation, dim=2)
        confidence = self.confidence(x)
        dimension = self.dimension(x)
        return orientation, confidence, dimension

def evaluate(model):
    model.eval()
    imgs, _, _, _, dims, angles = held
    with torch.no_grad():
        orient, conf, dim = model(torch.from_numpy(imgs))
    orient, conf, dim = orient.numpy(), conf.numpy(), dim.numpy()
    argmax = conf.argmax(1)
    o = orient[np.arange(len(argmax)), argmax]
    theta = np.arctan2(o[:, 1], o[:, 0]) + centerAngle[argmax]
    err = np.abs(np.degrees(theta - angles)) % 360
    err = np.where(err > 180, 360 - err, err)
    model.train()
    return float(err.mean()), float(np.abs(dims - dim).mean())

print('No previous model found, start training')
model = Model(features=features, bins=bins)
opt_SGD = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
dim_LossFunc = nn.MSELoss(); conf_LossFunc = nn.CrossEntropyLoss()
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'iteration', 'conf_loss', 'orient_loss', 'dim_loss', 'total_loss', 'eval_angle_error_deg', 'eval_dim_error_m'])
a0, d0 = evaluate(model)
print('Before training: Angle error: %lf Dimension error: %lf' % (a0, d0))
wr.writerow([0, 0, '', '', '', '', round(a0, 3), round(d0, 4)])
iter_each_time = round(float(N_TRAIN) / batches)
idx = 0
for epoch in range(epochs):
    for i in range(int(iter_each_time)):
        sl = slice(idx, idx + batches); idx = (idx + batches) % N_TRAIN
        batch, confidence, confidence_multi, angleDiff, dimGT = (torch.from_numpy(train[0][sl]), train[1][sl],
            torch.from_numpy(train[2][sl]).long(), torch.from_numpy(train[3][sl]).float(), torch.from_numpy(train[4][sl]))
        confidence_arg = torch.from_numpy(np.argmax(confidence, axis=1)).long()
        [orient, conf, dim] = model(batch)
        conf_loss = conf_LossFunc(conf, confidence_arg)
        orient_loss = OrientationLoss(orient, angleDiff, confidence_multi)
        dim_loss = dim_LossFunc(dim, dimGT)
        loss_theta = conf_loss + w * orient_loss
        loss = alpha * dim_loss + loss_theta
        if i % 100 == 0:
            c_l, o_l, d_l, t_l = conf_loss.item(), orient_loss.item(), dim_loss.item(), loss.item()
            now_s = datetime.datetime.now().strftime('%Y-%m-%d-%H-%M-%S')
            print('------- %s Epoch %.2d -------' % (now_s, epoch))
            print('Confidence Loss: %lf' % c_l)
            print('Orientation Loss: %lf' % o_l)
            print('Dimension Loss: %lf' % d_l)
            print('Total Loss: %lf' % t_l)
            print('-----------------------------')
            wr.writerow([epoch, epoch * int(iter_each_time) + i, round(c_l, 5), round(o_l, 5), round(d_l, 5), round(t_l, 5), '', '']); f.flush()
        opt_SGD.zero_grad()
        loss.backward()
        opt_SGD.step()
    ang, dme = evaluate(model)
    print('Epoch %.2d done: Angle error: %lf Dimension error: %lf' % (epoch, ang, dme))
    wr.writerow([epoch, (epoch + 1) * int(iter_each_time), '', '', '', '', round(ang, 3), round(dme, 4)]); f.flush()
f.close()
