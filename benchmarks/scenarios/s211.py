# CLEVR-IEP-style baseline (LSTM question encoder + CNN image features -> MLP classifier with
# BatchNorm and dropout); train/val accuracy checked every checkpoint_every iterations
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(3)
torch.set_num_threads(1)

V, Q_LEN, N_ANS, FEAT = 40, 10, 12, 256
g = torch.Generator().manual_seed(11)
proto = torch.randn(N_ANS, FEAT, generator=g)
qproto = torch.randint(1, V, (N_ANS, Q_LEN), generator=g)

def make(n):
    ans = torch.randint(0, N_ANS, (n,), generator=g)
    feats = 0.07 * proto[ans] + torch.randn(n, FEAT, generator=g)
    q = qproto[ans].clone()
    noise = torch.rand(n, Q_LEN, generator=g) < 0.85
    q[noise] = torch.randint(1, V, (int(noise.sum()),), generator=g)
    return q, feats, ans

train_q, train_f, train_a = make(800)
val_q, val_f, val_a = make(1500)

class LstmCnnModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(V, 64)
        self.rnn = nn.LSTM(64, 128, batch_first=True)
        self.fc1 = nn.Linear(128 + FEAT, 512)
        self.bn1 = nn.BatchNorm1d(512)
        self.drop = nn.Dropout(0.5)
        self.fc2 = nn.Linear(512, 512)
        self.bn2 = nn.BatchNorm1d(512)
        self.out = nn.Linear(512, N_ANS)
    def forward(self, q, f):
        h, _ = self.rnn(self.embed(q))
        x = torch.cat([h[:, -1], f], 1)
        x = self.drop(F.relu(self.bn1(self.fc1(x))))
        x = self.drop(F.relu(self.bn2(self.fc2(x))))
        return self.out(x)

def set_mode(mode, models):
    for m in models:
        if mode == 'train':
            m.train()
        if mode == 'eval':
            m.eval()

def check_accuracy(model, q, f, a):
    set_mode('eval', [model])
    num_correct, num_samples = 0, 0
    with torch.no_grad():
        for i in range(0, len(a), 250):
            scores = model(q[i:i + 250], f[i:i + 250])
            num_correct += (scores.argmax(1) == a[i:i + 250]).sum().item()
            num_samples += len(a[i:i + 250])
    return num_correct / num_samples

model = LstmCnnModel()
optimizer = torch.optim.Adam(model.parameters(), lr=5e-4)
loss_fn = nn.CrossEntropyLoss()
batch_size, num_iterations, checkpoint_every = 64, 2000, 100
set_mode('train', [model])
t = 0
with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "loss", "train_acc", "val_acc"])
    while t < num_iterations:
        perm = torch.randperm(len(train_a))
        for i in range(0, len(perm) - batch_size + 1, batch_size):
            idx = perm[i:i + batch_size]
            t += 1
            optimizer.zero_grad()
            scores = model(train_q[idx], train_f[idx])
            loss = loss_fn(scores, train_a[idx])
            loss.backward()
            optimizer.step()
            if t % checkpoint_every == 0:
                print(t, loss.item())
                print('Checking training accuracy ... ')
                train_acc = check_accuracy(model, train_q, train_f, train_a)
                print('train accuracy is', train_acc)
                print('Checking validation accuracy ...')
                val_acc = check_accuracy(model, val_q, val_f, val_a)
                print('val accuracy is ', val_acc)
                w.writerow([t, f"{loss.item():.4f}", f"{train_acc:.4f}", f"{val_acc:.4f}"])
                fh.flush()
            else:
                w.writerow([t, f"{loss.item():.4f}", "", ""])
            if t == num_iterations:
                break
