# Graph neural network in miniature (graph_neural_net-style message passing): node classification on a
# stochastic-block-model graph, 6 communities x 50 nodes, noisy 16-d node features. The model's forward
# ends in torch.softmax(dim=-1) and the training criterion is nn.CrossEntropyLoss, which applies
# log_softmax again on top of those probabilities. Adam 1e-2, full-graph training, 150 epochs.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(282)

C, per = 6, 50
n = C * per
y = torch.arange(C).repeat_interleave(per)
same = (y[:, None] == y[None, :]).float()
prob = 0.12 * same + 0.01 * (1 - same)
A = (torch.rand(n, n, generator=g) < prob).float()
A = torch.triu(A, 1); A = A + A.t() + torch.eye(n)
deg = A.sum(1)
A_hat = A / deg.sqrt()[:, None] / deg.sqrt()[None, :]
centers = torch.randn(C, 16, generator=g)
X = centers[y] * 0.6 + torch.randn(n, 16, generator=g)
perm = torch.randperm(n, generator=g)
tr, va = perm[:180], perm[180:]


class GNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(16, 64)
        self.l2 = nn.Linear(64, 64)
        self.out = nn.Linear(64, C)

    def forward(self, x, a):
        h = F.relu(a @ self.l1(x))
        h = F.relu(a @ self.l2(h))
        return torch.softmax(self.out(h), dim=-1)       # probabilities ...


model = GNN()
criterion = nn.CrossEntropyLoss()                       # ... fed to a loss that expects logits
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
print('epoch,train_loss,train_acc,val_loss,val_acc')
for epoch in range(1, 151):
    model.train()
    p = model(X, A_hat)
    loss = criterion(p[tr], y[tr])
    opt.zero_grad(); loss.backward(); opt.step()
    if epoch % 10 == 0 or epoch == 1:
        model.eval()
        with torch.no_grad():
            p = model(X, A_hat)
            tl = criterion(p[tr], y[tr]).item(); vl = criterion(p[va], y[va]).item()
            ta = (p[tr].argmax(1) == y[tr]).float().mean().item(); vacc = (p[va].argmax(1) == y[va]).float().mean().item()
        print('{},{:.4f},{:.4f},{:.4f},{:.4f}'.format(epoch, tl, ta, vl, vacc))
