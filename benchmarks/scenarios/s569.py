# NVIDIA-Merlin/models, PyTorch backend before pull request 1175 (parent commit bb8b7bd8): a click-through model
# mm.Model(mm.MLPBlock([64, 32]), mm.BinaryOutput(ColumnSchema("click"))) where BinaryOutput is
# nn.LazyLinear(1) followed by nn.Sigmoid() and its DEFAULT_LOSS_CLS is nn.BCEWithLogitsLoss, so the loss applies a
# second sigmoid to predictions that are already probabilities; Model.training_step calls compute_loss(predictions,
# targets, model_outputs) (loss = model_out.loss(predictions, targets) plus binary Accuracy and AUROC on the
# predictions), and the default optimizer is torch.optim.Adam. Written out in plain PyTorch (no Lightning, no Merlin
# schema): the MLP (LazyLinear + ReLU) over the concatenated embedded categorical and continuous features, the
# BinaryOutput, the same compute_loss, and a per-epoch line with train_loss, val_loss, val_binary_accuracy and
# val_binary_auroc in place of the Lightning progress bar. Synthetic click data instead of a Merlin dataset: two
# categorical features (200 users, 50 items, embedding 16) and 8 continuous features, clicks drawn from a hidden
# logistic model (about 30 % positive); 12000 training rows, 3000 validation rows, batch 256, Adam lr 1e-3, 10
# epochs. metrics.csv has the loss of every batch and the per-epoch validation results.
import csv

import torch
from torch import nn

torch.manual_seed(0)
torch.set_num_threads(1)

N_USERS, N_ITEMS, N_CONT = 200, 50, 8


def make_data(n, g):
    user = torch.randint(0, N_USERS, (n,), generator=g)
    item = torch.randint(0, N_ITEMS, (n,), generator=g)
    cont = torch.randn(n, N_CONT, generator=g)
    return user, item, cont


g = torch.Generator().manual_seed(123)
u_bias = torch.randn(N_USERS, generator=g) * 1.5
i_bias = torch.randn(N_ITEMS, generator=g) * 1.5
w_cont = torch.randn(N_CONT, generator=g)


def clicks(user, item, cont, g):
    logit = 2.0 * (u_bias[user] + i_bias[item] + cont @ w_cont) / 2.5 - 1.6
    return (torch.rand(len(user), generator=g) < torch.sigmoid(logit)).float().unsqueeze(1)


tr = make_data(12000, g); y_tr = clicks(*tr, g)
va = make_data(3000, g); y_va = clicks(*va, g)


class MLPBlock(nn.Sequential):
    def __init__(self, units, activation=nn.ReLU):
        modules = []
        for dim in units:
            modules.append(nn.LazyLinear(dim))
            modules.append(activation())
        super().__init__(*modules)


class BinaryOutput(nn.Module):
    """A prediction block for binary classification (loss default nn.BCEWithLogitsLoss())."""

    DEFAULT_LOSS_CLS = nn.BCEWithLogitsLoss

    def __init__(self, loss=None):
        super().__init__()
        self.values = nn.Sequential(nn.LazyLinear(1), nn.Sigmoid())
        self.loss = loss or self.DEFAULT_LOSS_CLS()

    def forward(self, x):
        return self.values(x)


class Model(nn.Module):
    def __init__(self, *blocks):
        super().__init__()
        self.user_emb = nn.Embedding(N_USERS, 16)
        self.item_emb = nn.Embedding(N_ITEMS, 16)
        self.blocks = nn.Sequential(*blocks)

    def forward(self, user, item, cont):
        x = torch.cat([self.user_emb(user), self.item_emb(item), cont], dim=1)
        return self.blocks(x)

    def model_outputs(self):
        return [m for m in self.modules() if isinstance(m, BinaryOutput)]


def binary_auroc(p, y):
    p, y = p.view(-1), y.view(-1)
    order = torch.argsort(p)
    ranks = torch.empty_like(p)
    ranks[order] = torch.arange(1, len(p) + 1, dtype=p.dtype)
    n_pos = y.sum()
    n_neg = len(y) - n_pos
    return ((ranks[y == 1].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)).item()


def compute_loss(predictions, targets, model_outputs, compute_metrics=True):
    results = {"loss": torch.tensor(0.0)}
    for model_out in model_outputs:
        _targets = targets.type_as(predictions).view(predictions.size())
        results["loss"] = results["loss"] + model_out.loss(predictions, _targets) / len(model_outputs)
        if compute_metrics:
            results["binary_accuracy"] = ((predictions > 0.5).float() == _targets).float().mean().item()
            results["binary_auroc"] = binary_auroc(predictions.detach(), _targets)
    return results


model = Model(MLPBlock([64, 32]), BinaryOutput())
model(*[t[:2] for t in tr])  # initialise the lazy layers
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

out_f = open('metrics.csv', 'w', newline='')
wr = csv.writer(out_f)
wr.writerow(['epoch', 'step', 'train_loss', 'val_loss', 'val_binary_accuracy', 'val_binary_auroc'])
print('click rate: train {:.3f}, valid {:.3f}'.format(y_tr.mean().item(), y_va.mean().item()))
step = 0
bs = 256
for epoch in range(10):
    model.train()
    perm = torch.randperm(len(y_tr))
    losses = []
    for i in range(0, len(perm), bs):
        idx = perm[i:i + bs]
        predictions = model(tr[0][idx], tr[1][idx], tr[2][idx])
        loss = compute_loss(predictions, y_tr[idx], model.model_outputs(), compute_metrics=False)["loss"]
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step += 1
        losses.append(loss.item())
        wr.writerow([epoch, step, round(loss.item(), 6), '', '', ''])
    model.eval()
    with torch.no_grad():
        res = compute_loss(model(*va), y_va, model.model_outputs())
    wr.writerow([epoch, step, '', round(res['loss'].item(), 6), round(res['binary_accuracy'], 4),
                 round(res['binary_auroc'], 4)])
    out_f.flush()
    print('Epoch {}: {}/{} train_loss={:.4f} val_loss={:.4f} val_binary_accuracy={:.4f} val_binary_auroc={:.4f}'.format(
        epoch, step, step, sum(losses) / len(losses), res['loss'].item(), res['binary_accuracy'], res['binary_auroc']))
out_f.close()
