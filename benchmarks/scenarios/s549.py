# sparks-baird/mat_discover issue "Validation MAE is fictitious (just a repeat of training MAE) during training of
# CrabNet" in miniature: mat_discover trains CrabNet through crabnet.train_crabnet.get_model(train_df=..., val_df=None)
# (only training data supplied). CrabNet's Model.load_data(data, train=True) stores the training loader both as
# self.train_loader and as self.data_loader, the loader fit() evaluates as "validation" ("Please Load Validation Data
# (self.data_loader)"); with no validation data loaded the assert passes, and every check-in line
# "Epoch: e/E --- train mae: ... val mae: ..." scores the training data twice, so the "val mae" repeats the train mae
# exactly while the model overfits. The structure is CrabNet's (crabnet/kingcrab.py, crabnet/model.py): element
# embeddings from a fixed elemental feature table projected to d_model, fractional "prevalence" encodings (pe on the
# fraction, ple on its log) added with pos_scaler, a Transformer encoder (N layers, heads), a residual output network
# with out_dims 3 averaged over the elements of a formula and split into prediction and log-uncertainty, RobustL1 loss
# (sqrt(2) |pred - y| exp(-log_std) + log_std) on standardised targets, fudge 0.02 noise on the fractions during
# training, an Adam-type optimizer wrapped in Lookahead (alpha 0.5, k 6), CyclicLR (base_lr 1e-4, max_lr 6e-3,
# step_size_up = epochs_step * batches), check-in every 2 * epochs_step epochs. At the end, as train_crabnet.main()
# does when test data exist, the test mae is calculated. Scaled down: d_model 64, N 2, heads 4, out_hidden [128, 64],
# a random 32-dimensional table for 40 "elements" instead of mat2vec, 360 synthetic formulas with 2-4 elements and a
# property that depends on the element features, their fractions and pairwise interactions (+ noise) for training and
# 300 for the test set, batch 128, epochs 48, epochs_step 4 (check-in every 8 epochs), no SWA.
# metrics.csv has the per-step training loss and the printed train / "val" mae per check-in, and the final test mae.
import csv, math, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

RNG_SEED = 42
torch.manual_seed(RNG_SEED); np.random.seed(RNG_SEED); torch.set_num_threads(1)

N_ELEM, ELEM_DIM, MAX_ELEMS = 40, 32, 4
r = np.random.RandomState(7)
ELEM_PROP = r.normal(0, 1, (N_ELEM + 1, ELEM_DIM)).astype(np.float32); ELEM_PROP[0] = 0  # row 0 = padding
W1 = r.normal(0, 1, ELEM_DIM) / math.sqrt(ELEM_DIM); W2 = r.normal(0, 1, (ELEM_DIM, ELEM_DIM)) / ELEM_DIM


def make_formulas(n, seed):
    rr = np.random.RandomState(seed)
    src = np.zeros((n, MAX_ELEMS), np.int64); frac = np.zeros((n, MAX_ELEMS), np.float32); y = np.zeros(n, np.float32)
    for i in range(n):
        k = rr.randint(2, MAX_ELEMS + 1)
        els = rr.choice(np.arange(1, N_ELEM + 1), k, replace=False)
        fr = rr.dirichlet(np.ones(k) * 1.5).astype(np.float32)
        src[i, :k] = els; frac[i, :k] = fr
        e = ELEM_PROP[els]
        mean_feat = (fr[:, None] * e).sum(0)
        inter = sum(fr[a] * fr[b] * np.tanh(e[a] @ W2 @ e[b]) for a in range(k) for b in range(k) if a != b)
        y[i] = 1.5 + np.sin(2 * mean_feat @ W1) + 1.2 * inter + 0.5 * (fr.max() > 0.7) + rr.normal(0, 0.05)
    return src, frac, y


class EDMDataset(torch.utils.data.Dataset):
    def __init__(self, data):
        self.data = data

    def __len__(self):
        return len(self.data[2])

    def __getitem__(self, i):
        return self.data[0][i], self.data[1][i], self.data[2][i]


class Scaler:
    def __init__(self, y):
        self.mean, self.std = float(np.mean(y)), float(np.std(y))

    def scale(self, y):
        return (y - self.mean) / self.std

    def unscale(self, y):
        return y * self.std + self.mean


class FractionalEncoder(nn.Module):
    def __init__(self, d_model, resolution=100, log10=False):
        super().__init__()
        self.d_model, self.resolution, self.log10 = d_model // 2, resolution, log10
        x = torch.linspace(0, resolution - 1, resolution).view(resolution, 1)
        fraction = torch.linspace(0, self.d_model - 1, self.d_model).view(1, self.d_model).repeat(resolution, 1)
        pe = torch.zeros(resolution, self.d_model)
        pe[:, 0::2] = torch.sin(x / torch.pow(50, 2 * fraction[:, 0::2] / self.d_model))
        pe[:, 1::2] = torch.cos(x / torch.pow(50, 2 * fraction[:, 1::2] / self.d_model))
        self.register_buffer('pe', pe)

    def forward(self, x):
        x = x.clone()
        if self.log10:
            x = 0.0025 * (torch.log2(x)) ** 2
            x = torch.clamp(x, max=1)
        x = torch.clamp(x, min=1 / self.resolution)
        frac_idx = torch.round(x * self.resolution).to(dtype=torch.long) - 1
        return self.pe[frac_idx]


class ResidualNetwork(nn.Module):
    def __init__(self, input_dim, output_dim, hidden_layer_dims):
        super().__init__()
        dims = [input_dim] + hidden_layer_dims
        self.fcs = nn.ModuleList([nn.Linear(dims[i], dims[i + 1]) for i in range(len(dims) - 1)])
        self.res_fcs = nn.ModuleList([nn.Linear(dims[i], dims[i + 1], bias=False) if dims[i] != dims[i + 1]
                                      else nn.Identity() for i in range(len(dims) - 1)])
        self.acts = nn.ModuleList([nn.LeakyReLU() for _ in range(len(dims) - 1)])
        self.fc_out = nn.Linear(dims[-1], output_dim)

    def forward(self, fea):
        for fc, res_fc, act in zip(self.fcs, self.res_fcs, self.acts):
            fea = act(fc(fea)) + res_fc(fea)
        return self.fc_out(fea)


class CrabNet(nn.Module):
    def __init__(self, out_dims=3, d_model=64, N=2, heads=4, out_hidden=(128, 64), dropout=0.1):
        super().__init__()
        self.d_model = d_model
        self.cbfv = nn.Embedding.from_pretrained(torch.from_numpy(ELEM_PROP), freeze=True)
        self.fc_mat2vec = nn.Linear(ELEM_DIM, d_model)
        self.emb_scaler = nn.Parameter(torch.tensor([1.0])); self.pos_scaler = nn.Parameter(torch.tensor([1.0]))
        self.pos_scaler_log = nn.Parameter(torch.tensor([1.0]))
        self.pe = FractionalEncoder(d_model, resolution=500, log10=False)
        self.ple = FractionalEncoder(d_model, resolution=500, log10=True)
        layer = nn.TransformerEncoderLayer(d_model, heads, dim_feedforward=128, dropout=dropout, batch_first=True)
        self.transformer_encoder = nn.TransformerEncoder(layer, num_layers=N, enable_nested_tensor=False)
        self.output_nn = ResidualNetwork(d_model, out_dims, list(out_hidden))

    def forward(self, src, frac):
        x = self.fc_mat2vec(self.cbfv(src)) * 2 ** self.emb_scaler
        pe = torch.zeros_like(x); ple = torch.zeros_like(x)
        pe[:, :, :self.d_model // 2] = self.pe(frac) * 2 ** (1 - self.pos_scaler) ** 2
        ple[:, :, self.d_model // 2:] = self.ple(frac) * 2 ** (1 - self.pos_scaler_log) ** 2
        mask = frac == 0
        x = self.transformer_encoder(x + pe + ple, src_key_padding_mask=mask)
        x = x.masked_fill(mask.unsqueeze(-1), 0)
        output = self.output_nn(x)
        output = output.masked_fill(mask.unsqueeze(-1), 0).sum(dim=1) / (~mask).sum(dim=1, keepdim=True)
        output, logits = output.chunk(2, dim=-1)
        probability = torch.ones_like(output); probability[:, :logits.shape[-1]] = torch.sigmoid(logits)
        return output * probability


def RobustL1(output, log_std, target):
    absolute = torch.abs(output - target)
    loss = np.sqrt(2.0) * absolute * torch.exp(-log_std) + log_std
    return torch.mean(loss)


class Lookahead(torch.optim.Optimizer):
    def __init__(self, base_optimizer, alpha=0.5, k=6):
        self.optimizer, self.alpha, self.k = base_optimizer, alpha, k
        self.param_groups = base_optimizer.param_groups; self.defaults = base_optimizer.defaults; self.state = {}
        self.slow = [[p.detach().clone() for p in g['params']] for g in self.param_groups]; self.counter = 0

    def step(self, closure=None):
        self.optimizer.step(); self.counter += 1
        if self.counter % self.k == 0:
            for g, slow in zip(self.param_groups, self.slow):
                for p, q in zip(g['params'], slow):
                    q.add_(p.detach() - q, alpha=self.alpha); p.data.copy_(q)

    def zero_grad(self, set_to_none=True):
        self.optimizer.zero_grad(set_to_none=set_to_none)


class Model:
    def __init__(self, model, model_name='UnnamedModel', fudge=0.02):
        self.model, self.model_name, self.fudge = model, model_name, fudge
        self.data_loader = None; self.train_loader = None
        print('\nModel architecture: out_dims, d_model, N, heads')
        print('3, 64, 2, 4')
        print('Running on compute device: cpu')
        print(f'Model size: {sum(p.numel() for p in model.parameters() if p.requires_grad)} parameters\n')

    def load_data(self, data, batch_size=2 ** 9, train=False):
        self.batch_size = batch_size
        data_loader = torch.utils.data.DataLoader(EDMDataset(data), batch_size=batch_size, shuffle=train,
                                                  generator=torch.Generator().manual_seed(RNG_SEED))
        print(f'loading data with up to {MAX_ELEMS:0.0f} elements in the formula')
        if train:
            self.train_len = len(data[2]); self.scaler = Scaler(data[2]); self.train_loader = data_loader
        self.data_loader = data_loader

    def predict(self, loader):
        self.model.eval(); act, pred = [], []
        with torch.no_grad():
            for src, frac, y in loader:
                out = self.model(src, frac)
                p, _ = out.chunk(2, dim=-1)
                act.append(y.numpy()); pred.append(self.scaler.unscale(p.view(-1)).numpy())
        return np.concatenate(act), np.concatenate(pred)

    def fit(self, epochs=48, epochs_step=4, lr=1e-3, base_lr=1e-4, max_lr=6e-3, writer=None):
        assert self.train_loader is not None, 'Please Load Training Data (self.train_loader)'
        assert self.data_loader is not None, 'Please Load Validation Data (self.data_loader)'
        self.step_size = epochs_step * len(self.train_loader)
        print(f'stepping every {self.step_size} training passes, cycling lr every {epochs_step} epochs')
        checkin = epochs_step * 2
        print(f'checkin at {checkin} epochs to match lr scheduler')
        base = torch.optim.Adam(self.model.parameters(), lr=lr, betas=(0.9, 0.999), eps=1e-6)
        self.optimizer = Lookahead(base, alpha=0.5, k=6)
        sched = torch.optim.lr_scheduler.CyclicLR(base, base_lr=base_lr, max_lr=max_lr, cycle_momentum=False,
                                                  step_size_up=self.step_size)
        step = 0
        for epoch in range(epochs):
            self.model.train()
            for src, frac, y in self.train_loader:
                y = torch.as_tensor(self.scaler.scale(y))
                frac = frac * (1 + torch.randn_like(frac) * self.fudge)
                frac = torch.clamp(frac, 0, 1); frac[src == 0] = 0
                frac = frac / frac.sum(dim=1, keepdim=True)
                out = self.model(src, frac)
                prediction, uncertainty = out.chunk(2, dim=-1)
                loss = RobustL1(prediction.view(-1), uncertainty.view(-1), y.view(-1))
                loss.backward(); self.optimizer.step(); self.optimizer.zero_grad(); sched.step(); step += 1
                writer.writerow([epoch, step, round(loss.item(), 5), '', '', ''])
            if (epoch + 1) % checkin == 0 or epoch == epochs - 1 or epoch == 0:
                act_t, pred_t = self.predict(self.train_loader)
                mae_t = np.abs(act_t - pred_t).mean()
                act_v, pred_v = self.predict(self.data_loader)
                mae_v = np.abs(act_v - pred_v).mean()
                print(f'Epoch: {epoch}/{epochs} --- train mae: {mae_t:0.3g} val mae: {mae_v:0.3g}', flush=True)
                writer.writerow([epoch, step, '', round(float(mae_t), 5), round(float(mae_v), 5), ''])


def get_model(train_df=None, val_df=None, mat_prop='DataFrame_property', batch_size=None, writer=None):
    model = Model(CrabNet(), model_name=f'{mat_prop}')
    data_size = len(train_df[2])
    if batch_size is None:
        batch_size = 2 ** round(np.log2(data_size) - 4)
        if batch_size < 2 ** 7:
            batch_size = 2 ** 7
    model.load_data(train_df, batch_size=batch_size, train=True)
    print(f'training with batchsize {model.batch_size} (2**{np.log2(model.batch_size):0.3f})')
    if val_df is not None:
        model.load_data(val_df, batch_size=batch_size)
    model.fit(writer=writer)
    return model


train_df = make_formulas(360, 1)
test_df = make_formulas(300, 2)
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'step', 'loss', 'train_mae', 'val_mae', 'test_mae'])
print('Property "DataFrame_property" selected for training')
model = get_model(train_df=train_df, val_df=None, writer=wr)   # mat_discover: only the training data are supplied
print('=====================================================')
print('                 DataFrame_property                  ')
print('=====================================================')
print('calculating train mae')
model.load_data(train_df, batch_size=2 ** 9, train=False)
a, p = model.predict(model.data_loader); mae_train = np.abs(a - p).mean()
print(f'DataFrame_property mae: {mae_train:0.3g}')
print('-----------------------------------------------------')
print('calculating test mae')
model.load_data(test_df, batch_size=2 ** 9, train=False)
a, p = model.predict(model.data_loader); mae_test = np.abs(a - p).mean()
print(f'DataFrame_property mae: {mae_test:0.3g}')
print('=====================================================')
wr.writerow(['', '', '', round(float(mae_train), 5), '', round(float(mae_test), 5)])
f.close()
