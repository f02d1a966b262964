"""LSTNet (conv + GRU + skip-GRU + autoregressive highway) on a synthetic multivariate load series.

Training loop and prints follow nnzhan/Graph-WaveNet train.py / engine.py (masked MAE in the
original units, Adam with weight decay, gradient clipping at 5, Iter / Epoch lines, per-horizon test).
"""
import argparse
import math
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)


def make_series(T=2600, m=8, seed=11):
    rng = np.random.default_rng(seed)
    t = np.arange(T)
    daily = np.sin(2 * np.pi * t / 24)
    half = np.sin(2 * np.pi * t / 12 + 0.7)
    weekly = np.sin(2 * np.pi * t / 168)
    levels = np.array([30., 120., 800., 2500., 60., 400., 5000., 15.])
    out = np.zeros((T, m))
    ar = np.zeros(m)
    for j in range(m):
        w = rng.uniform(0.2, 0.45, 3)
        for i in range(T):
            ar[j] = 0.8 * ar[j] + rng.normal(0, 0.06)
            out[i, j] = 1 + w[0] * daily[i] + w[1] * half[i] + w[2] * weekly[i] + ar[j]
        out[:, j] *= levels[j]
    return np.abs(out) + rng.normal(0, 0.02, (T, m)) * levels


class Data_utility(object):
    def __init__(self, train, valid, horizon, window, normalize=2):
        self.P, self.h = window, horizon
        self.rawdat = make_series()
        self.dat = np.zeros(self.rawdat.shape)
        self.n, self.m = self.dat.shape
        self.normalize = normalize
        self.scale = np.ones(self.m)
        self._normalized(normalize)
        self._split(int(train * self.n), int((train + valid) * self.n), self.n)
        self.scale = torch.from_numpy(self.scale).float()
        tmp = self.test[1] * self.scale.expand(self.test[1].size(0), self.m)
        self.rse = normal_std(tmp)
        self.rae = torch.mean(torch.abs(tmp - torch.mean(tmp)))

    def _normalized(self, normalize):
        if normalize == 0:
            self.dat = self.rawdat
        if normalize == 1:
            self.dat = self.rawdat / np.max(self.rawdat)
        if normalize == 2:
            for i in range(self.m):
                self.scale[i] = np.max(np.abs(self.rawdat[:, i]))
                self.dat[:, i] = self.rawdat[:, i] / np.max(np.abs(self.rawdat[:, i]))

    def _split(self, train, valid, test):
        train_set = range(self.P + self.h - 1, train)
        valid_set = range(train, valid)
        test_set = range(valid, self.n)
        self.train = self._batchify(train_set)
        self.valid = self._batchify(valid_set)
        self.test = self._batchify(test_set)

    def _batchify(self, idx_set):
        n = len(idx_set)
        X = torch.zeros((n, self.P, self.m))
        Y = torch.zeros((n, self.m))
        for i in range(n):
            end = idx_set[i] - self.h + 1
            start = end - self.P
            X[i, :, :] = torch.from_numpy(self.dat[start:end, :])
            Y[i, :] = torch.from_numpy(self.dat[idx_set[i], :])
        return [X, Y]

    def get_batches(self, inputs, targets, batch_size, shuffle=True):
        length = len(inputs)
        if shuffle:
            index = torch.randperm(length)
        else:
            index = torch.LongTensor(range(length))
        start_idx = 0
        while start_idx < length:
            end_idx = min(length, start_idx + batch_size)
            excerpt = index[start_idx:end_idx]
            yield inputs[excerpt], targets[excerpt]
            start_idx += batch_size


def normal_std(x):
    return x.std() * np.sqrt((len(x) - 1.) / (len(x)))


class Model(nn.Module):
    def __init__(self, args, data):
        super(Model, self).__init__()
        self.P = args.window
        self.m = data.m
        self.hidR = args.hidRNN
        self.hidC = args.hidCNN
        self.hidS = args.hidSkip
        self.Ck = args.CNN_kernel
        self.skip = args.skip
        self.pt = (self.P - self.Ck) // self.skip
        self.hw = args.highway_window
        self.conv1 = nn.Conv2d(1, self.hidC, kernel_size=(self.Ck, self.m))
        self.GRU1 = nn.GRU(self.hidC, self.hidR)
        self.dropout = nn.Dropout(p=args.dropout)
        if self.skip > 0:
            self.GRUskip = nn.GRU(self.hidC, self.hidS)
            self.linear1 = nn.Linear(self.hidR + self.skip * self.hidS, self.m)
        else:
            self.linear1 = nn.Linear(self.hidR, self.m)
        if self.hw > 0:
            self.highway = nn.Linear(self.hw, 1)
        self.output = None
        if args.output_fun == 'sigmoid':
            self.output = torch.sigmoid
        if args.output_fun == 'tanh':
            self.output = torch.tanh

    def forward(self, x):
        batch_size = x.size(0)
        c = x.view(-1, 1, self.P, self.m)
        c = F.relu(self.conv1(c))
        c = self.dropout(c)
        c = torch.squeeze(c, 3)
        r = c.permute(2, 0, 1).contiguous()
        _, r = self.GRU1(r)
        r = self.dropout(torch.squeeze(r, 0))
        if self.skip > 0:
            s = c[:, :, int(-self.pt * self.skip):].contiguous()
            s = s.view(batch_size, self.hidC, self.pt, self.skip)
            s = s.permute(2, 0, 3, 1).contiguous()
            s = s.view(self.pt, batch_size * self.skip, self.hidC)
            _, s = self.GRUskip(s)
            s = s.view(batch_size, self.skip * self.hidS)
            s = self.dropout(s)
            r = torch.cat((r, s), 1)
        res = self.linear1(r)
        if self.hw > 0:
            z = x[:, -self.hw:, :]
            z = z.permute(0, 2, 1).contiguous().view(-1, self.hw)
            z = self.highway(z)
            z = z.view(-1, self.m)
            res = res + z
        if self.output:
            res = self.output(res)
        return res


class Optim(object):
    def _makeOptimizer(self):
        if self.method == 'sgd':
            self.optimizer = torch.optim.SGD(self.params, lr=self.lr)
        elif self.method == 'adam':
            self.optimizer = torch.optim.Adam(self.params, lr=self.lr)
        else:
            raise RuntimeError("Invalid optim method: " + self.method)

    def __init__(self, params, method, lr, max_grad_norm):
        self.params = list(params)
        self.lr = lr
        self.max_grad_norm = max_grad_norm
        self.method = method
        self._makeOptimizer()

    def step(self):
        grad_norm = 0
        for param in self.params:
            grad_norm += math.pow(param.grad.data.norm(), 2)
        grad_norm = math.sqrt(grad_norm)
        if grad_norm > 0:
            shrinkage = self.max_grad_norm / grad_norm
        else:
            shrinkage = 1.
        for param in self.params:
            if shrinkage < 1:
                param.grad.data.mul_(shrinkage)
        self.optimizer.step()
        return grad_norm



def masked_mae(preds, labels, null_val=np.nan):
    if np.isnan(null_val):
        mask = ~torch.isnan(labels)
    else:
        mask = (labels != null_val)
    mask = mask.float()
    mask /= torch.mean(mask)
    mask = torch.where(torch.isnan(mask), torch.zeros_like(mask), mask)
    loss = torch.abs(preds - labels)
    loss = loss * mask
    loss = torch.where(torch.isnan(loss), torch.zeros_like(loss), loss)
    return torch.mean(loss)


def metric(pred, real):
    mae = masked_mae(pred, real, 0.0).item()
    mape = torch.mean(torch.abs(pred - real) / torch.abs(real)).item()
    rmse = torch.sqrt(torch.mean((pred - real) ** 2)).item()
    return mae, mape, rmse


class trainer():
    def __init__(self, args, data):
        self.model = Model(args, data)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=args.learning_rate, weight_decay=args.weight_decay)
        self.loss = masked_mae
        self.scale = data.scale
        self.clip = 5

    def train(self, input, real_val):
        self.model.train()
        self.optimizer.zero_grad()
        output = self.model(input)
        predict = output * self.scale
        real = real_val * self.scale
        loss = self.loss(predict, real, 0.0)
        loss.backward()
        if self.clip is not None:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
        self.optimizer.step()
        mape = torch.mean(torch.abs(predict - real) / torch.abs(real)).item()
        rmse = torch.sqrt(torch.mean((predict - real) ** 2)).item()
        return loss.item(), mape, rmse

    def eval(self, input, real_val):
        self.model.eval()
        with torch.no_grad():
            output = self.model(input)
        predict = output * self.scale
        real = real_val * self.scale
        return metric(predict, real)


parser = argparse.ArgumentParser()
parser.add_argument('--device', type=str, default='cpu', help='')
parser.add_argument('--data', type=str, default='data/SYNTH-LOAD', help='data path')
parser.add_argument('--hidCNN', type=int, default=32)
parser.add_argument('--hidRNN', type=int, default=32)
parser.add_argument('--window', type=int, default=24 * 2)
parser.add_argument('--CNN_kernel', type=int, default=6)
parser.add_argument('--highway_window', type=int, default=24)
parser.add_argument('--skip', type=int, default=24)
parser.add_argument('--hidSkip', type=int, default=5)
parser.add_argument('--horizon', type=int, default=3)
parser.add_argument('--normalize', type=int, default=2)
parser.add_argument('--output_fun', type=str, default='sigmoid')
parser.add_argument('--batch_size', type=int, default=64, help='batch size')
parser.add_argument('--learning_rate', type=float, default=0.001, help='learning rate')
parser.add_argument('--dropout', type=float, default=0.2, help='dropout rate')
parser.add_argument('--weight_decay', type=float, default=0.0001, help='weight decay rate')
parser.add_argument('--epochs', type=int, default=12, help='')
parser.add_argument('--print_every', type=int, default=8, help='')
parser.add_argument('--seed', type=int, default=99, help='random seed')
parser.add_argument('--save', type=str, default='./garage/synth', help='save path')
parser.add_argument('--expid', type=int, default=1, help='experiment id')
args = parser.parse_args()


def main():
    torch.manual_seed(args.seed)
    data = Data_utility(0.6, 0.2, args.horizon, args.window, args.normalize)
    print(args)
    engine = trainer(args, data)
    print("start training...", flush=True)
    his_loss = []
    val_time = []
    train_time = []
    states = []
    for i in range(1, args.epochs + 1):
        train_loss = []
        train_mape = []
        train_rmse = []
        t1 = time.time()
        for iter, (x, y) in enumerate(data.get_batches(data.train[0], data.train[1], args.batch_size, True)):
            metrics = engine.train(x, y)
            train_loss.append(metrics[0])
            train_mape.append(metrics[1])
            train_rmse.append(metrics[2])
            if iter % args.print_every == 0:
                log = 'Iter: {:03d}, Train Loss: {:.4f}, Train MAPE: {:.4f}, Train RMSE: {:.4f}'
                print(log.format(iter, train_loss[-1], train_mape[-1], train_rmse[-1]), flush=True)
        t2 = time.time()
        train_time.append(t2 - t1)
        valid_loss = []
        valid_mape = []
        valid_rmse = []
        s1 = time.time()
        for iter, (x, y) in enumerate(data.get_batches(data.valid[0], data.valid[1], args.batch_size, False)):
            metrics = engine.eval(x, y)
            valid_loss.append(metrics[0])
            valid_mape.append(metrics[1])
            valid_rmse.append(metrics[2])
        s2 = time.time()
        log = 'Epoch: {:03d}, Inference Time: {:.4f} secs'
        print(log.format(i, (s2 - s1)))
        val_time.append(s2 - s1)
        mtrain_loss = np.mean(train_loss)
        mtrain_mape = np.mean(train_mape)
        mtrain_rmse = np.mean(train_rmse)
        mvalid_loss = np.mean(valid_loss)
        mvalid_mape = np.mean(valid_mape)
        mvalid_rmse = np.mean(valid_rmse)
        his_loss.append(mvalid_loss)
        log = 'Epoch: {:03d}, Train Loss: {:.4f}, Train MAPE: {:.4f}, Train RMSE: {:.4f}, Valid Loss: {:.4f}, Valid MAPE: {:.4f}, Valid RMSE: {:.4f}, Training Time: {:.4f}/epoch'
        print(log.format(i, mtrain_loss, mtrain_mape, mtrain_rmse, mvalid_loss, mvalid_mape, mvalid_rmse, (t2 - t1)), flush=True)
        states.append({k: v.clone() for k, v in engine.model.state_dict().items()})
    print("Average Training Time: {:.4f} secs/epoch".format(np.mean(train_time)))
    print("Average Inference Time: {:.4f} secs".format(np.mean(val_time)))

    bestid = np.nanargmin(his_loss) if not np.all(np.isnan(his_loss)) else 0
    engine.model.load_state_dict(states[bestid])
    engine.model.eval()
    with torch.no_grad():
        yhat = engine.model(data.test[0])
    realy = data.test[1]
    print("Training finished")
    print("The valid loss on best model is", str(round(his_loss[bestid], 4)))
    metrics = metric(yhat * data.scale, realy * data.scale)
    log = 'Evaluate best model on test data for horizon {:d}, Test MAE: {:.4f}, Test MAPE: {:.4f}, Test RMSE: {:.4f}'
    print(log.format(args.horizon, metrics[0], metrics[1], metrics[2]))
    log = 'On average over 1 horizons, Test MAE: {:.4f}, Test MAPE: {:.4f}, Test RMSE: {:.4f}'
    print(log.format(*metrics))


if __name__ == "__main__":
    t1 = time.time()
    main()
    t2 = time.time()
    print("Total time spent: {:.4f}".format(t2 - t1))
