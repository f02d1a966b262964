# Peptide collisional cross-section (CCS) regression in miniature, after the ProteomicsML ion-mobility tutorial
# (Meier et al. timsTOF CCS data): synthetic tryptic-like peptides (length 7-25 over the 20 amino acids, charge 2-3)
# whose CCS depends on length, charge and composition (bulky / hydrophobic residues) plus noise; targets are
# standardised to z-scores. Model: amino-acid embedding (16) + charge one-hot -> 1-layer LSTM (hidden 48) -> the last
# hidden state -> Dense(32, ReLU) -> Dense(1, ReLU), MSE loss, Adam lr 1e-3, batch 64, 12 epochs over 3000 peptides.
# Prints train MSE, validation MSE, the fraction of validation predictions that are exactly 0 and the validation
# Pearson r per epoch, writes metrics.csv.
import csv
import torch
import torch.nn as nn

torch.manual_seed(6)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(329)
L = 25
bulk = torch.rand(20, generator=g) * 2.0          # per-residue size contribution
hyd = torch.randn(20, generator=g) * 0.5          # per-residue hydrophobicity


def peptides(n):
    lens = torch.randint(7, L + 1, (n,), generator=g)
    seq = torch.randint(1, 21, (n, L), generator=g)
    seq[torch.arange(L)[None, :] >= lens[:, None]] = 0  # padding
    charge = torch.randint(2, 4, (n,), generator=g)
    comp = (bulk[(seq - 1).clamp(min=0)] * (seq > 0)).sum(1) + (hyd[(seq - 1).clamp(min=0)] * (seq > 0)).sum(1)
    ccs = 250 + 14 * lens + 60 * (charge - 2) + 4 * comp + 8 * torch.randn(n, generator=g)
    return seq, charge, lens, ccs


seq, charge, lens, ccs = peptides(3600)
mu, sd = ccs[:3000].mean(), ccs[:3000].std()
y = (ccs - mu) / sd
tr, va = slice(0, 3000), slice(3000, 3600)


class CCSNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(21, 16, padding_idx=0)
        self.lstm = nn.LSTM(16 + 2, 48, batch_first=True)
        self.head = nn.Sequential(nn.Linear(48, 32), nn.ReLU(), nn.Linear(32, 1), nn.ReLU())

    def forward(self, s, c, ln):
        x = torch.cat([self.emb(s), nn.functional.one_hot(c - 2, 2).float()[:, None, :].expand(-1, s.shape[1], -1)], -1)
        h, _ = self.lstm(x)
        last = h[torch.arange(len(s)), ln - 1]
        return self.head(last).squeeze(-1)


model = CCSNet()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
lossf = nn.MSELoss()
rows = []
for epoch in range(1, 13):
    model.train()
    perm = torch.randperm(3000, generator=g)
    tl = []
    for k in range(0, 3000, 64):
        i = perm[k:k + 64]
        loss = lossf(model(seq[i], charge[i], lens[i]), y[i])
        opt.zero_grad(); loss.backward(); opt.step()
        tl.append(loss.item())
    model.eval()
    with torch.no_grad():
        p = model(seq[va], charge[va], lens[va])
        vl = lossf(p, y[va]).item()
        zero = (p == 0).float().mean().item()
        r = torch.corrcoef(torch.stack([p, y[va]]))[0, 1].item() if p.std() > 0 else float('nan')
    row = dict(epoch=epoch, train_mse=sum(tl) / len(tl), val_mse=vl, val_zero_frac=zero, val_pearson=r)
    rows.append(row)
    print(f"epoch {epoch:2d} train MSE {row['train_mse']:.4f} | val MSE {vl:.4f} | val predictions == 0: {zero:.3f} | val r {r:.3f}")
with open('metrics.csv', 'w', newline='') as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0])); w.writeheader(); w.writerows(rows)
