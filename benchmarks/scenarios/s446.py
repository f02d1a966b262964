# MollyZhang/Multi-task-TCGA-learning autoencoder in miniature: a ReLU autoencoder on TCGA-like gene
# expression profiles (800 samples x 200 genes, log2(TPM + 1)-scale values between 0 and ~20 built from
# 6 latent programmes, not standardised), encoder 200 -> 100 -> 20 and decoder 20 -> 100 -> 200 with
# ReLU after every hidden layer and a linear reconstruction layer, MSE reconstruction loss, SGD lr 0.01
# with momentum 0.9, batch 32, 30 epochs, 640 training and 160 validation samples, one line per epoch.
import csv
import numpy as np
import torch, torch.nn as nn

np.random.seed(0); torch.manual_seed(0); torch.set_num_threads(1)
n_samples, n_genes = 800, 200
programmes = np.random.randn(n_samples, 6); loadings = np.random.randn(6, n_genes) * 1.2
baseline = np.random.uniform(2, 10, n_genes)
expr = np.clip(baseline + programmes @ loadings + 0.5 * np.random.randn(n_samples, n_genes), 0, None)
expr = torch.tensor(expr, dtype=torch.float32)
train_x, val_x = expr[:640], expr[640:]

class AutoEncoder(nn.Module):
    def __init__(self, n_in, hidden=100, code=20):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU(), nn.Linear(hidden, code), nn.ReLU())
        self.decoder = nn.Sequential(nn.Linear(code, hidden), nn.ReLU(), nn.Linear(hidden, n_in))
    def forward(self, x):
        return self.decoder(self.encoder(x))

model = AutoEncoder(n_genes)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
criterion = nn.MSELoss()
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f); wr.writerow(['epoch', 'train_loss', 'val_loss'])
for epoch in range(30):
    model.train(); perm = torch.randperm(len(train_x)); total, nb = 0.0, 0
    for b in range(0, len(train_x), 32):
        x = train_x[perm[b:b + 32]]
        loss = criterion(model(x), x)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        total += loss.item(); nb += 1
    model.eval()
    with torch.no_grad():
        val_loss = criterion(model(val_x), val_x).item()
    print(f'epoch {epoch + 1}/30  train loss: {total / nb:.4f}  val loss: {val_loss:.4f}')
    wr.writerow([epoch + 1, total / nb, val_loss]); f.flush()
