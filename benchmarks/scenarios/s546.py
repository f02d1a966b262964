# cpmpercussion/keras-mdn-layer issue "Negative Loss while training the model" in miniature, ported from Keras to
# PyTorch: a mixture density network with 4 output dimensions built as in the package's examples, two Dense(relu)
# layers followed by mdn.MDN(OUTPUT_DIMS, N_MIXES), whose means come from a linear Dense layer, whose standard
# deviations come from a Dense layer with the elu_plus_one_plus_epsilon activation (ELU(x) + 1 + 1e-7) and whose mixture
# weights are logits, trained with mdn.get_mixture_loss_func(OUTPUT_DIMS, N_MIXES): the negative log likelihood of the
# target under the mixture of diagonal Gaussians, averaged over the batch; optimizer keras.optimizers.Adam() (lr 1e-3),
# model.fit(x, y, batch_size=128, epochs=30, validation_split=0.15) with the Keras-style per-epoch line
# "loss: ... - val_loss: ...". The data are a synthetic inverse problem with two branches (each 2-D input has two
# possible 4-D outputs, chosen at random, plus noise of standard deviation 0.05), 6000 examples in random order.
# metrics.csv has the per-step loss and the per-epoch training and validation loss.
import csv, math, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)

OUTPUT_DIMS, N_MIXES, N_HIDDEN = 4, 5, 64
BATCH_SIZE, EPOCHS, VALIDATION_SPLIT = 128, 30, 0.15

r = np.random.RandomState(1)
N = 6000
x = r.uniform(-1, 1, (N, 2)).astype(np.float32)
branch = r.randint(0, 2, N)
s = np.where(branch == 1, 1.0, -1.0)[:, None]
y = np.concatenate([np.sin(2.5 * x[:, :1]) + 0.6 * s * np.cos(1.5 * x[:, 1:]),
                    x[:, :1] * x[:, 1:] + 0.4 * s,
                    np.cos(2.0 * x[:, 1:]) * s * 0.8,
                    0.5 * x[:, :1] - 0.7 * x[:, 1:] + 0.3 * s * x[:, :1]], 1)
y = (y + r.normal(0, 0.05, y.shape)).astype(np.float32)
x, y = torch.from_numpy(x), torch.from_numpy(y)
n_val = int(N * VALIDATION_SPLIT)
x_tr, y_tr, x_va, y_va = x[:-n_val], y[:-n_val], x[-n_val:], y[-n_val:]  # Keras takes the last part for validation


def elu_plus_one_plus_epsilon(v):
    return F.elu(v) + 1 + 1e-7


class MDN(nn.Module):
    def __init__(self, in_dim, output_dimension, num_mixtures):
        super().__init__()
        self.output_dim, self.num_mix = output_dimension, num_mixtures
        self.mdn_mus = nn.Linear(in_dim, num_mixtures * output_dimension)
        self.mdn_sigmas = nn.Linear(in_dim, num_mixtures * output_dimension)
        self.mdn_pi = nn.Linear(in_dim, num_mixtures)

    def forward(self, h):
        return torch.cat([self.mdn_mus(h), elu_plus_one_plus_epsilon(self.mdn_sigmas(h)), self.mdn_pi(h)], 1)


def get_mixture_loss_func(output_dim, num_mixes):
    def mdn_loss_func(y_true, y_pred):
        b = y_pred.shape[0]
        mus = y_pred[:, :num_mixes * output_dim].reshape(b, num_mixes, output_dim)
        sigs = y_pred[:, num_mixes * output_dim:2 * num_mixes * output_dim].reshape(b, num_mixes, output_dim)
        pi = y_pred[:, 2 * num_mixes * output_dim:]
        comp = torch.distributions.Normal(mus, sigs).log_prob(y_true[:, None, :]).sum(-1)
        loglik = torch.logsumexp(F.log_softmax(pi, 1) + comp, 1)
        return -loglik.mean()
    return mdn_loss_func


model = nn.Sequential(nn.Linear(2, N_HIDDEN), nn.ReLU(), nn.Linear(N_HIDDEN, N_HIDDEN), nn.ReLU(),
                      MDN(N_HIDDEN, OUTPUT_DIMS, N_MIXES))
loss_fn = get_mixture_loss_func(OUTPUT_DIMS, N_MIXES)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
print('Train on %d samples, validate on %d samples' % (len(x_tr), len(x_va)))
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'step', 'loss', 'epoch_loss', 'val_loss'])
n = len(x_tr); steps = math.ceil(n / BATCH_SIZE); gstep = 0
for epoch in range(1, EPOCHS + 1):
    t0 = time.time(); perm = torch.randperm(n); tot = 0.0
    model.train()
    for s_ in range(steps):
        idx = perm[s_ * BATCH_SIZE:(s_ + 1) * BATCH_SIZE]
        loss = loss_fn(y_tr[idx], model(x_tr[idx]))
        opt.zero_grad(); loss.backward(); opt.step()
        tot += loss.item() * len(idx); gstep += 1
        wr.writerow([epoch, gstep, round(loss.item(), 5), '', ''])
    model.eval()
    with torch.no_grad():
        vl = loss_fn(y_va, model(x_va)).item()
    print('Epoch %d/%d\n%d/%d [==============================] - %.0fs - loss: %.4f - val_loss: %.4f'
          % (epoch, EPOCHS, n, n, time.time() - t0, tot / n, vl), flush=True)
    wr.writerow([epoch, gstep, '', round(tot / n, 5), round(vl, 5)]); f.flush()
f.close()
