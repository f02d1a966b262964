# yushuowiki/ALTER issue "训练集正确率为什么远低于测试集？" (why is the training accuracy far below the test accuracy?) in
# miniature: the repository's training loop (alter/training/training.py with conf/preprocess/mixup.yaml, i.e.
# continus_mixup_data() on every training batch: lam ~ Beta(1, 1), inputs and one-hot labels mixed with a shuffled copy
# of the batch; CrossEntropyLoss(reduction='sum') on the soft labels; Adam lr 1e-4, weight_decay 1e-4, cosine schedule
# from 1e-4 to 1e-5 over all steps; batch 16 with drop_last; a 70/10/20 split; the per-epoch log line "Epoch[e/E] |
# Train Loss: | Train Accuracy: % | Test Loss: | Test Accuracy: % | Val AUC: | Test AUC: | Test Sen: | LR:"). The
# training accuracy is accuracy(predict, label[:, 1]) on the mixed batch, so a prediction only counts as correct when
# the mixed label happens to be exactly 0 or 1; the test accuracy is measured on clean data in eval mode. The loss
# meters average loss.item(), a sum over the batch, per batch (weighted by the batch size), as TotalMeter does.
# Scaled down: the GraphTransformer of alter/models/transformer.py (two TransformerEncoderLayer over the ROI nodes,
# nhead 4, dim_feedforward 1024, "concat" readout through Linear(node_feature_sz, 8), then 256-32-2) on 600 synthetic
# subjects with 32 ROIs (node features = rows of the Pearson correlation matrix of synthetic ROI time series; in
# class 1 a subset of ROI pairs is weaker coupled, so the classes overlap as in ABIDE), 30 epochs instead of 200.
# metrics.csv has the per-epoch train / test loss and accuracy, val / test AUC, and a clean (unmixed, eval-mode)
# training-set accuracy computed on the side.
import csv, math
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F
import torch.utils.data as utils

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
ROI, T, N_SUB = 32, 60, 600
EPOCHS, BATCH, LR, TARGET_LR, WD = 30, 16, 1.0e-4, 1.0e-5, 1.0e-4

rs = np.random.RandomState(3)
mix_base = rs.normal(0, 1, (ROI, 6))                     # shared network structure
weak = rs.rand(ROI, 6) < 0.25                             # loadings weakened in class 1
def subject(label):
    load = mix_base * rs.uniform(0.7, 1.3, mix_base.shape)
    if label == 1: load = np.where(weak, load * 0.8, load)
    ts = rs.normal(0, 1, (T, 6)) @ load.T + rs.normal(0, 1.2, (T, ROI))
    return ts.T.astype(np.float32), np.corrcoef(ts.T).astype(np.float32)
labels = rs.randint(0, 2, N_SUB)
data = [subject(l) for l in labels]
final_timeseires = np.stack([d[0] for d in data]); final_pearson = np.stack([d[1] for d in data])
final_timeseires = (final_timeseires - final_timeseires.mean()) / final_timeseires.std()
final_timeseires, final_pearson = torch.from_numpy(final_timeseires), torch.from_numpy(final_pearson)
labels_1h = F.one_hot(torch.from_numpy(labels).long())
train_length, val_length = int(N_SUB * 0.7), int(N_SUB * 0.1)
test_length = N_SUB - train_length - val_length
dataset = utils.TensorDataset(final_timeseires, final_pearson, labels_1h)
train_dataset, val_dataset, test_dataset = utils.random_split(dataset, [train_length, val_length, test_length],
                                                              generator=torch.Generator().manual_seed(0))
train_dataloader = utils.DataLoader(train_dataset, batch_size=BATCH, shuffle=True, drop_last=True)
val_dataloader = utils.DataLoader(val_dataset, batch_size=BATCH, shuffle=True, drop_last=False)
test_dataloader = utils.DataLoader(test_dataset, batch_size=BATCH, shuffle=True, drop_last=False)
steps_per_epoch = (train_length - 1) // BATCH + 1; total_steps = steps_per_epoch * EPOCHS

def continus_mixup_data(*xs, y=None, alpha=1.0):
    lam = np.random.beta(alpha, alpha) if alpha > 0 else 1
    index = torch.randperm(y.size()[0])
    new_xs = [lam * x + (1 - lam) * x[index, :] for x in xs]
    y = lam * y + (1 - lam) * y[index]
    return (*new_xs, y)

def accuracy(output, target, top_k=(1,)):
    max_k = max(top_k); batch_size = target.size(0)
    _, predict = output.topk(max_k, 1, True, True); predict = predict.t()
    correct = predict.eq(target.view(1, -1).expand_as(predict))
    return [correct[:k].reshape(-1).float().sum(0, keepdim=True).mul_(100.0 / batch_size).item() for k in top_k]

def roc_auc_score(y, s):
    y, s = np.asarray(y), np.asarray(s); pos, neg = s[y == 1], s[y == 0]
    if len(pos) == 0 or len(neg) == 0: return float('nan')
    return float(((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()) / (len(pos) * len(neg)))

class TotalMeter:
    def __init__(self): self.sum, self.count = 0.0, 0
    def update_with_weight(self, val, weight): self.sum += val * weight; self.count += weight
    @property
    def avg(self): return self.sum / max(self.count, 1)

class GraphTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention_list = nn.ModuleList([nn.TransformerEncoderLayer(d_model=ROI, nhead=4, dim_feedforward=1024, batch_first=True) for _ in range(2)])
        self.dim_reduction = nn.Sequential(nn.Linear(ROI, 8), nn.LeakyReLU())
        self.fc = nn.Sequential(nn.Linear(8 * ROI, 256), nn.LeakyReLU(), nn.Linear(256, 32), nn.LeakyReLU(), nn.Linear(32, 2))
    def forward(self, time_seires, node_feature):
        bz = node_feature.shape[0]
        for atten in self.attention_list: node_feature = atten(node_feature)
        return self.fc(self.dim_reduction(node_feature).reshape((bz, -1)))

model = GraphTransformer()
print('#model params: %d' % sum(p.numel() for p in model.parameters() if p.requires_grad))
optimizer = torch.optim.Adam(model.parameters(), lr=LR, weight_decay=WD)
loss_fn = nn.CrossEntropyLoss(reduction='sum')
def cos_lr(step):
    return TARGET_LR + (LR - TARGET_LR) * (1 + math.cos(math.pi * step / total_steps)) / 2

def test_per_epoch(dataloader, loss_meter, acc_meter):
    labels_, result = [], []; model.eval()
    with torch.no_grad():
        for time_series, node_feature, label in dataloader:
            output = model(time_series, node_feature); label = label.float()
            loss_meter.update_with_weight(loss_fn(output, label).item(), label.shape[0])
            acc_meter.update_with_weight(accuracy(output, label[:, 1])[0], label.shape[0])
            result += F.softmax(output, dim=1)[:, 1].tolist(); labels_ += label[:, 1].tolist()
    auc = roc_auc_score(labels_, result)
    pred = (np.array(result) > 0.5).astype(int); lab = np.array(labels_)
    sen = float(((pred == 1) & (lab == 1)).sum() / max(1, (lab == 1).sum()))
    return auc, sen

f = open('metrics.csv', 'w', newline=''); w = csv.writer(f)
w.writerow(['epoch', 'train_loss', 'train_acc', 'test_loss', 'test_acc', 'val_auc', 'test_auc', 'lr', 'clean_train_acc'])
current_step = 0
for epoch in range(EPOCHS):
    train_loss, train_accuracy, val_loss, val_accuracy, test_loss, test_accuracy = [TotalMeter() for _ in range(6)]
    model.train()
    for time_series, node_feature, label in train_dataloader:
        label = label.float(); current_step += 1
        lr = cos_lr(current_step)
        for g in optimizer.param_groups: g['lr'] = lr
        time_series, node_feature, label = continus_mixup_data(time_series, node_feature, y=label)
        predict = model(time_series, node_feature)
        loss = loss_fn(predict, label)
        train_loss.update_with_weight(loss.item(), label.shape[0])
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        train_accuracy.update_with_weight(accuracy(predict, label[:, 1])[0], label.shape[0])
    val_auc, _ = test_per_epoch(val_dataloader, val_loss, val_accuracy)
    test_auc, test_sen = test_per_epoch(test_dataloader, test_loss, test_accuracy)
    clean_loss, clean_acc = TotalMeter(), TotalMeter()
    test_per_epoch(utils.DataLoader(train_dataset, batch_size=BATCH), clean_loss, clean_acc)
    print(" | ".join([f'Epoch[{epoch}/{EPOCHS}]', f'Train Loss:{train_loss.avg: .3f}', f'Train Accuracy:{train_accuracy.avg: .3f}%',
                      f'Test Loss:{test_loss.avg: .3f}', f'Test Accuracy:{test_accuracy.avg: .3f}%', f'Val AUC:{val_auc:.4f}',
                      f'Test AUC:{test_auc:.4f}', f'Test Sen:{test_sen:.4f}', f'LR:{lr:.4f}']))
    w.writerow([epoch, round(train_loss.avg, 4), round(train_accuracy.avg, 3), round(test_loss.avg, 4), round(test_accuracy.avg, 3),
                round(val_auc, 4), round(test_auc, 4), lr, round(clean_acc.avg, 3)]); f.flush()
f.close()
