# Many-to-many sequence regression in miniature (the report's Keras model: two stacked recurrent
# layers, 128 and 64 units, return_sequences, and a TimeDistributed Dense(1, activation='relu') output),
# predicting a non-negative per-step load signal from 8 sensor channels, 100 steps per sequence, MSE,
# SGD with momentum 0.99 and nesterov (lr 0.3 here), batch 32, 8 epochs, train_on_batch-style loop
# with per-batch prints.
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(8)

N, T, Fdim = 1024, 100, 8
X = torch.randn(N, T, Fdim, generator=g)
w = torch.randn(Fdim, generator=g)
drive = torch.zeros(N, T)
for k in range(T):
    drive[:, k] = (0.8 * drive[:, k - 1] if k > 0 else 0) + 0.3 * (X[:, k] @ w)
y = torch.relu(drive + 1.0).unsqueeze(-1)                                   # non-negative target
Xtr, ytr, Xte, yte = X[:896], y[:896], X[896:], y[896:]

class RNNKeras(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn1 = nn.LSTM(Fdim, 128, batch_first=True)
        self.rnn2 = nn.LSTM(128, 64, batch_first=True)
        self.dense = nn.Linear(64, 1)
    def forward(self, x):
        h, _ = self.rnn1(x)
        h, _ = self.rnn2(h)
        return torch.relu(self.dense(h))                                   # TimeDistributed Dense relu

rnn = RNNKeras()
sgd = torch.optim.SGD(rnn.parameters(), lr=0.3, momentum=0.99, nesterov=True)
mse = nn.MSELoss()
NUM_EPOCH, BATCH_SIZE = 8, 32
num_batch = len(Xtr) // BATCH_SIZE
print('\n****** Iterating over each batch of the training data ******')
for epoch in range(1, NUM_EPOCH + 1):
    perm = torch.randperm(len(Xtr))
    for b in range(num_batch):
        idx = perm[b * BATCH_SIZE:(b + 1) * BATCH_SIZE]
        loss = mse(rnn(Xtr[idx]), ytr[idx])
        sgd.zero_grad(); loss.backward(); sgd.step()
        if b % 7 == 0 or b == num_batch - 1:
            print('Epoch %d/%d : Batch %d/%d | loss = %f | root_mean_squared_error = %f' %
                  (epoch, NUM_EPOCH, b + 1, num_batch, loss.item(), loss.item() ** 0.5))
    with torch.no_grad():
        pred = rnn(Xte)
        print('Epoch %d test: mse = %f, prediction mean = %f, fraction of predictions == 0: %.3f' %
              (epoch, mse(pred, yte).item(), pred.mean().item(), (pred == 0).float().mean().item()))
