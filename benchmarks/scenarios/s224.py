# FedAvg on MNIST-like data (IID split), MLP 784-200-10,
# local training with nn.CrossEntropyLoss, SGD lr 0.01 momentum 0.5
import copy
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)
torch.set_num_threads(1)

g = torch.Generator().manual_seed(2)
templates = torch.rand(10, 784, generator=g)
def mnist_like(n):
    y = torch.randint(0, 10, (n,), generator=g)
    x = (templates[y] * (torch.rand(n, 784, generator=g) < 0.55).float() + 1.6 * torch.randn(n, 784, generator=g))
    return (x - 0.1307) / 0.3081, y
X, Y = mnist_like(6000)
Xte, Yte = mnist_like(2000)
num_users, frac, local_ep, local_bs, rounds = 20, 0.25, 2, 10, 25
dict_users = torch.randperm(6000).view(num_users, -1)

class MLP(nn.Module):
    def __init__(self, dim_in=784, dim_hidden=200, dim_out=10):
        super().__init__()
        self.layer_input = nn.Linear(dim_in, dim_hidden)
        self.relu = nn.ReLU()
        self.dropout = nn.Dropout()
        self.layer_hidden = nn.Linear(dim_hidden, dim_out)
        self.softmax = nn.Softmax(dim=1)
    def forward(self, x):
        x = x.view(-1, x.shape[-1])
        x = self.layer_input(x)
        x = self.dropout(x)
        x = self.relu(x)
        x = self.layer_hidden(x)
        return self.softmax(x)

def local_update(net, idxs):
    net.train()
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.5)
    loss_func = nn.CrossEntropyLoss()
    epoch_loss = []
    for it in range(local_ep):
        p = idxs[torch.randperm(len(idxs))]
        batch_loss = []
        for i in range(0, len(p), local_bs):
            b = p[i:i + local_bs]
            net.zero_grad()
            log_probs = net(X[b])
            loss = loss_func(log_probs, Y[b])
            loss.backward()
            opt.step()
            batch_loss.append(loss.item())
        epoch_loss.append(sum(batch_loss) / len(batch_loss))
    return net.state_dict(), sum(epoch_loss) / len(epoch_loss)

def FedAvg(ws):
    w_avg = copy.deepcopy(ws[0])
    for k in w_avg.keys():
        for i in range(1, len(ws)):
            w_avg[k] += ws[i][k]
        w_avg[k] = torch.div(w_avg[k], len(ws))
    return w_avg

def test_img(net):
    net.eval()
    with torch.no_grad():
        out = net(Xte)
        loss = F.cross_entropy(out, Yte).item()
        acc = (out.argmax(1) == Yte).float().mean().item() * 100
    return acc, loss

net_glob = MLP()
with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["round", "train_loss", "test_loss", "test_acc"])
    for it in range(rounds):
        w_locals, loss_locals = [], []
        m = max(int(frac * num_users), 1)
        for idx in torch.randperm(num_users)[:m]:
            w, loss = local_update(copy.deepcopy(net_glob), dict_users[idx])
            w_locals.append(w); loss_locals.append(loss)
        net_glob.load_state_dict(FedAvg(w_locals))
        loss_avg = sum(loss_locals) / len(loss_locals)
        acc, tl = test_img(net_glob)
        wr.writerow([it, f"{loss_avg:.4f}", f"{tl:.4f}", f"{acc:.2f}"])
        fh.flush()
        print('Round {:3d}, Average loss {:.3f}, Testing accuracy: {:.2f}'.format(it, loss_avg, acc))
