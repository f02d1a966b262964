# DeepEmbeddingClustering in miniature (DEC-Keras style initialize(): greedy layer-wise
# denoising-autoencoder pretraining, then end-to-end autoencoder finetuning), ported to PyTorch.
# Synthetic tabular data: 3000 rows with 17 features from 10 latent clusters (counts, rates,
# durations); column 11 ("refunds") is zero in every row of this export. The features are
# min-max scaled column by column before training.
import numpy as np
import torch, torch.nn as nn

np.random.seed(0); torch.manual_seed(0); torch.set_num_threads(1)

n, d, k = 3000, 17, 10
centers = np.random.uniform(0, 50, (k, d))
labels = np.random.randint(0, k, n)
X = centers[labels] + np.random.gamma(2.0, 2.0, (n, d))
X[:, 11] = 0.0
X = (X - X.min(axis=0)) / (X.max(axis=0) - X.min(axis=0))
X = torch.tensor(X, dtype=torch.float32)

dims = [d, 64, 64, 128, 10]
batch_size = 256

def fit(model, inputs, targets, epochs, lr, noise=0.2, tag=''):
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    steps = int(np.ceil(len(inputs) / batch_size))
    for ep in range(epochs):
        perm = torch.randperm(len(inputs)); tot = 0.0
        for s in range(steps):
            idx = perm[s * batch_size:(s + 1) * batch_size]
            x = inputs[idx]
            x = x * (torch.rand_like(x) > noise).float()
            loss = ((model(x) - targets[idx]) ** 2).mean()
            opt.zero_grad(); loss.backward(); opt.step()
            tot += loss.item() * len(idx)
        print('Epoch %d/%d' % (ep + 1, epochs))
        print('%d/%d [==============================] - 0s - loss: %.4f' % (len(inputs), len(inputs), tot / len(inputs)))

encoders, decoders = [], []
current = X
for i in range(len(dims) - 1):
    print('Pretraining the %dth layer...' % (i + 1))
    enc = nn.Sequential(nn.Linear(dims[i], dims[i + 1]), nn.ReLU() if i < len(dims) - 2 else nn.Identity())
    dec = nn.Sequential(nn.Linear(dims[i + 1], dims[i]), nn.ReLU() if i > 0 else nn.Identity())
    ae = nn.Sequential(enc, dec)
    fit(ae, current, current, epochs=3, lr=0.1)
    encoders.append(enc); decoders.insert(0, dec)
    with torch.no_grad():
        current = enc(current)
print('Fine-tuning autoencoder end-to-end')
autoencoder = nn.Sequential(*encoders, *decoders)
fit(autoencoder, X, X, epochs=4, lr=0.1, noise=0.0)
with torch.no_grad():
    z = nn.Sequential(*encoders)(X)
print('embedding: mean %.4f  std %.4f  finite %.3f' % (z.mean().item(), z.std().item(), torch.isfinite(z).float().mean().item()))
