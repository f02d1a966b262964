# Cross Validated question 409000 ("Should we normalize target data as well as input data?") in miniature: a Keras-
# style regression of house prices in dollars (mean about $250,000) from the Hands-On Machine Learning housing
# features, inputs standardised with the training mean and standard deviation as in the book, a small network with
# few ReLU units (Dense(30, relu) -> Dense(1), linear output with the default zero bias and Glorot-uniform weights),
# MSE loss, Adam (lr 1e-3, betas 0.9 / 0.999, eps 1e-7), batch 32, and Keras' per-epoch line
# "Epoch e/E - loss: ... - val_loss: ..." (printed every 25 epochs; metrics.csv has every epoch, with the mean
# prediction). The target is left in dollars and the output layer starts at zero, i.e. without the poster's
# customisation (output bias initialised to the mean price). Scaled down: 2000 training and 500 validation districts
# of synthetic California-like data (8 features: median income, house age, rooms, bedrooms, population, occupancy,
# latitude, longitude; price from income, location and age plus noise, clipped at $15,000 and $500,001 as in the
# census data) instead of the 20640-row data set, 300 epochs instead of 2000.
import csv, math
import numpy as np
import torch, torch.nn as nn

torch.manual_seed(42); np.random.seed(42); torch.set_num_threads(1)
r = np.random.RandomState(0)
n = 2500
inc = np.clip(r.lognormal(1.25, 0.45, n), 0.5, 15.0)
age = r.randint(1, 53, n).astype(float)
rooms = np.clip(r.normal(5.4, 1.2, n) + 0.3 * (inc - 3.8), 1.5, 12)
bedrms = np.clip(rooms * r.normal(0.21, 0.03, n), 0.5, 5)
pop = np.clip(r.lognormal(7.0, 0.7, n), 30, 20000)
occup = np.clip(r.normal(3.0, 0.8, n), 1.0, 8.0)
lat = r.uniform(32.5, 42.0, n)
lon = -124.3 + (42.0 - lat) * 0.9 + r.normal(0, 1.0, n)
coast = np.exp(-np.abs(lon + 124.3 - (42.0 - lat) * 0.9) / 1.2)
price = 40000 * inc + 90000 * coast + 900 * age - 8000 * (occup - 3) + 25000 * np.sin(lat) + r.normal(0, 35000, n) + 30000
price = np.clip(price, 15000, 500001)
X = np.stack([inc, age, rooms, bedrms, pop, occup, lat, lon], 1)
X_train, X_valid, y_train, y_valid = X[:2000], X[2000:], price[:2000], price[2000:]
mean, std = X_train.mean(0), X_train.std(0)                    # StandardScaler fitted on the training set
X_train, X_valid = (X_train - mean) / std, (X_valid - mean) / std
print('mean price in the training set: {:.0f}'.format(y_train.mean()))
Xt, Yt = torch.tensor(X_train, dtype=torch.float32), torch.tensor(y_train, dtype=torch.float32)[:, None]
Xv, Yv = torch.tensor(X_valid, dtype=torch.float32), torch.tensor(y_valid, dtype=torch.float32)[:, None]

model = nn.Sequential(nn.Linear(8, 30), nn.ReLU(), nn.Linear(30, 1))
for m in model:
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight); nn.init.zeros_(m.bias)   # Keras defaults: glorot_uniform, zero bias
opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-7)
mse = nn.MSELoss()
EPOCHS = 300
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f)
wr.writerow(['epoch', 'loss', 'val_loss', 'train_rmse_dollars', 'mean_prediction'])
for epoch in range(1, EPOCHS + 1):
    perm = torch.randperm(len(Xt)); tot = 0.0
    for s in range(0, len(perm), 32):
        idx = perm[s:s + 32]
        loss = mse(model(Xt[idx]), Yt[idx])
        opt.zero_grad(); loss.backward(); opt.step(); tot += loss.item() * len(idx)
    with torch.no_grad():
        val = mse(model(Xv), Yv).item(); mp = model(Xt).mean().item()
    tl = tot / len(Xt)
    wr.writerow([epoch, round(tl, 1), round(val, 1), round(math.sqrt(tl), 1), round(mp, 1)])
    if epoch % 25 == 0 or epoch == 1:
        print('Epoch {}/{} - loss: {:.4e} - val_loss: {:.4e}  (mean prediction {:.0f})'.format(epoch, EPOCHS, tl, val, mp))
f.close()
