# Keras (R interface) regression example in miniature, ported to PyTorch: Boston-housing-like
# synthetic data (13 features on their raw scales, price in $1000s with one decimal), 404
# training / 102 test rows, dense 13 -> relu -> 1, mean squared error, Adam (1e-3), batch 5,
# 100 epochs, metrics = c('accuracy'): Keras computes it for a one-unit output as
# mean(y_true == round(y_pred)).
import numpy as np
import torch, torch.nn as nn

np.random.seed(113); torch.manual_seed(113); torch.set_num_threads(1)

n = 506
crim = np.random.exponential(3.6, n); zn = np.random.choice([0, 0, 0, 12.5, 25, 80], n)
indus = np.random.uniform(0.5, 27, n); chas = (np.random.rand(n) < 0.07).astype(float)
nox = np.random.uniform(0.38, 0.87, n); rm = np.random.normal(6.3, 0.7, n)
age = np.random.uniform(3, 100, n); dis = np.random.uniform(1.1, 12, n)
rad = np.random.choice([1, 2, 3, 4, 5, 6, 7, 8, 24], n).astype(float); tax = np.random.uniform(187, 711, n)
ptratio = np.random.uniform(12.6, 22, n); b = np.random.uniform(300, 397, n); lstat = np.random.uniform(1.7, 38, n)
X = np.stack([crim, zn, indus, chas, nox, rm, age, dis, rad, tax, ptratio, b, lstat], 1)
y = 22 + 6.5 * (rm - 6.3) - 0.55 * (lstat - 12.6) - 0.9 * (ptratio - 18.5) - 0.1 * crim + 2.5 * chas \
    - 8 * (nox - 0.55) - 0.4 * (dis - 3.8) + np.random.normal(0, 3.0, n)
y = np.round(np.clip(y, 5, 50), 1)
idx = np.random.permutation(n)
tr, te = idx[:404], idx[404:]
x_train, y_train = torch.tensor(X[tr], dtype=torch.float32), torch.tensor(y[tr], dtype=torch.float32)[:, None]
x_test, y_test = torch.tensor(X[te], dtype=torch.float32), torch.tensor(y[te], dtype=torch.float32)[:, None]
print('Loading data...')
print(len(x_train) * 13, 'train sequences')
print(len(x_test) * 13, 'test sequences')

model = nn.Sequential(nn.Linear(13, 13), nn.ReLU(), nn.Linear(13, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
mse = nn.MSELoss()
acc = lambda p, t: (t == torch.round(p)).float().mean().item()

for epoch in range(1, 101):
    perm = torch.randperm(len(x_train)); tl = 0.0; ta = 0.0
    for i in range(0, len(x_train), 5):
        j = perm[i:i + 5]
        out = model(x_train[j]); loss = mse(out, y_train[j])
        opt.zero_grad(); loss.backward(); opt.step()
        tl += loss.item() * len(j); ta += acc(out.detach(), y_train[j]) * len(j)
    with torch.no_grad():
        vp = model(x_test)
    print('Epoch %d/100' % epoch)
    print('404/404 [==============================] - 0s - loss: %.4f - acc: %.4f - val_loss: %.4f - val_acc: %.4f' % (
        tl / 404, ta / 404, mse(vp, y_test).item(), acc(vp, y_test)))
with torch.no_grad():
    vp = model(x_test)
print('Test loss:', round(mse(vp, y_test).item(), 5), '')
print('Test accuracy:', acc(vp, y_test), '')
print('Test MAE: %.3f (predicting the training mean gives %.3f)' % (
    (vp - y_test).abs().mean().item(), (y_train.mean() - y_test).abs().mean().item()))
