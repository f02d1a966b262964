# MusicNet-style linear note detector: spectral features of an audio window -> 128 note activations, square loss, SGD+momentum
import csv
import torch
import torch.nn as nn

torch.manual_seed(4)
torch.set_num_threads(1)

regions, k, m = 16, 32, 128
d = regions * k
g = torch.Generator().manual_seed(8)
N = 4000
notes = (torch.rand(N, m, generator=g) < 0.03).float()
spectra = torch.rand(m, d, generator=g) ** 4                    # each note excites a few frequency bins
Xall = notes @ spectra + 0.05 * torch.rand(N, d, generator=g)
Yall = notes
Xtr, Ytr, Xte, Yte = Xall[:3500], Yall[:3500], Xall[3500:], Yall[3500:]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(d, m, bias=False)
        torch.nn.init.normal_(self.linear.weight, 0, 1)

    def forward(self, x):
        return self.linear(x)


def average_precision(scores, targets):
    s, t = scores.flatten(), targets.flatten()
    order = torch.argsort(s, descending=True)
    t = t[order]
    hits = torch.cumsum(t, 0)
    prec = hits / torch.arange(1, len(t) + 1)
    return (prec * t).sum().item() / max(t.sum().item(), 1)


model = Model()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-4, momentum=.95)
print("square_error\tavgp_train\tavgp_test")
with open("metrics.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["step", "epoch", "loss", "avgp_train", "avgp_test"])
    step = 0
    for epoch in range(30):
        perm = torch.randperm(3500)
        for i in range(0, 3500, 100):
            b = perm[i:i + 100]
            loss = ((model(Xtr[b]) - Ytr[b]) ** 2).sum() / len(b)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            w.writerow([step, epoch, f"{loss.item():.4f}", "", ""])
        with torch.no_grad():
            ap_tr = average_precision(model(Xtr[:1000]), Ytr[:1000])
            ap_te = average_precision(model(Xte), Yte)
        w.writerow([step, epoch, f"{loss.item():.4f}", f"{ap_tr:.4f}", f"{ap_te:.4f}"])
        print(f"{loss.item():.2f}\t{ap_tr:.2f}\t{ap_te:.2f}")
