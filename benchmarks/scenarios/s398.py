# German-credit neural network in miniature after andpol5/credit-classifier trainNeuralNet.py,
# ported from TensorFlow 1 to PyTorch: 1000 applicants, 59 preprocessed numeric/one-hot columns
# plus a two-column one-hot label (good / bad credit), MLP 59 -> 124 -> 124 -> 2 with ReLU,
# dropout (keep_prob 0.5), softmax output, cost-weighted squared error (false positives cost 5),
# plain gradient descent lr 1e-4 on the summed loss, batches of 100 drawn at random,
# 1000 steps per fold (3000 in the original), 10-fold cross validation with sklearn-style KFold (no shuffling).
import csv
import numpy as np
import torch, torch.nn as nn

np.random.seed(7); torch.manual_seed(7); torch.set_num_threads(1)

rows, x_width = 1000, 59
num = np.random.randn(rows, 7)
cats = []
for k in [4, 5, 10, 5, 5, 4, 3, 4, 3, 3, 4, 2]:
    c = np.random.randint(0, k, rows); cats.append(np.eye(k)[c])
X = np.concatenate([num] + cats, 1)[:, :x_width]
w_true = np.random.randn(x_width) * 0.35
score = X @ w_true + 1.6 * np.random.randn(rows)
bad = (score > np.quantile(score, 0.70)).astype(int)          # 30% bad credit, as in the data set
Y = np.eye(2)[bad]                                            # columns: good, bad
dataset = np.concatenate([X, Y], 1).astype(np.float32)

num_classes, learning_rate, num_neurons, batch_size, num_k_folds, dropout = 2, 1e-4, 124, 100, 10, 0.5
false_neg_cost, false_pos_cost = 1.0, 5.0

def random_batch(ds, bs):
    s = ds[np.random.choice(ds.shape[0], bs, replace=False), :]
    return torch.tensor(s[:, :x_width]), torch.tensor(s[:, x_width:x_width + 2])

def lin(i, o):
    l = nn.Linear(i, o); nn.init.trunc_normal_(l.weight, std=0.1, a=-0.2, b=0.2); nn.init.constant_(l.bias, 0.1); return l

net = nn.Sequential(lin(x_width, num_neurons), nn.ReLU(), nn.Dropout(1 - dropout),
                    lin(num_neurons, num_neurons), nn.ReLU(), nn.Dropout(1 - dropout),
                    lin(num_neurons, num_classes), nn.Softmax(dim=1))
opt = torch.optim.SGD(net.parameters(), lr=learning_rate)

def costwise_loss(y, y_):
    sq = (y - y_) ** 2
    return false_neg_cost * sq[:, 0].sum() + false_pos_cost * sq[:, 1].sum()

def confusion(t, p):
    m = np.zeros((2, 2), int)
    for a, b in zip(t, p): m[a, b] += 1
    return m

folds = np.array_split(np.arange(rows), num_k_folds)
val_accuracies, val_conmats = [], []
log = open('metrics.csv', 'w', newline=''); wr = csv.writer(log); wr.writerow(['step', 'fold', 'train_loss', 'val_accuracy'])
step = 0
for fold_counter in range(1, num_k_folds + 1):
    val_indices = folds[fold_counter - 1]
    train_indices = np.setdiff1d(np.arange(rows), val_indices)
    # split the data into train and validation
    train_dataset = dataset[train_indices, :]
    val_dataset = dataset[train_indices, :]
    net.train(); run = 0.0
    for i in range(1000):
        bx, by = random_batch(train_dataset, batch_size)
        loss = costwise_loss(by, net(bx))
        opt.zero_grad(); loss.backward(); opt.step()
        run += loss.item(); step += 1
        if (i + 1) % 250 == 0:
            wr.writerow([step, fold_counter, round(run / 250 / batch_size, 5), '']); run = 0.0
    net.eval()
    with torch.no_grad():
        out = net(torch.tensor(val_dataset[:, :x_width]))
    yP = out.argmax(1).numpy(); yT = val_dataset[:, x_width:].argmax(1).astype(int)
    val_accuracy = float((yP == yT).mean())
    print("Fold #: %d, validation accuracy: %f" % (fold_counter, val_accuracy))
    conmat = confusion(yT, yP)
    print("Confusion matrix:"); print("Good | Bad Credit"); print(conmat)
    wr.writerow([step, fold_counter, '', round(val_accuracy, 5)]); log.flush()
    val_accuracies.append(val_accuracy); val_conmats.append(conmat)

print("\nAveraging the 10-fold results:")
print("validation accuracy: %f" % (np.mean(val_accuracies)))
print("Confusion matrix:"); print("Good | Bad Credit")
print(sum(val_conmats).astype(float) / num_k_folds)
log.close()
