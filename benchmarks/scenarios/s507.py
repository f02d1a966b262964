# Holmeyoung/crnn-pytorch issue "Problem about ctc_loss variable input_length while training" in miniature:
# the repository's train.py (CRNN from models/crnn.py, nn.CTCLoss, RMSprop lr 1e-4, params.py: imgH 32, imgW 100,
# nh 256, batchSize 64, displayInterval 100) trained to read licence plates with the poster's alphabet
# "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789-" (plates of 7 or 8 characters). The labels come from
# tool/create_dataset.py's read_data_from_folder, label = pic.split('_')[0]: the poster's pictures are named
# "<plate>.jpg" without an underscore, so every label keeps its ".jpg". The converter's encode() skips
# characters that are not in the alphabet but counts len(item) as the length, so the padded target tensor is
# 8 wide while the declared target lengths are 11-12, and nn.CTCLoss rejects the first batch. 640 synthetic
# 32 x 100 plate pictures (a random 5 x 7 glyph per character, noise, blur) kept in memory replace the lmdb
# data set; the lmdb round trip is left out. Runs on the CPU.
import csv, os, random, sys, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F
import torch.optim as optim
from torch.nn import CTCLoss

torch.manual_seed(1234); np.random.seed(1234); random.seed(1234); torch.set_num_threads(1)

# ---------------- params.py
alphabet = """ABCDEFGHJKLMNPQRSTUVWXYZ0123456789-"""
keep_ratio = False; manualSeed = 1234; random_sample = True
imgH = 32; imgW = 100; nh = 256; nc = 1
pretrained = ''; expr_dir = 'expr'; dealwith_lossnan = False
cuda = False; multi_gpu = False; ngpu = 1; workers = 0
displayInterval = 100; valInterval = 1000; saveInterval = 1000; n_val_disp = 10
nepoch = 1000; batchSize = 64; lr = 0.0001; beta1 = 0.5; adam = False; adadelta = False


# ---------------- utils.py
class strLabelConverter(object):
    def __init__(self, alphabet, ignore_case=False):
        self._ignore_case = ignore_case
        if self._ignore_case:
            alphabet = alphabet.lower()
        self.alphabet = alphabet + '-'  # for `-1` index
        self.dict = {}
        for i, char in enumerate(alphabet):
            self.dict[char] = i + 1

    def encode(self, text):
        length = []
        result = []
        for item in text:
            item = item.decode('utf-8', 'strict')
            length.append(len(item))
            r = []
            for char in item:
                if char not in self.dict:          # unknown characters are skipped
                    continue
                r.append(self.dict[char])
            result.append(r)
        max_len = max(len(r) for r in result)
        result_temp = []
        for r in result:
            for i in range(max_len - len(r)):
                r.append(0)
            result_temp.append(r)
        return (torch.LongTensor(result_temp), torch.LongTensor(length))


class averager(object):
    def __init__(self): self.reset()
    def add(self, v):
        self.n_count += v.numel(); self.sum += v.detach().sum()
    def reset(self): self.n_count = 0; self.sum = 0
    def val(self): return self.sum / float(self.n_count) if self.n_count else 0


def loadData(v, data):
    with torch.no_grad():
        v.resize_(data.size()).copy_(data)


# ---------------- models/crnn.py
class BidirectionalLSTM(nn.Module):
    def __init__(self, nIn, nHidden, nOut):
        super(BidirectionalLSTM, self).__init__()
        self.rnn = nn.LSTM(nIn, nHidden, bidirectional=True)
        self.embedding = nn.Linear(nHidden * 2, nOut)
    def forward(self, input):
        recurrent, _ = self.rnn(input)
        T, b, h = recurrent.size()
        output = self.embedding(recurrent.view(T * b, h))
        return output.view(T, b, -1)


class CRNN(nn.Module):
    def __init__(self, imgH, nc, nclass, nh, n_rnn=2, leakyRelu=False):
        super(CRNN, self).__init__()
        assert imgH % 16 == 0, 'imgH has to be a multiple of 16'
        ks = [3, 3, 3, 3, 3, 3, 2]; ps = [1, 1, 1, 1, 1, 1, 0]; ss = [1, 1, 1, 1, 1, 1, 1]
        nm = [64, 128, 256, 256, 512, 512, 512]
        cnn = nn.Sequential()
        def convRelu(i, batchNormalization=False):
            nIn = nc if i == 0 else nm[i - 1]; nOut = nm[i]
            cnn.add_module('conv{0}'.format(i), nn.Conv2d(nIn, nOut, ks[i], ss[i], ps[i]))
            if batchNormalization:
                cnn.add_module('batchnorm{0}'.format(i), nn.BatchNorm2d(nOut))
            if leakyRelu:
                cnn.add_module('relu{0}'.format(i), nn.LeakyReLU(0.2, inplace=True))
            else:
                cnn.add_module('relu{0}'.format(i), nn.ReLU(True))
        convRelu(0); cnn.add_module('pooling{0}'.format(0), nn.MaxPool2d(2, 2))
        convRelu(1); cnn.add_module('pooling{0}'.format(1), nn.MaxPool2d(2, 2))
        convRelu(2, True); convRelu(3)
        cnn.add_module('pooling{0}'.format(2), nn.MaxPool2d((2, 2), (2, 1), (0, 1)))
        convRelu(4, True); convRelu(5)
        cnn.add_module('pooling{0}'.format(3), nn.MaxPool2d((2, 2), (2, 1), (0, 1)))
        convRelu(6, True)
        self.cnn = cnn
        self.rnn = nn.Sequential(BidirectionalLSTM(512, nh, nh), BidirectionalLSTM(nh, nh, nclass))
    def forward(self, input):
        conv = self.cnn(input)
        b, c, h, w = conv.size()
        assert h == 1, "the height of conv must be 1"
        conv = conv.squeeze(2).permute(2, 0, 1)
        output = self.rnn(conv)
        return F.log_softmax(output, dim=2)


# ---------------- data: the poster's plate pictures, named "<plate>.jpg"
rs = np.random.RandomState(7)
GLYPH = {ch: (rs.rand(7, 5) > 0.45).astype(np.float32) for ch in alphabet}
LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"; DIGITS = "0123456789"

def render(plate):
    img = np.full((imgH, imgW), 0.85, np.float32) + 0.05 * rs.randn(imgH, imgW).astype(np.float32)
    x = rs.randint(2, 8)
    for ch in plate:
        g = np.kron(GLYPH[ch], np.ones((3, 2), np.float32))          # 21 x 10
        y = 5 + rs.randint(-1, 2)
        img[y:y + 21, x:x + 10] -= 0.7 * g
        x += 11
    return np.clip(img, 0, 1)

def make_folder(n):
    pics = {}
    while len(pics) < n:
        if rs.rand() < 0.5:
            plate = ''.join(rs.choice(list(LETTERS), 3)) + '-' + ''.join(rs.choice(list(DIGITS), 4))
        else:
            plate = ''.join(rs.choice(list(LETTERS), 3)) + '-' + ''.join(rs.choice(list(DIGITS), 3))
        pics[plate + '.jpg'] = render(plate)
    return pics

def read_data_from_folder(folder):                     # tool/create_dataset.py
    image_path_list, label_list = [], []
    pics = list(folder.keys())
    pics.sort(key=lambda i: len(i))
    for pic in pics:
        image_path_list.append(pic)
        label_list.append(pic.split('_')[0])
    return image_path_list, label_list


class lmdbDataset(torch.utils.data.Dataset):
    def __init__(self, folder):
        self.paths, self.labels = read_data_from_folder(folder); self.folder = folder
    def __len__(self): return len(self.paths)
    def __getitem__(self, i):
        img = torch.tensor(self.folder[self.paths[i]])[None]
        return (img - 0.5) / 0.5, self.labels[i].encode()


def collate(batch):
    return torch.stack([b[0] for b in batch]), tuple(b[1] for b in batch)


if __name__ == "__main__":
    if not os.path.exists(expr_dir):
        os.makedirs(expr_dir)
    train_folder = make_folder(640)
    train_dataset = lmdbDataset(train_folder)
    print('Created dataset with %d samples' % len(train_dataset))
    print('\nShow some demo to prevent creating wrong lmdb data')
    print('The first line is the path to image and the second line is the image label')
    for i in range(2):
        print('image: %s\nlabel: %s\n' % (train_dataset.paths[i], train_dataset.labels[i]))
    train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=batchSize, shuffle=True, num_workers=workers, collate_fn=collate)

    def weights_init(m):
        classname = m.__class__.__name__
        if classname.find('Conv') != -1:
            m.weight.data.normal_(0.0, 0.02)
        elif classname.find('BatchNorm') != -1:
            m.weight.data.normal_(1.0, 0.02)
            m.bias.data.fill_(0)

    nclass = len(alphabet) + 1
    crnn = CRNN(imgH, nc, nclass, nh)
    crnn.apply(weights_init)
    print(crnn)
    loss_avg = averager()
    converter = strLabelConverter(alphabet)
    criterion = CTCLoss()
    image = torch.FloatTensor(batchSize, 3, imgH, imgH)
    text = torch.LongTensor(batchSize * 5)
    length = torch.LongTensor(batchSize)
    optimizer = optim.RMSprop(crnn.parameters(), lr=lr)

    log = csv.writer(open('metrics.csv', 'w', newline='')); log.writerow(['epoch', 'iter', 'loss'])

    def train(net, criterion, optimizer, train_iter):
        for p in crnn.parameters():
            p.requires_grad = True
        crnn.train()
        cpu_images, cpu_texts = next(train_iter)
        batch_size = cpu_images.size(0)
        loadData(image, cpu_images)
        t, l = converter.encode(cpu_texts)
        loadData(text, t)
        loadData(length, l)
        optimizer.zero_grad()
        preds = crnn(image)
        preds_size = torch.LongTensor([preds.size(0)] * batch_size)
        cost = criterion(preds, text, preds_size, length) / batch_size
        cost.backward()
        optimizer.step()
        return cost

    for epoch in range(nepoch):
        train_iter = iter(train_loader)
        i = 0
        while i < len(train_loader):
            cost = train(crnn, criterion, optimizer, train_iter)
            loss_avg.add(cost)
            i += 1
            log.writerow([epoch, i, round(cost.item(), 5)])
            if i % displayInterval == 0:
                print('[%d/%d][%d/%d] Loss: %f' % (epoch, nepoch, i, len(train_loader), loss_avg.val()))
                loss_avg.reset()
