# d2l-ai/d2l-en "Factorization Machines" (chapter_recommender-systems/fm.md) in miniature, ported from
# MXNet Gluon to PyTorch: FM(field_dims, num_factors=20) with an embedding table for the pairwise
# interactions, an embedding fc of width 1 summed and passed through Dense(1) for the linear part,
# 0.5 * (square_of_sum - sum_of_square), and npx.sigmoid(x) applied in forward(); Xavier init;
# optimizer 'adam' with lr 0.02, 50 epochs, batch_size 2048 (last_batch "rollover" approximated by
# reshuffling), and gluon.loss.SigmoidBinaryCrossEntropyLoss() left at its default from_sigmoid=False,
# i.e. binary cross entropy with logits computed on the already-sigmoided output. d2l-style
# "epoch N, loss ..., train acc ..., test acc ..." lines and the final summary lines.
# A synthetic click-through data set (15000 training / 3000 test rows, 10 categorical fields)
# stands in for d2l's advertising data; clicks are drawn from a hidden FM-like score.
import csv, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(7); torch.manual_seed(7); torch.set_num_threads(1)

# ---- synthetic CTR data: 10 categorical fields, clicks from a hidden linear + pairwise score
field_dims = np.array([12, 30, 8, 50, 20, 6, 40, 15, 25, 10])
offsets = np.concatenate([[0], np.cumsum(field_dims)[:-1]])
true_w = np.random.normal(0, 1.0, field_dims.sum()); true_v = np.random.normal(0, 0.6, (field_dims.sum(), 4))
def make_set(n):
    cats = np.stack([np.random.randint(0, d, n) for d in field_dims], 1) + offsets
    s = true_w[cats].sum(1) + 0.5 * ((true_v[cats].sum(1)) ** 2 - (true_v[cats] ** 2).sum(1)).sum(1)
    s = (s - s.mean()) / s.std() * 2.5 - 0.8
    y = (np.random.rand(n) < 1 / (1 + np.exp(-s))).astype(np.float32)
    return torch.tensor(cats, dtype=torch.long), torch.tensor(y)
train_x, train_y = make_set(15000)
test_x, test_y = make_set(3000)

class FM(nn.Module):
    def __init__(self, field_dims, num_factors):
        super(FM, self).__init__()
        input_size = int(sum(field_dims))
        self.embedding = nn.Embedding(input_size, num_factors)
        self.fc = nn.Embedding(input_size, 1)
        self.linear_layer = nn.Linear(1, 1, bias=True)
        for m in (self.embedding, self.fc):
            nn.init.xavier_uniform_(m.weight)
        nn.init.xavier_uniform_(self.linear_layer.weight); nn.init.zeros_(self.linear_layer.bias)
    def forward(self, x):
        square_of_sum = torch.sum(self.embedding(x), dim=1) ** 2
        sum_of_square = torch.sum(self.embedding(x) ** 2, dim=1)
        x = self.linear_layer(self.fc(x).sum(1)) \
            + 0.5 * (square_of_sum - sum_of_square).sum(1, keepdim=True)
        x = torch.sigmoid(x)
        return x

def loss(output, label):
    # gluon.loss.SigmoidBinaryCrossEntropyLoss() with from_sigmoid=False: treats its input as logits
    return F.binary_cross_entropy_with_logits(output.reshape(-1), label, reduction='none')

def accuracy(y_hat, y):
    return float(((y_hat.reshape(-1) > 0.5).float() == y).sum())

def evaluate_accuracy(net, xs, ys, batch_size):
    with torch.no_grad():
        return sum(accuracy(net(xs[b:b + batch_size]), ys[b:b + batch_size]) for b in range(0, len(xs), batch_size)) / len(xs)

batch_size = 2048
net = FM(field_dims, num_factors=20)
lr, num_epochs = 0.02, 50
trainer = torch.optim.Adam(net.parameters(), lr=lr)
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'step', 'loss', 'train_acc', 'test_acc'])
step = 0; t0 = time.time(); n_seen = 0
for epoch in range(num_epochs):
    perm = torch.randperm(len(train_x)); l_sum = acc_sum = n = 0.0
    for b in range(0, len(perm) - batch_size + 1, batch_size):
        idx = perm[b:b + batch_size]
        X, y = train_x[idx], train_y[idx]
        y_hat = net(X)
        l = loss(y_hat, y)
        trainer.zero_grad(); l.sum().backward()
        for p in net.parameters():          # gluon Trainer.step(batch_size) rescales by 1 / batch_size
            p.grad /= batch_size
        trainer.step(); step += 1
        l_sum += float(l.detach().sum()); acc_sum += accuracy(y_hat, y); n += len(y); n_seen += len(y)
        wr.writerow([epoch + 1, step, round(float(l.detach().mean()), 5), '', ''])
    test_acc = evaluate_accuracy(net, test_x, test_y, batch_size)
    wr.writerow([epoch + 1, step, round(l_sum / n, 5), round(acc_sum / n, 4), round(test_acc, 4)]); f.flush()
    print('epoch %d, loss %.3f, train acc %.3f, test acc %.3f' % (epoch + 1, l_sum / n, acc_sum / n, test_acc), flush=True)
print('loss %.3f, train acc %.3f, test acc %.3f' % (l_sum / n, acc_sum / n, test_acc))
print('%.1f examples/sec on %s' % (n_seen / (time.time() - t0), 'cpu'))
f.close()
