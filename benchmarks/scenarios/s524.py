# kmonachopoulos/ImageNet-to-TFrecord in miniature: build_imagenet_data.py collects the training files synset by
# synset (so the list is sorted by class), then "shuffles" them with
#     shuffled_index = range(len(filenames)); random.seed(12345); random.shuffle(list(range(len(shuffled_index))))
# which shuffles a temporary list and leaves shuffled_index in order, and writes the records to the train-XXXXX-of-NNNNN
# shards in that order. The training side is a TF-slim-style input pipeline (the shards read one after another, a
# shuffle buffer of 128 records, batch 32) and a small CNN trained with momentum SGD, logging "global step ...: loss =
# ..." every 25 steps and evaluating on the validation shards after every epoch. Scaled down: 10 synthetic "synsets" of
# 300 training and 60 validation 3 x 16 x 16 images (class texture + colour prototypes with jitter and noise) instead
# of ImageNet's 1000 synsets, 10 shards, 8 epochs. metrics.csv has every step's loss and the batch's majority-class
# share, and the validation loss / top-1 after each epoch.
import csv, random, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(12345); np.random.seed(12345); random.seed(12345); torch.set_num_threads(1)
NUM_CLASSES, PER_CLASS, VAL_PER_CLASS, NUM_SHARDS = 10, 300, 60, 10
BATCH, BUFFER, EPOCHS, LR = 32, 128, 8, 0.01

rs = np.random.RandomState(7)
protos = rs.normal(0, 1, (NUM_CLASSES, 3, 16, 16)).astype(np.float32)
protos = (protos + np.roll(protos, 1, 2) + np.roll(protos, 1, 3) + np.roll(protos, (1, 1), (2, 3))) / 2.0
def synset_images(c, n, seed):
    r = np.random.RandomState(seed)
    out = []
    for _ in range(n):
        img = np.roll(protos[c], (r.randint(-2, 3), r.randint(-2, 3)), (1, 2)) * r.uniform(0.6, 1.4)
        out.append(img + r.normal(0, 1.6, img.shape).astype(np.float32))
    return np.stack(out)

# _find_image_files(): synsets in sorted order, each synset's files in order
filenames, labels = [], []
for c in range(NUM_CLASSES):
    for i in range(PER_CLASS):
        filenames.append((c, i)); labels.append(c)
images = {c: synset_images(c, PER_CLASS, 100 + c) for c in range(NUM_CLASSES)}
shuffled_index = range(len(filenames))
random.seed(12345)
random.shuffle(list(range(len(shuffled_index))))
filenames = [filenames[i] for i in shuffled_index]
labels = [labels[i] for i in shuffled_index]
print('Found %d JPEG files across %d labels inside train.' % (len(filenames), NUM_CLASSES))
# _process_image_files(): consecutive ranges of the list go to consecutive shards
x_all = torch.tensor(np.stack([images[c][i] for c, i in filenames]))
y_all = torch.tensor(labels)
shards = np.array_split(np.arange(len(filenames)), NUM_SHARDS)
for s, idx in enumerate(shards):
    print('Wrote %d images to train-%05d-of-%05d' % (len(idx), s, NUM_SHARDS))
xv = torch.tensor(np.concatenate([synset_images(c, VAL_PER_CLASS, 900 + c) for c in range(NUM_CLASSES)]))
yv = torch.arange(NUM_CLASSES).repeat_interleave(VAL_PER_CLASS)

def input_pipeline(rng):
    # records from the shards in file order through a shuffle buffer, then batched
    buf, batch = [], []
    for idx in shards:
        for i in idx:
            buf.append(int(i))
            if len(buf) >= BUFFER:
                batch.append(buf.pop(rng.randint(len(buf))))
                if len(batch) == BATCH:
                    yield batch; batch = []
    rng.shuffle(buf)
    for i in buf:
        batch.append(i)
        if len(batch) == BATCH:
            yield batch; batch = []

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1); self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 4 * 4, 64); self.logits = nn.Linear(64, NUM_CLASSES)
    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2); x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.logits(F.relu(self.fc1(x.flatten(1))))

net = Net()
opt = torch.optim.SGD(net.parameters(), lr=LR, momentum=0.9)
f = open('metrics.csv', 'w', newline=''); w = csv.writer(f)
w.writerow(['step', 'epoch', 'loss', 'batch_majority_share', 'val_loss', 'val_top1'])
rng = np.random.RandomState(0); step = 0
for epoch in range(1, EPOCHS + 1):
    net.train()
    for b in input_pipeline(rng):
        xb, yb = x_all[b], y_all[b]
        t0 = time.time()
        loss = F.cross_entropy(net(xb), yb)
        opt.zero_grad(); loss.backward(); opt.step(); step += 1
        maj = torch.bincount(yb, minlength=NUM_CLASSES).max().item() / len(yb)
        w.writerow([step, epoch, round(loss.item(), 5), round(maj, 3), '', ''])
        if step % 25 == 0:
            print('INFO:tensorflow:global step %d: loss = %.4f (%.3f sec/step)' % (step, loss.item(), time.time() - t0))
    net.eval()
    with torch.no_grad():
        out = net(xv); vl = F.cross_entropy(out, yv).item(); acc = (out.argmax(1) == yv).float().mean().item()
        pred_hist = torch.bincount(out.argmax(1), minlength=NUM_CLASSES).tolist()
    print('INFO:tensorflow:Evaluation [epoch %d]: eval/Accuracy[%.4f] eval/Loss[%.4f] predicted-class counts %s' % (epoch, acc, vl, pred_hist))
    w.writerow([step, epoch, '', '', round(vl, 5), round(acc, 4)]); f.flush()
f.close()
