# kanezaki/pytorch-unsupervised-segmentation-tip issue "Can't I use my own scribble images?" in miniature: demo.py of
# the repository (unsupervised image segmentation by differentiable feature clustering, Kim, Kanezaki and Tanaka, TIP
# 2020) run with --scribble on the user's own image and scribble. MyNet: conv 3x3 (3 -> nChannel=100) + ReLU +
# BatchNorm, nConv - 1 = 1 further conv 3x3 + ReLU + BatchNorm, conv 1x1 + BatchNorm; the image is scaled to [0, 1];
# the scribble is read with cv2.imread(<input>_scribble.png, -1) and flattened with mask.reshape(-1): pixels equal to
# 255 are unlabelled (inds_sim), the others carry a label index (inds_scr, target_scr), and minLabels is set to the
# number of scribble labels; each iteration takes target = argmax of the response map, loss = stepsize_sim *
# CrossEntropy(output[inds_sim], target[inds_sim]) + stepsize_scr (0.5) * CrossEntropy(output[inds_scr],
# target_scr[inds_scr]) + stepsize_con * (L1 of the vertical and horizontal response differences), SGD lr 0.1
# momentum 0.9, maxIter 1000, the line "<it> / 1000 |  label num : <n>  | loss : <loss>" per iteration and a stop once
# nLabels <= minLabels. The user drew the scribble in an image editor (three labels, grey levels 0, 1 and 2 on a
# white background) and saved it as an ordinary 8-bit RGB PNG, so cv2.imread(..., -1) returns an H x W x 3 array and
# mask.reshape(-1) holds 3 x H x W entries for an H x W response map. Scaled down: a 48 x 64 synthetic photograph
# (a cat-like figure on a textured background, as a cv2 BGR uint8 array) and its scribble are generated in memory
# instead of being read from disk, --visualize 0 (no window), and no output.png is written. metrics.csv has the
# per-iteration loss and label count.
import csv
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)


class Args:
    scribble = True
    nChannel = 100
    maxIter = 1000
    minLabels = 3
    lr = 0.1
    nConv = 2
    visualize = 0
    stepsize_sim = 1.0
    stepsize_con = 1.0
    stepsize_scr = 0.5


args = Args()


class MyNet(nn.Module):
    def __init__(self, input_dim):
        super(MyNet, self).__init__()
        self.conv1 = nn.Conv2d(input_dim, args.nChannel, kernel_size=3, stride=1, padding=1)
        self.bn1 = nn.BatchNorm2d(args.nChannel)
        self.conv2 = nn.ModuleList()
        self.bn2 = nn.ModuleList()
        for i in range(args.nConv - 1):
            self.conv2.append(nn.Conv2d(args.nChannel, args.nChannel, kernel_size=3, stride=1, padding=1))
            self.bn2.append(nn.BatchNorm2d(args.nChannel))
        self.conv3 = nn.Conv2d(args.nChannel, args.nChannel, kernel_size=1, stride=1, padding=0)
        self.bn3 = nn.BatchNorm2d(args.nChannel)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.bn1(x)
        for i in range(args.nConv - 1):
            x = self.conv2[i](x)
            x = F.relu(x)
            x = self.bn2[i](x)
        x = self.conv3(x)
        x = self.bn3(x)
        return x


# ---------------------------------------------------------------- the user's picture and scribble (in memory)
def make_photo(rs, H=48, W=64):
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    im = np.zeros((H, W, 3), np.float32)
    im[...] = np.array([150, 170, 90]) + 40 * np.sin(xx[..., None] / 5.0 + yy[..., None] / 9.0)   # grass (BGR)
    body = ((xx - 34) / 17) ** 2 + ((yy - 31) / 10) ** 2 <= 1
    head = ((xx - 16) / 8) ** 2 + ((yy - 20) / 8) ** 2 <= 1
    cat = body | head
    im[cat] = np.array([60, 110, 190]) + 25 * np.sin(xx[cat, None] * 1.3)                     # orange fur
    im[((xx - 46) / 10) ** 2 + ((yy - 8) / 5) ** 2 <= 1] = np.array([230, 230, 235])           # a white cloud
    im += rs.normal(0, 8, im.shape)
    return np.clip(im, 0, 255).astype(np.uint8), cat


def make_scribble(cat, H=48, W=64):
    s = np.full((H, W), 255, np.uint8)                     # white = unlabelled
    s[30:33, 26:44] = 0                                    # stroke on the cat's body: label 0
    s[18:21, 12:20] = 0                                    # stroke on the head: label 0
    s[42:45, 4:60] = 1                                     # stroke on the grass: label 1
    s[6:8, 42:52] = 2                                      # stroke on the cloud: label 2
    return np.stack([s, s, s], axis=2)                     # saved as an RGB PNG: cv2.imread(..., -1) -> H x W x 3


rs = np.random.RandomState(3)
im, cat = make_photo(rs)
data = torch.from_numpy(np.array([im.transpose((2, 0, 1)).astype('float32') / 255.]))

# load scribble
if args.scribble:
    mask = make_scribble(cat)                              # cv2.imread(args.input.replace(...,'_scribble.png'), -1)
    mask = mask.reshape(-1)
    mask_inds = np.unique(mask)
    mask_inds = np.delete(mask_inds, np.argwhere(mask_inds == 255))
    inds_sim = torch.from_numpy(np.where(mask == 255)[0])
    inds_scr = torch.from_numpy(np.where(mask != 255)[0])
    target_scr = torch.from_numpy(mask.astype(np.int64))
    # set minLabels
    args.minLabels = len(mask_inds)

# train
model = MyNet(data.size(1))
model.train()

# similarity loss definition
loss_fn = torch.nn.CrossEntropyLoss()
# scribble loss definition
loss_fn_scr = torch.nn.CrossEntropyLoss()
# continuity loss definition
loss_hpy = torch.nn.L1Loss(reduction='mean')
loss_hpz = torch.nn.L1Loss(reduction='mean')

HPy_target = torch.zeros(im.shape[0] - 1, im.shape[1], args.nChannel)
HPz_target = torch.zeros(im.shape[0], im.shape[1] - 1, args.nChannel)

optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
label_colours = np.random.randint(255, size=(100, 3))

f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['iteration', 'loss', 'label_num'])
for batch_idx in range(args.maxIter):
    # forwarding
    optimizer.zero_grad()
    output = model(data)[0]
    output = output.permute(1, 2, 0).contiguous().view(-1, args.nChannel)

    outputHP = output.reshape((im.shape[0], im.shape[1], args.nChannel))
    HPy = outputHP[1:, :, :] - outputHP[0:-1, :, :]
    HPz = outputHP[:, 1:, :] - outputHP[:, 0:-1, :]
    lhpy = loss_hpy(HPy, HPy_target)
    lhpz = loss_hpz(HPz, HPz_target)

    ignore, target = torch.max(output, 1)
    im_target = target.data.cpu().numpy()
    nLabels = len(np.unique(im_target))

    # loss
    if args.scribble:
        loss = args.stepsize_sim * loss_fn(output[inds_sim], target[inds_sim]) + args.stepsize_scr * loss_fn_scr(
            output[inds_scr], target_scr[inds_scr]) + args.stepsize_con * (lhpy + lhpz)
    else:
        loss = args.stepsize_sim * loss_fn(output, target) + args.stepsize_con * (lhpy + lhpz)

    loss.backward()
    optimizer.step()

    print(batch_idx, '/', args.maxIter, '|', ' label num :', nLabels, ' | loss :', loss.item(), flush=True)
    wr.writerow([batch_idx, round(loss.item(), 5), nLabels]); f.flush()

    if nLabels <= args.minLabels:
        print("nLabels", nLabels, "reached minLabels", args.minLabels, ".")
        break
f.close()

# save output image
if not args.visualize:
    output = model(data)[0]
    output = output.permute(1, 2, 0).contiguous().view(-1, args.nChannel)
    ignore, target = torch.max(output, 1)
    im_target = target.data.cpu().numpy()
    im_target_rgb = np.array([label_colours[c % args.nChannel] for c in im_target])
    im_target_rgb = im_target_rgb.reshape(im.shape).astype(np.uint8)
    on_cat = np.bincount(im_target.reshape(cat.shape)[cat]).argmax()
    print('segments:', len(np.unique(im_target)), ' share of cat pixels in the cat segment: %.3f'
          % (im_target.reshape(cat.shape)[cat] == on_cat).mean())
