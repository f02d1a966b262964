# Stack Overflow question "Why do I fail to predict y=x**4 with keras? (y=x**3 works)" in miniature,
# ported from Keras to PyTorch: x = np.arange(-100, 100, 0.5), y = x**4, Dense(50) - sigmoid - Dense(50) -
# elu - Dense(1) with Keras defaults (glorot_uniform kernels, zero biases), loss 'mse', Adam (lr 0.001,
# epsilon 1e-7), full batch (batch_size=len(x)), and the asker's outer loop that calls
# model.fit(..., epochs=...) and then prints the mean squared error of the predictions and the time.
# The outer loop runs 10 rounds of 500 epochs instead of 100 rounds of 1000.
import time
import numpy as np
import torch, torch.nn as nn

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)

x = np.arange(-100, 100, 0.5)
y = x**4

def dense(i, o):
    l = nn.Linear(i, o); nn.init.xavier_uniform_(l.weight); nn.init.zeros_(l.bias); return l

model = nn.Sequential(dense(1, 50), nn.Sigmoid(), dense(50, 50), nn.ELU(), dense(50, 1))
opt = torch.optim.Adam(model.parameters(), lr=0.001, eps=1e-7)
X = torch.tensor(x, dtype=torch.float32)[:, None]
Y = torch.tensor(y, dtype=torch.float32)[:, None]

def fit(epochs):
    for _ in range(epochs):
        opt.zero_grad()
        loss = ((model(X) - Y) ** 2).mean()
        loss.backward(); opt.step()

t1 = time.process_time()
for i in range(10):
    fit(500)
    with torch.no_grad():
        predictions = model(X).numpy().ravel()
    print(i, "  ", np.mean(np.square(predictions - y)), " t: ", round(time.process_time() - t1, 2), flush=True)
print("predictions at x = -100, -50, 0, 50, 99.5:", [round(float(predictions[j]), 1) for j in (0, 100, 200, 300, 399)])
print("targets     at x = -100, -50, 0, 50, 99.5:", [float(y[j]) for j in (0, 100, 200, 300, 399)])
print("variance of y (MSE of predicting the mean):", np.var(y))
