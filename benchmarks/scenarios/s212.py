# coRNN (coupled oscillatory RNN) on the adding problem
import csv
import torch
import torch.nn as nn

torch.manual_seed(12008)
torch.set_num_threads(1)

T, n_inp, n_hid, n_out = 30, 2, 64, 1
batch, lr, dt, gamma, epsilon = 50, 0.01, 0.12, 2.7, 4.7
max_steps, log_interval = 1801, 100

class coRNNCell(nn.Module):
    def __init__(self, n_inp, n_hid, dt, gamma, epsilon):
        super().__init__()
        self.dt, self.gamma, self.epsilon = dt, gamma, epsilon
        self.i2h = nn.Linear(n_inp + n_hid + n_hid, n_hid)
    def forward(self, x, hy, hz):
        hz = hz + self.dt * (torch.tanh(self.i2h(torch.cat((x, hz, hy), 1)))
                             - self.gamma * hy - self.epsilon * hz)
        hy = hy + self.dt * hz
        return hy, hz

class coRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = coRNNCell(n_inp, n_hid, dt, gamma, epsilon)
        self.readout = nn.Linear(n_hid, n_out)
    def forward(self, x):
        hy = torch.zeros(x.size(1), n_hid)
        hz = torch.zeros(x.size(1), n_hid)
        for t in range(x.size(0)):
            hy, hz = self.cell(x[t], hy, hz)
        return self.readout(hy)

def get_batch(T, batch_size):
    values = torch.rand(T, batch_size, requires_grad=False)
    indices = torch.zeros_like(values)
    half = int(T / 2)
    for i in range(batch_size):
        half_1 = torch.randint(0, half, (1,)).item()
        half_2 = torch.randint(half, T, (1,)).item()
        indices[half_1, i] = 1
        indices[half_2, i] = 1
    data = torch.stack((values, indices), dim=-1)
    target = torch.sum(values * indices, dim=0)
    return data, target.unsqueeze(-1)

model = coRNN()
objective = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=lr)

def test():
    model.eval()
    with torch.no_grad():
        data, label = get_batch(T, 1000)
        out = model(data)
        loss = objective(out, label)
    return loss.item()

with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "train_mse", "test_mse"])
    for i in range(max_steps):
        data, label = get_batch(T, batch)
        out = model(data)
        loss = objective(out, label)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if i % log_interval == 0 and i > 0:
            test_mse = test()
            print('Test MSE: {:.6f}'.format(test_mse), 'step', i)
            w.writerow([i, f"{loss.item():.6f}", f"{test_mse:.6f}"])
        else:
            w.writerow([i, f"{loss.item():.6f}", ""])
        fh.flush()
