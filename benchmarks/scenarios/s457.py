# danielkelshaw/ConcreteDropout mnist_example.py in miniature: an MLP (784 -> 256 -> 256 -> 10) whose three
# linear layers are wrapped in ConcreteDropout (learned dropout rate p via a relaxed Bernoulli mask, weight
# regulariser l^2 / N and dropout regulariser 2 / N as in Gal et al.), with the model's forward pass ending in
# nn.Softmax(dim=1) and the training loss F.cross_entropy(output, target) + regularisation, Adam lr 1e-3,
# batch 64, 6 epochs, on 10 classes of synthetic 28 x 28 "digit" images (6000 training, 1000 test).
# pytorch/examples-style "Train Epoch" and "Test set" lines.
import csv
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

np.random.seed(1); torch.manual_seed(1); torch.set_num_threads(1)
K, N_TR, N_TE = 10, 6000, 1000
templates = (np.random.rand(K, 28, 28) < 0.2).astype(np.float32)
def make(n):
    y = np.random.randint(0, K, n)
    x = templates[y] * np.random.uniform(0.3, 1.0, (n, 1, 1)) + np.random.rand(n, 28, 28) * 0.8
    return torch.tensor(np.clip(x, 0, 1).reshape(n, 784), dtype=torch.float32), torch.tensor(y)
x_train, y_train = make(N_TR); x_test, y_test = make(N_TE)

class ConcreteDropout(nn.Module):
    def __init__(self, weight_regulariser, dropout_regulariser, init_min=0.1, init_max=0.1):
        super().__init__()
        self.weight_regulariser = weight_regulariser; self.dropout_regulariser = dropout_regulariser
        init_min = np.log(init_min) - np.log(1. - init_min); init_max = np.log(init_max) - np.log(1. - init_max)
        self.p_logit = nn.Parameter(torch.empty(1).uniform_(init_min, init_max))
        self.p = torch.sigmoid(self.p_logit); self.regularisation = 0.0
    def forward(self, x, layer):
        self.p = torch.sigmoid(self.p_logit)
        output = layer(self._concrete_dropout(x))
        sum_of_squares = sum(torch.sum(torch.pow(p, 2)) for p in layer.parameters())
        weights_reg = self.weight_regulariser * sum_of_squares / (1.0 - self.p)
        dropout_reg = self.p * torch.log(self.p) + (1.0 - self.p) * torch.log(1.0 - self.p)
        dropout_reg = self.dropout_regulariser * x[0].numel() * dropout_reg
        self.regularisation = weights_reg + dropout_reg
        return output
    def _concrete_dropout(self, x):
        eps, tmp = 1e-7, 0.1
        u_noise = torch.rand_like(x)
        drop_prob = (torch.log(self.p + eps) - torch.log(1 - self.p + eps)
                     + torch.log(u_noise + eps) - torch.log(1 - u_noise + eps))
        drop_prob = torch.sigmoid(drop_prob / tmp)
        random_tensor = 1 - drop_prob
        return torch.mul(x, random_tensor) / (1 - self.p)

class Model(nn.Module):
    def __init__(self, weight_regulariser, dropout_regulariser):
        super().__init__()
        self.fc1 = nn.Linear(784, 256); self.fc2 = nn.Linear(256, 256); self.fc3 = nn.Linear(256, 10)
        self.cd1 = ConcreteDropout(weight_regulariser, dropout_regulariser)
        self.cd2 = ConcreteDropout(weight_regulariser, dropout_regulariser)
        self.cd3 = ConcreteDropout(weight_regulariser, dropout_regulariser)
        self.relu = nn.ReLU(); self.softmax = nn.Softmax(dim=1)
    def forward(self, x):
        x = self.cd1(x, nn.Sequential(self.fc1, self.relu))
        x = self.cd2(x, nn.Sequential(self.fc2, self.relu))
        x = self.cd3(x, self.fc3)
        return self.softmax(x)
    def regularisation_loss(self):
        return self.cd1.regularisation + self.cd2.regularisation + self.cd3.regularisation

l = 1e-4; N = N_TR
wr_, dr_ = l ** 2 / N, 2. / N
model = Model(wr_, dr_)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f); wr.writerow(['epoch', 'step', 'loss', 'test_loss', 'test_acc'])
batch_size = 64
for epoch in range(1, 7):
    model.train(); perm = torch.randperm(N_TR)
    for batch_idx in range(N_TR // batch_size):
        idx = perm[batch_idx * batch_size:(batch_idx + 1) * batch_size]
        data, target = x_train[idx], y_train[idx]
        optimizer.zero_grad()
        output = model(data)
        loss = F.cross_entropy(output, target) + model.regularisation_loss().squeeze()
        loss.backward(); optimizer.step()
        if batch_idx % 20 == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * batch_size, N_TR, 100. * batch_idx * batch_size / N_TR, loss.item()), flush=True)
            wr.writerow([epoch, batch_idx, loss.item(), '', '']); f.flush()
    model.eval(); test_loss = 0.0; correct = 0
    with torch.no_grad():
        for b in range(0, N_TE, 500):
            output = model(x_test[b:b + 500])
            test_loss += F.cross_entropy(output, y_test[b:b + 500], reduction='sum').item()
            correct += (output.argmax(1) == y_test[b:b + 500]).sum().item()
    test_loss /= N_TE
    print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%), p = [{:.3f}, {:.3f}, {:.3f}]\n'.format(
        test_loss, correct, N_TE, 100. * correct / N_TE, model.cd1.p.item(), model.cd2.p.item(), model.cd3.p.item()), flush=True)
    wr.writerow([epoch, '', '', test_loss, correct / N_TE]); f.flush()
