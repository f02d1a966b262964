# skorch MNIST tutorial in miniature: ClassifierModule (64 -> 98 hidden ReLU -> Dropout(0.5) -> 10 softmax)
# wrapped like NeuralNetClassifier(max_epochs=12, lr=0.1, SGD, batch 128, NLLLoss on log-probabilities), with
# skorch's default internal 80/20 validation split. skorch reports train_loss as the average over the epoch's
# batches, computed while the net is still learning and with dropout active; valid_loss is computed after the
# epoch in eval mode. Synthetic 8x8 digit-like images (sklearn digits size) (20000). Writes metrics.csv and prints skorch's table.
import csv
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(306)

protos = (torch.rand(10, 64, generator=g) > 0.7).float()
y = torch.randint(0, 10, (20000,), generator=g)
X = protos[y] * (0.8 + 0.4 * torch.rand(20000, 1, generator=g)) + torch.randn(20000, 64, generator=g) * 1.0
flip = torch.rand(20000, generator=g) < 0.08                       # a few ambiguous / mislabeled digits
y[flip] = torch.randint(0, 10, (int(flip.sum()),), generator=g)
perm = torch.randperm(20000, generator=g)
tr, va = perm[:16000], perm[16000:]


class ClassifierModule(nn.Module):
    def __init__(self, input_dim=64, hidden_dim=98, output_dim=10, dropout=0.5):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.hidden = nn.Linear(input_dim, hidden_dim)
        self.output = nn.Linear(hidden_dim, output_dim)

    def forward(self, X):
        X = F.relu(self.hidden(X))
        X = self.dropout(X)
        return F.softmax(self.output(X), dim=-1)


net = ClassifierModule()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
rows = []
print('  epoch    train_loss    valid_acc    valid_loss     dur')
print('-------  ------------  -----------  ------------  ------')
for epoch in range(1, 13):
    t0 = time.time()
    net.train()
    p = tr[torch.randperm(len(tr), generator=g)]; tot, n = 0.0, 0
    for i in range(0, len(p), 128):
        idx = p[i:i + 128]
        loss = F.nll_loss(torch.log(net(X[idx]) + 1e-12), y[idx])
        opt.zero_grad(); loss.backward(); opt.step()
        tot += loss.item() * len(idx); n += len(idx)
    net.eval()
    with torch.no_grad():
        pr = net(X[va])
        vl = F.nll_loss(torch.log(pr + 1e-12), y[va]).item()
        vacc = (pr.argmax(1) == y[va]).float().mean().item()
        tr_eval = F.nll_loss(torch.log(net(X[tr]) + 1e-12), y[tr]).item()
    print(f'{epoch:7d}  {tot / n:12.4f}  {vacc:11.4f}  {vl:12.4f}  {time.time() - t0:6.4f}')
    rows.append(dict(epoch=epoch, train_loss=tot / n, valid_acc=vacc, valid_loss=vl, train_loss_eval_mode=tr_eval))
with open('metrics.csv', 'w', newline='') as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
