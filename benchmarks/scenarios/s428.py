# zergtant/pytorch-handbook chapter 3.1 "logistic regression" notebook in miniature: the German credit
# data (german.data-numeric: 1000 rows, 24 numeric attributes, last column the class 1/2) replaced by 1000
# synthetic rows of the same layout, columns normalised by mean/std, 900 training and 100 test rows,
# class LR(nn.Module) with fc = nn.Linear(24, 2) and a sigmoid, nn.CrossEntropyLoss(), Adam (default
# lr), full batch, 1000 epochs, "Epoch:{},Loss:{:.4f},Accuracy：{:.2f}" every 100 epochs.
# In this copy of the notebook the labels are taken as a column slice, so train_lab has shape [900, 1]
# instead of [900]:
#     train_lab = data[:900, n_l - 1:] - 1
import csv
import numpy as np
import torch, torch.nn as nn

np.random.seed(37); torch.manual_seed(37); torch.set_num_threads(1)
n, n_l = 1000, 25
feat = np.random.randn(n, 24) * np.random.uniform(0.5, 20, 24) + np.random.uniform(0, 50, 24)
w = np.random.randn(24)
cls = 1 + (((feat - feat.mean(0)) / feat.std(0)) @ w + 0.8 * np.random.randn(n) > 0.8).astype(np.float64)
data = np.c_[np.round(feat), cls]
for j in range(n_l - 1):
    meanVal = np.mean(data[:, j]); stdVal = np.std(data[:, j])
    data[:, j] = (data[:, j] - meanVal) / stdVal
np.random.shuffle(data)
train_data = data[:900, :n_l - 1]; train_lab = data[:900, n_l - 1:] - 1
test_data = data[900:, :n_l - 1]; test_lab = data[900:, n_l - 1:] - 1
print('train_data', train_data.shape, 'train_lab', train_lab.shape, 'test_data', test_data.shape)

class LR(nn.Module):
    def __init__(self):
        super(LR, self).__init__()
        self.fc = nn.Linear(24, 2)
    def forward(self, x):
        out = self.fc(x)
        out = torch.sigmoid(out)
        return out
def test(pred, lab):
    t = pred.max(-1)[1] == lab.view(-1)
    return torch.mean(t.float())

net = LR(); criterion = nn.CrossEntropyLoss(); optm = torch.optim.Adam(net.parameters())
wr = csv.writer(open('metrics.csv', 'w', newline='')); wr.writerow(['epoch', 'loss', 'accuracy'])
epochs = 1000
for i in range(epochs):
    net.train()
    x = torch.from_numpy(train_data).float()
    y = torch.from_numpy(train_lab).long()
    y_hat = net(x)
    loss = criterion(y_hat, y)
    optm.zero_grad(); loss.backward(); optm.step()
    if (i + 1) % 100 == 0:
        net.eval()
        test_in = torch.from_numpy(test_data).float(); test_l = torch.from_numpy(test_lab).long()
        test_out = net(test_in); accu = test(test_out, test_l)
        print('Epoch:{},Loss:{:.4f},Accuracy：{:.2f}'.format(i + 1, loss.item(), accu))
        wr.writerow([i + 1, loss.item(), accu.item()])
