import os
import time
import math
import argparse
import numpy as np
import torch
import torch.nn as nn
from torch import optim

torch.set_num_threads(1)
fix_seed = 2021
np.random.seed(fix_seed)
torch.manual_seed(fix_seed)

args = argparse.Namespace(
    task_name='long_term_forecast', is_training=1, model_id='SYN_96_24', model='PatchTST', data='synthetic',
    features='M', seq_len=96, label_len=48, pred_len=24, enc_in=4, d_model=32, n_heads=4, e_layers=2,
    d_ff=64, dropout=0.1, patch_len=16, stride=8, revin=False, scale=False, train_epochs=8, batch_size=32,
    patience=3, learning_rate=0.001, lradj='type1', use_amp=False, use_gpu=False, des='Exp', itr=1,
    checkpoints='./checkpoints/')

# ---------------- synthetic multivariate series (4 sensors, daily + half-daily cycles, drift, noise) ----------------
T = 4200
t = np.arange(T)
rng = np.random.RandomState(fix_seed)
series = []
for c in range(args.enc_in):
    level = [20.0, 150.0, 3.0, 60.0][c]
    amp = [5.0, 30.0, 1.0, 12.0][c]
    s = level + amp * np.sin(2 * np.pi * t / 24 + rng.rand() * 6) + 0.5 * amp * np.sin(2 * np.pi * t / 12 + rng.rand() * 6)
    s += 0.3 * amp * np.sin(2 * np.pi * t / 168) + 0.0004 * amp * t
    s += rng.normal(0, 0.35 * amp, T)
    series.append(s)
data = np.stack(series, 1).astype(np.float32)
n_train, n_val = int(T * 0.7), int(T * 0.1)
borders = {'train': (0, n_train), 'val': (n_train - args.seq_len, n_train + n_val), 'test': (n_train + n_val - args.seq_len, T)}
mean, std = data[:n_train].mean(0), data[:n_train].std(0)
if args.scale:
    data = (data - mean) / std

class Dataset_Custom(torch.utils.data.Dataset):
    def __init__(self, flag):
        b0, b1 = borders[flag]
        self.data = torch.tensor(data[b0:b1])
    def __len__(self):
        return len(self.data) - args.seq_len - args.pred_len + 1
    def __getitem__(self, i):
        return self.data[i:i + args.seq_len], self.data[i + args.seq_len:i + args.seq_len + args.pred_len]

def data_provider(flag):
    ds = Dataset_Custom(flag)
    shuffle = flag == 'train'
    print(flag, len(ds))
    return ds, torch.utils.data.DataLoader(ds, batch_size=args.batch_size, shuffle=shuffle, drop_last=flag == 'train')

# ---------------- model: channel-independent patch transformer ----------------
class RevIN(nn.Module):
    def __init__(self, n, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.w = nn.Parameter(torch.ones(n))
        self.b = nn.Parameter(torch.zeros(n))
    def norm(self, x):
        self.mu = x.mean(1, keepdim=True).detach()
        self.sd = torch.sqrt(x.var(1, keepdim=True, unbiased=False) + self.eps).detach()
        return (x - self.mu) / self.sd * self.w + self.b
    def denorm(self, x):
        return (x - self.b) / (self.w + self.eps * self.eps) * self.sd + self.mu

class Model(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.a = a
        self.n_patch = (a.seq_len - a.patch_len) // a.stride + 1
        self.revin = RevIN(a.enc_in) if a.revin else None
        self.embed = nn.Linear(a.patch_len, a.d_model)
        self.pos = nn.Parameter(torch.randn(1, self.n_patch, a.d_model) * 0.02)
        layer = nn.TransformerEncoderLayer(a.d_model, a.n_heads, a.d_ff, a.dropout, batch_first=True, activation='gelu')
        self.encoder = nn.TransformerEncoder(layer, a.e_layers)
        self.head = nn.Sequential(nn.Flatten(1), nn.Dropout(a.dropout), nn.Linear(self.n_patch * a.d_model, a.pred_len))
    def forward(self, x):
        B, L, C = x.shape
        if self.revin is not None:
            x = self.revin.norm(x)
        z = x.permute(0, 2, 1).reshape(B * C, L)
        z = z.unfold(1, self.a.patch_len, self.a.stride)
        z = self.encoder(self.embed(z) + self.pos)
        y = self.head(z).reshape(B, C, -1).permute(0, 2, 1)
        if self.revin is not None:
            y = self.revin.denorm(y)
        return y

class EarlyStopping:
    def __init__(self, patience=7, verbose=False, delta=0):
        self.patience = patience
        self.verbose = verbose
        self.counter = 0
        self.best_score = None
        self.early_stop = False
        self.val_loss_min = np.inf
        self.delta = delta
    def __call__(self, val_loss, model, path):
        score = -val_loss
        if self.best_score is None:
            self.best_score = score
            self.save_checkpoint(val_loss, model, path)
        elif score < self.best_score + self.delta:
            self.counter += 1
            print(f'EarlyStopping counter: {self.counter} out of {self.patience}')
            if self.counter >= self.patience:
                self.early_stop = True
        else:
            self.best_score = score
            self.save_checkpoint(val_loss, model, path)
            self.counter = 0
    def save_checkpoint(self, val_loss, model, path):
        if self.verbose:
            print(f'Validation loss decreased ({self.val_loss_min:.6f} --> {val_loss:.6f}).  Saving model ...')
        self.best_state = {k: v.clone() for k, v in model.state_dict().items()}
        self.val_loss_min = val_loss

def adjust_learning_rate(optimizer, epoch, args):
    if args.lradj == 'type1':
        lr_adjust = {epoch: args.learning_rate * (0.5 ** ((epoch - 1) // 1))}
    elif args.lradj == 'type2':
        lr_adjust = {2: 5e-5, 4: 1e-5, 6: 5e-6, 8: 1e-6, 10: 5e-7, 15: 1e-7, 20: 5e-8}
    if epoch in lr_adjust.keys():
        lr = lr_adjust[epoch]
        for param_group in optimizer.param_groups:
            param_group['lr'] = lr
        print('Updating learning rate to {}'.format(lr))

class Exp_Long_Term_Forecast:
    def __init__(self, args):
        self.args = args
        self.model = Model(args).float()
    def vali(self, vali_loader, criterion):
        total_loss = []
        self.model.eval()
        with torch.no_grad():
            for batch_x, batch_y in vali_loader:
                outputs = self.model(batch_x)
                total_loss.append(criterion(outputs, batch_y).item())
        self.model.train()
        return np.average(total_loss)
    def train(self, setting):
        train_data, train_loader = data_provider('train')
        vali_data, vali_loader = data_provider('val')
        test_data, test_loader = data_provider('test')
        time_now = time.time()
        train_steps = len(train_loader)
        early_stopping = EarlyStopping(patience=self.args.patience, verbose=True)
        model_optim = optim.Adam(self.model.parameters(), lr=self.args.learning_rate)
        criterion = nn.MSELoss()
        for epoch in range(self.args.train_epochs):
            iter_count = 0
            train_loss = []
            self.model.train()
            epoch_time = time.time()
            for i, (batch_x, batch_y) in enumerate(train_loader):
                iter_count += 1
                model_optim.zero_grad()
                outputs = self.model(batch_x)
                loss = criterion(outputs, batch_y)
                train_loss.append(loss.item())
                if (i + 1) % 100 == 0:
                    print("\titers: {0}, epoch: {1} | loss: {2:.7f}".format(i + 1, epoch + 1, loss.item()))
                    speed = (time.time() - time_now) / iter_count
                    left_time = speed * ((self.args.train_epochs - epoch) * train_steps - i)
                    print('\tspeed: {:.4f}s/iter; left time: {:.4f}s'.format(speed, left_time))
                    iter_count = 0
                    time_now = time.time()
                loss.backward()
                model_optim.step()
            print("Epoch: {} cost time: {}".format(epoch + 1, time.time() - epoch_time))
            train_loss = np.average(train_loss)
            vali_loss = self.vali(vali_loader, criterion)
            test_loss = self.vali(test_loader, criterion)
            print("Epoch: {0}, Steps: {1} | Train Loss: {2:.7f} Vali Loss: {3:.7f} Test Loss: {4:.7f}".format(
                epoch + 1, train_steps, train_loss, vali_loss, test_loss))
            early_stopping(vali_loss, self.model, setting)
            if early_stopping.early_stop:
                print("Early stopping")
                break
            adjust_learning_rate(model_optim, epoch + 1, self.args)
        self.model.load_state_dict(early_stopping.best_state)
        return self.model
    def test(self, setting):
        test_data, test_loader = data_provider('test')
        preds, trues = [], []
        self.model.eval()
        with torch.no_grad():
            for batch_x, batch_y in test_loader:
                preds.append(self.model(batch_x).numpy())
                trues.append(batch_y.numpy())
        preds = np.concatenate(preds, 0)
        trues = np.concatenate(trues, 0)
        print('test shape:', preds.shape, trues.shape)
        mae = np.mean(np.abs(preds - trues))
        mse = np.mean((preds - trues) ** 2)
        print('mse:{}, mae:{}'.format(mse, mae))

print('Args in experiment:')
print(args)
print('Use CPU')
setting = '{}_{}_{}_{}_ft{}_sl{}_ll{}_pl{}_dm{}_nh{}_el{}_df{}_{}_{}'.format(
    args.task_name, args.model_id, args.model, args.data, args.features, args.seq_len, args.label_len,
    args.pred_len, args.d_model, args.n_heads, args.e_layers, args.d_ff, args.des, 0)
exp = Exp_Long_Term_Forecast(args)
print('>>>>>>>start training : {}>>>>>>>>>>>>>>>>>>>>>>>>>>'.format(setting))
exp.train(setting)
print('>>>>>>>testing : {}<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<'.format(setting))
exp.test(setting)
