# Lightning-AI/pytorch-lightning pull request "Fixed bug: replaced bce_loss_with_logits with bce_loss" in miniature:
# pl_examples/domain_templates/computer_vision_fine_tuning.py as it stood in April 2021, before the pull request:
# TransferLearningModel (a pre-trained ResNet50 without its last layer as feature_extractor, the classifier
# nn.Linear(2048, 256), nn.ReLU(), nn.Linear(256, 32), nn.Linear(32, 1), self.loss_func =
# F.binary_cross_entropy_with_logits) whose forward() ends with "return torch.sigmoid(x)" under the comment
# "# 2. Classifier (returns logits):", so the loss receives probabilities and applies a second sigmoid; train_acc and
# val_acc are torchmetrics Accuracy() on the same probabilities (threshold 0.5). The script's defaults: Adam lr 1e-3
# over the trainable parameters ("The model will start training with only N trainable parameters out of M."),
# MultiStepLR(milestones=[2, 4], gamma=0.1) stepped per epoch, batch size 8, 15 epochs, train_bn False, and the
# MilestonesFinetuning callback: the whole feature extractor is frozen before training, feature_extractor[-5:] is
# unfrozen at epoch 2 and the rest at epoch 4, each added as a new parameter group with a tenth of the first group's
# current learning rate (BaseFinetuning.unfreeze_and_add_param_group; BatchNorm weights stay out of the optimizer
# with train_bn False, and the frozen BatchNorm layers keep updating their running statistics in train mode).
# ImageNet normalisation and RandomHorizontalFlip on the training images; the progress bar after each epoch shows
# loss (mean of the last 20 training losses), train_acc (last batch), val_loss and val_acc (epoch means). Scaled
# down: 32 x 32 synthetic cats and dogs (ear shape, face shape, fur colour and stripes, with overlap; 400 + 400 for
# training and 100 + 100 for validation instead of cats_and_dogs_filtered's 2000 / 1000) and a ResNet-shaped stack
# of random-weight conv-BatchNorm layers (conv1, bn1, relu, maxpool, layer1-4, avgpool; 128 features) standing in
# for the pre-trained ResNet50 (the head is therefore 128 -> 256 -> 32 -> 1). metrics.csv has the per-epoch training
# loss and accuracy (epoch means), validation loss and accuracy, and the first group's learning rate.
import csv, math
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F
from torch import optim
from torch.optim.lr_scheduler import MultiStepLR

torch.manual_seed(1234); np.random.seed(1234); torch.set_num_threads(1)
S = 32
MEAN, STD = np.array([0.485, 0.456, 0.406], np.float32), np.array([0.229, 0.224, 0.225], np.float32)
rs = np.random.RandomState(3)
yy, xx = np.mgrid[0:S, 0:S].astype(np.float32)

def animal(label):
    img = np.ones((3, S, S), np.float32) * rs.uniform(0.2, 0.9, (3, 1, 1))
    cx, cy = S / 2 + rs.uniform(-3, 3), S / 2 + 2 + rs.uniform(-3, 3)
    r = rs.uniform(7, 10)
    fur = (np.array([0.85, 0.55, 0.25]) if label == 0 else np.array([0.45, 0.33, 0.28])) + rs.normal(0, 0.12, 3)
    aspect = rs.uniform(0.85, 1.05) if label == 0 else rs.uniform(1.0, 1.3)      # dogs: longer snout
    face = ((xx - cx) / r) ** 2 + ((yy - cy) / (r * aspect)) ** 2 <= 1
    for k in range(3): img[k][face] = fur[k]
    if label == 0 and rs.rand() < 0.7:                                             # tabby stripes
        stripes = face & (np.sin(xx * rs.uniform(1.2, 1.8) + rs.uniform(0, 6)) > 0.5)
        img[:, stripes] *= 0.55
    for side in (-1, 1):
        ex = cx + side * r * 0.6
        if label == 0 and rs.rand() < 0.85:                                         # pointed ears on top
            ear = (yy < cy - r * 0.6) & (yy > cy - r * 1.5) & (np.abs(xx - ex) < (yy - (cy - r * 1.5)) * 0.5)
        else:                                                                       # floppy ears at the sides
            ear = (np.abs(xx - (cx + side * r * 0.95)) < 2.5) & (yy > cy - r * 0.5) & (yy < cy + r * 0.4)
        for k in range(3): img[k][ear] = fur[k] * 0.7
    for side in (-1, 1):
        img[:, (xx - cx - side * r * 0.35) ** 2 + (yy - cy + r * 0.2) ** 2 <= 1.5] = 0.05
    img += rs.normal(0, 0.08, img.shape).astype(np.float32)
    return ((np.clip(img, 0, 1) - MEAN[:, None, None]) / STD[:, None, None]).astype(np.float32)

def image_folder(n_per_class):      # ImageFolder: class 0 = cats, class 1 = dogs
    x = np.stack([animal(c) for c in (0, 1) for _ in range(n_per_class)]); y = np.repeat([0, 1], n_per_class)
    return torch.from_numpy(x), torch.from_numpy(y)
train_x, train_y = image_folder(400)
valid_x, valid_y = image_folder(100)
BATCH = 8

def conv_bn(i, o, stride=1): return nn.Sequential(nn.Conv2d(i, o, 3, stride, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU())
backbone_children = [nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                     conv_bn(16, 32), conv_bn(32, 64, 2), conv_bn(64, 96, 2), conv_bn(96, 128, 2), nn.AdaptiveAvgPool2d(1)]

class Accuracy:                     # torchmetrics.Accuracy() for binary probabilities, threshold 0.5
    def __init__(self): self.correct = 0; self.total = 0
    def __call__(self, preds, target):
        c = int(((preds >= 0.5).int() == target).sum()); n = target.numel()
        self.correct += c; self.total += n
        return c / n
    def compute(self):
        v = self.correct / max(self.total, 1); self.correct = self.total = 0; return v

class TransferLearningModel(nn.Module):
    def __init__(self, backbone="resnet50", train_bn=False, milestones=(2, 4), batch_size=8, lr=1e-3,
                 lr_scheduler_gamma=1e-1, num_workers=6):
        super().__init__()
        self.backbone, self.train_bn, self.milestones = backbone, train_bn, milestones
        self.batch_size, self.lr, self.lr_scheduler_gamma, self.num_workers = batch_size, lr, lr_scheduler_gamma, num_workers
        self.__build_model()
        self.train_acc = Accuracy(); self.valid_acc = Accuracy()
    def __build_model(self):
        self.feature_extractor = nn.Sequential(*backbone_children)
        _fc_layers = [nn.Linear(128, 256), nn.ReLU(), nn.Linear(256, 32), nn.Linear(32, 1)]
        self.fc = nn.Sequential(*_fc_layers)
        self.loss_func = F.binary_cross_entropy_with_logits
    def forward(self, x):
        """Forward pass. Returns logits."""
        x = self.feature_extractor(x)
        x = x.squeeze(-1).squeeze(-1)
        # 2. Classifier (returns logits):
        x = self.fc(x)
        return torch.sigmoid(x)
    def loss(self, logits, labels):
        return self.loss_func(input=logits, target=labels)
    def training_step(self, batch, batch_idx):
        x, y = batch
        y_logits = self.forward(x)
        y_true = y.view((-1, 1)).type_as(x)
        train_loss = self.loss(y_logits, y_true)
        acc = self.train_acc(y_logits, y_true.int())
        return train_loss, acc
    def validation_step(self, batch, batch_idx):
        x, y = batch
        y_logits = self.forward(x)
        y_true = y.view((-1, 1)).type_as(x)
        val_loss = self.loss(y_logits, y_true)
        self.valid_acc(y_logits, y_true.int())
        return val_loss.item(), y_true.shape[0]
    def configure_optimizers(self):
        parameters = list(self.parameters())
        trainable_parameters = list(filter(lambda p: p.requires_grad, parameters))
        print(f"The model will start training with only {len(trainable_parameters)} "
              f"trainable parameters out of {len(parameters)}.")
        optimizer = optim.Adam(trainable_parameters, lr=self.lr)
        scheduler = MultiStepLR(optimizer, milestones=list(self.milestones), gamma=self.lr_scheduler_gamma)
        return optimizer, scheduler

def flatten(modules):
    return [m for m in modules.modules() if not list(m.children())]
def freeze(modules, train_bn=True):
    for mod in flatten(modules):
        if isinstance(mod, nn.modules.batchnorm._BatchNorm) and train_bn:
            for p in mod.parameters(): p.requires_grad = True
        else:
            for p in mod.parameters(): p.requires_grad = False
def unfreeze_and_add_param_group(modules, optimizer, train_bn=True, initial_denom_lr=10.0):
    for p in modules.parameters(): p.requires_grad = True
    params_lr = optimizer.param_groups[0]["lr"]
    in_opt = {id(p) for g in optimizer.param_groups for p in g["params"]}
    params = [p for mod in flatten(modules) if not (isinstance(mod, nn.modules.batchnorm._BatchNorm) and not train_bn)
              for p in mod.parameters() if p.requires_grad and id(p) not in in_opt]
    if params: optimizer.add_param_group({"params": params, "lr": params_lr / initial_denom_lr})

class MilestonesFinetuning:
    def __init__(self, milestones=(5, 10), train_bn=False):
        self.milestones, self.train_bn = milestones, train_bn
    def freeze_before_training(self, pl_module):
        freeze(pl_module.feature_extractor, train_bn=self.train_bn)
    def finetune_function(self, pl_module, epoch, optimizer, opt_idx):
        if epoch == self.milestones[0]:
            unfreeze_and_add_param_group(pl_module.feature_extractor[-5:], optimizer, train_bn=self.train_bn)
        elif epoch == self.milestones[1]:
            unfreeze_and_add_param_group(pl_module.feature_extractor[:-5], optimizer, train_bn=self.train_bn)

nb_epochs, milestones = 15, [2, 4]
model = TransferLearningModel(milestones=milestones, lr=1e-3, batch_size=BATCH)
finetuning_callback = MilestonesFinetuning(milestones=milestones)
finetuning_callback.freeze_before_training(model)
optimizer, scheduler = model.configure_optimizers()
f = open('metrics.csv', 'w', newline=''); w = csv.writer(f)
w.writerow(['epoch', 'step', 'train_loss', 'train_acc', 'val_loss', 'val_acc', 'lr'])
n_train_batches = math.ceil(len(train_y) / BATCH); n_val_batches = math.ceil(len(valid_y) / BATCH)
g = torch.Generator().manual_seed(1234); recent = []; step = 0
for epoch in range(nb_epochs):
    finetuning_callback.finetune_function(model, epoch, optimizer, 0)
    model.train()
    perm = torch.randperm(len(train_y), generator=g)
    losses, accs = [], []
    for b in range(n_train_batches):
        idx = perm[b * BATCH:(b + 1) * BATCH]
        x = train_x[idx].clone()
        flip = torch.rand(len(idx), generator=g) < 0.5                   # RandomHorizontalFlip
        x[flip] = x[flip].flip(-1)
        loss, acc = model.training_step((x, train_y[idx]), b)
        optimizer.zero_grad(); loss.backward(); optimizer.step(); step += 1
        losses.append(loss.item()); accs.append(acc); recent = (recent + [loss.item()])[-20:]
    model.train_acc.compute()
    model.eval()
    with torch.no_grad():
        vl = [model.validation_step((valid_x[b * BATCH:(b + 1) * BATCH], valid_y[b * BATCH:(b + 1) * BATCH]), b)
              for b in range(n_val_batches)]
    val_loss = sum(l * n for l, n in vl) / sum(n for _, n in vl); val_acc = model.valid_acc.compute()
    lr = optimizer.param_groups[0]["lr"]
    total = n_train_batches + n_val_batches
    print(f"Epoch {epoch}: 100%|##########| {total}/{total} [loss={np.mean(recent):.3g}, v_num=0, "
          f"train_acc={accs[-1]:.3f}, val_loss={val_loss:.3f}, val_acc={val_acc:.3f}]")
    w.writerow([epoch, step, round(float(np.mean(losses)), 5), round(float(np.mean(accs)), 4), round(val_loss, 5),
                round(val_acc, 4), lr]); f.flush()
    scheduler.step()
f.close()
