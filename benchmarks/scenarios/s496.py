# YijinHuang/pytorch-DR issue "A problem of slow data loading" in miniature: the "two_cates" branch of
# July 2019 (binary Normal/DR grading of retina photographs, team o_O's network), train.py as it was:
# DataLoader(train_dataset, batch_size=..., sampler=ScheduledWeightedSampler(...), drop_last=True) with
# no num_workers, so every image is opened, decoded and augmented (RandomResizedCrop, RandomAffine with
# rotation up to 180 degrees and translation, flips, Normalize, Krizhevsky colour augmentation) in the
# training process itself, between two steps. The poster fed full-size pictures ("I suspect the reason
# is that the picture is too large"): here 896 x 896 JPEG "fundus" pictures (kept in memory as JPEG
# bytes) are decoded for a 112 x 112 input. o_ONet "small" is scaled down (channels quartered, untied
# biases and RMS pooling kept), MSE regression on the 0/1 grade, SGD nesterov with a one-epoch warmup,
# tqdm progress descriptions "epoch: e, loss: ..., acc: ..." and "validation accuracy: ..., kappa: ..."
# as in the repository. The poster watched the GPU utilisation; the script times the wait for each batch
# and the step itself and prints them after each epoch.
import io, csv, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.sampler import Sampler
from PIL import Image, ImageDraw
from tqdm import tqdm

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)

MEAN = [108.64628601 / 255, 75.86886597 / 255, 54.34005737 / 255]
STD = [70.53946096 / 255, 51.71475228 / 255, 43.03428563 / 255]
U = torch.tensor([[-0.56543481, 0.71983482, 0.40240142],
                  [-0.5989477, -0.02304967, -0.80036049],
                  [-0.56694071, -0.6935729, 0.44423429]], dtype=torch.float32)
EV = torch.tensor([1.65513492, 0.48450358, 0.1565086], dtype=torch.float32)
BALANCE_WEIGHTS = torch.tensor([1.0, 2.770184853905784], dtype=torch.double)
CONFIG = {'LEARNING_RATE': 3e-3, 'INPUT_SIZE': 112, 'BATCH_SIZE': 32, 'EPOCHS': 10,
          'DATA_AUGMENTATION': {'scale': (1 / 1.15, 1.15), 'stretch_ratio': (0.7561, 1.3225),
                                'ratation': (-180, 180), 'translation_ratio': (40 / 112, 40 / 112), 'sigma': 0.5}}

# ---- synthetic "train/0", "train/1", "val/..." folders: 640 x 640 JPEG retina pictures -----------------
S = 896
rs = np.random.RandomState(0)
yy, xx = np.mgrid[0:S, 0:S]
r = np.hypot(yy - S / 2, xx - S / 2) / (S * 0.45)
base = np.zeros((S, S, 3), np.float32); disc = r < 1
base[..., 0] = disc * (150 + 60 * (1 - r)); base[..., 1] = disc * (70 + 40 * (1 - r)); base[..., 2] = disc * (40 + 20 * (1 - r))
backgrounds = [np.clip(base + rs.randn(S, S, 3) * 6, 0, 255).astype(np.uint8) for _ in range(4)]

def make_folder(n):
    samples = []
    for i in range(n):
        label = int(rs.rand() < 0.27)                     # about 1 DR picture in 3.8, as BALANCE_WEIGHTS implies
        im = Image.fromarray(backgrounds[i % 4]); d = ImageDraw.Draw(im)
        for _ in range(rs.randint(12, 20) if label else rs.randint(0, 2)):   # exudate-like spots
            cx, cy = rs.randint(240, 656, 2); rr = rs.randint(30, 48)
            d.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), fill=(255, 255, 160))
        b = io.BytesIO(); im.save(b, 'JPEG', quality=90)
        samples.append((b.getvalue(), label))
    return samples

class ImageFolder(Dataset):                            # datasets.ImageFolder: loader = Image.open(path).convert('RGB')
    def __init__(self, samples, transform):
        self.samples = self.imgs = samples; self.transform = transform
    def __len__(self): return len(self.samples)
    def __getitem__(self, i):
        data, target = self.samples[i]
        img = Image.open(io.BytesIO(data)).convert('RGB')
        return self.transform(img), target

def to_tensor_normalize(img):
    x = torch.from_numpy(np.asarray(img, dtype=np.float32) / 255.).permute(2, 0, 1)
    return (x - torch.tensor(MEAN)[:, None, None]) / torch.tensor(STD)[:, None, None]

class TrainPreprocess:                                  # the transforms.Compose([...]) of data_utils.generate_data
    def __init__(self, size, aug):
        self.size, self.aug = size, aug
    def __call__(self, img):
        a = self.aug; W, H = img.size
        for _ in range(10):                             # RandomResizedCrop(size, scale, ratio)
            area = W * H * np.random.uniform(*a['scale']) * 0.6
            ratio = np.exp(np.random.uniform(np.log(a['stretch_ratio'][0]), np.log(a['stretch_ratio'][1])))
            w, h = int(round(np.sqrt(area * ratio))), int(round(np.sqrt(area / ratio)))
            if 0 < w <= W and 0 < h <= H: break
        x0, y0 = np.random.randint(0, W - w + 1), np.random.randint(0, H - h + 1)
        img = img.resize((self.size, self.size), Image.BILINEAR, box=(x0, y0, x0 + w, y0 + h))
        t = a['translation_ratio'][0] * self.size       # RandomAffine(degrees, translate)
        img = img.rotate(np.random.uniform(*a['ratation']), translate=(int(np.random.uniform(-t, t)), int(np.random.uniform(-t, t))))
        if np.random.rand() < 0.5: img = img.transpose(Image.FLIP_LEFT_RIGHT)
        if np.random.rand() < 0.5: img = img.transpose(Image.FLIP_TOP_BOTTOM)
        x = to_tensor_normalize(img)
        alpha = torch.randn(3) * a['sigma'] * EV        # KrizhevskyColorAugmentation(sigma=0.5)
        return x + torch.matmul(U, alpha).view(3, 1, 1)

def test_preprocess(img):                               # Resize(input_size), ToTensor, Normalize
    return to_tensor_normalize(img.resize((CONFIG['INPUT_SIZE'], CONFIG['INPUT_SIZE']), Image.BILINEAR))

class ScheduledWeightedSampler(Sampler):
    def __init__(self, num_samples, train_targets, replacement=True):
        self.num_samples, self.train_targets, self.replacement = num_samples, train_targets, replacement
        self.epoch = 0; self.w0 = BALANCE_WEIGHTS; self.wf = torch.as_tensor([1, 2], dtype=torch.double)
        self.train_sample_weight = torch.zeros(len(train_targets), dtype=torch.double)
    def step(self):
        self.epoch += 1
        factor = 0.975 ** (self.epoch - 1)
        self.weights = factor * self.w0 + (1 - factor) * self.wf
        for i, _class in enumerate(self.train_targets): self.train_sample_weight[i] = self.weights[_class]
    def __iter__(self): return iter(torch.multinomial(self.train_sample_weight, self.num_samples, self.replacement).tolist())
    def __len__(self): return self.num_samples

# ---- o_ONet "small" (channels / 4) with untied biases and RMS pooling ------------------------------------
class Conv2dUntiedBias(nn.Module):
    def __init__(self, cin, cout, h, w, k, s, p):
        super().__init__(); self.weight = nn.Parameter(torch.empty(cout, cin, k, k)); self.bias = nn.Parameter(torch.empty(cout, h, w))
        self.s, self.p = s, p
    def forward(self, x): return F.conv2d(x, self.weight, None, self.s, self.p) + self.bias

class RMSPool(nn.Module):
    def __init__(self, k, s): super().__init__(); self.k, self.s = k, s
    def forward(self, x): return torch.sqrt(F.avg_pool2d(x.pow(2), self.k, self.s) + 1e-12)

class o_ONet(nn.Module):
    def __init__(self, input_size=112):
        super().__init__()
        s0 = (input_size + 4 - 5) // 2 + 1; s1 = ((s0 - 3) // 2 + 1 + 4 - 5) // 2 + 1; s2 = (s1 - 3) // 2 + 1
        def bc(ci, co, s, k, st, p): return nn.Sequential(Conv2dUntiedBias(ci, co, s, s, k, st, p), nn.LeakyReLU(0.01))
        self.conv = nn.Sequential(bc(3, 8, s0, 5, 2, 2), bc(8, 8, s0, 3, 1, 1), nn.MaxPool2d(3, 2),
                                  bc(8, 16, s1, 5, 2, 2), bc(16, 16, s1, 3, 1, 1), bc(16, 16, s1, 3, 1, 1), nn.MaxPool2d(3, 2),
                                  bc(16, 32, s2, 3, 1, 1), bc(32, 32, s2, 3, 1, 1), bc(32, 32, s2, 3, 1, 1), RMSPool(3, 3))
        feature_dim = 32 * ((s2 - 3) // 3 + 1) ** 2
        self.fc = nn.Sequential(nn.Dropout(0.5), nn.Linear(feature_dim, 256), nn.MaxPool1d(2, 2), nn.LeakyReLU(0.01),
                                nn.Dropout(0.5), nn.Linear(128, 256), nn.MaxPool1d(2, 2), nn.LeakyReLU(0.01), nn.Linear(128, 1))
        for m in self.modules():
            if isinstance(m, (Conv2dUntiedBias, nn.Linear)):
                nn.init.orthogonal_(m.weight, 1); nn.init.constant_(m.bias, 0.05)
    def forward(self, x):
        features = self.conv(x).view(x.size(0), 1, -1)
        return torch.squeeze(self.fc(features))

def accuracy(predictions, targets, c_matrix=None):
    predicted = (predictions.data > 0.5).float()
    if c_matrix is not None:
        for i, p in enumerate(predicted): c_matrix[int(targets[i])][int(p.item())] += 1
    return (predicted == targets).sum().item() / len(predicted)

def quadratic_weighted_kappa(conf_mat):
    n = conf_mat.shape[0]; wm = np.array([[1 - (i - j) ** 2 / (n - 1) ** 2 for j in range(n)] for i in range(n)])
    exp = np.outer(conf_mat.sum(1), conf_mat.sum(0)); cm = conf_mat / conf_mat.sum(); exp = exp / exp.sum()
    o, e = (cm * wm).sum(), (exp * wm).sum()
    return (o - e) / (1 - e)

def print_msg(msg, appendixs=[]):
    max_len = len(max([msg, *appendixs], key=len))
    print('=' * max_len); print(msg)
    for appendix in appendixs: print(appendix)
    print('=' * max_len)

def _eval(model, dataloader, c_matrix=None):
    model.eval(); torch.set_grad_enabled(False); correct = total = 0
    for X, y in dataloader:
        y = y.float(); y_pred = model(X); total += y.size(0); correct += accuracy(y_pred, y, c_matrix) * y.size(0)
    model.train(); torch.set_grad_enabled(True)
    return round(correct / total, 4)

t_build = time.time()
train_dataset = ImageFolder(make_folder(160), TrainPreprocess(CONFIG['INPUT_SIZE'], CONFIG['DATA_AUGMENTATION']))
val_dataset = ImageFolder(make_folder(64), test_preprocess)
print('built 160 train / 64 val JPEG pictures (%dx%d) in %.1fs' % (S, S, time.time() - t_build))

train_targets = [sampler[1] for sampler in train_dataset.imgs]
weighted_sampler = ScheduledWeightedSampler(len(train_dataset), train_targets, True)
train_loader = DataLoader(train_dataset, batch_size=CONFIG['BATCH_SIZE'], sampler=weighted_sampler, drop_last=True)
val_loader = DataLoader(val_dataset, batch_size=CONFIG['BATCH_SIZE'], shuffle=False)

model = o_ONet(CONFIG['INPUT_SIZE'])
print_msg('Trainable layers: ', ['{}\t{}'.format(k, tuple(v.size())) for k, v in model.state_dict().items()][:6] + ['...'])
MSEloss = torch.nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=CONFIG['LEARNING_RATE'], momentum=0.9, nesterov=True, weight_decay=0.0005)
warmup_epoch = 1; warmup_batch = len(train_loader) * warmup_epoch; step_num = 1

f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'step', 'loss', 'acc', 'data_time', 'batch_time', 'val_acc', 'kappa'])
for epoch in range(1, CONFIG['EPOCHS'] + 1):
    weighted_sampler.step()
    epoch_loss = 0; correct = 0; total = 0; data_t = comp_t = 0.0
    progress = tqdm(enumerate(train_loader))
    end = time.time()
    for step, train_data in progress:
        t_data = time.time() - end
        if epoch <= warmup_epoch and step_num <= warmup_batch:
            step_num += 1
            for g in optimizer.param_groups: g['lr'] = (step_num / warmup_batch) * CONFIG['LEARNING_RATE']
        X, y = train_data
        y = y.float()
        y_pred = model(X)
        loss = MSEloss(y_pred, y)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        epoch_loss += loss.item(); total += y.size(0); correct += accuracy(y_pred, y) * y.size(0)
        avg_loss = epoch_loss / (step + 1); avg_acc = correct / total
        progress.set_description('epoch: {}, loss: {:.6f}, acc: {:.4f}'.format(epoch, avg_loss, avg_acc))
        t_batch = time.time() - end; data_t += t_data; comp_t += t_batch - t_data
        wr.writerow([epoch, (epoch - 1) * len(train_loader) + step + 1, round(loss.item(), 6), round(avg_acc, 4),
                     round(t_data, 4), round(t_batch, 4), '', '']); f.flush()
        end = time.time()
    progress.close()
    c_matrix = np.zeros((2, 2), dtype=int)
    acc = _eval(model, val_loader, c_matrix)
    kappa = quadratic_weighted_kappa(c_matrix)
    print('validation accuracy: {}, kappa: {}'.format(acc, kappa))
    print('time waiting for data: {:.2f}s, forward/backward/step: {:.2f}s ({:.0f}% of the epoch spent loading)'.format(
        data_t, comp_t, 100 * data_t / (data_t + comp_t)), flush=True)
    wr.writerow([epoch, epoch * len(train_loader), '', '', '', '', acc, round(float(kappa), 4)]); f.flush()
f.close()
