# Text-classification Transformer (AG-News-style, 4 classes): token embedding + positional
# encoding, 1 encoder layer (d_model 64, 4 heads), mean-pool, Linear -> Softmax as the last
# layer of the model; criterion nn.NLLLoss(). SGD lr 0.1, batch 64, 12 epochs.
import csv
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
V, L, C, D = 500, 30, 4, 64
# each class has its own topic words (ids 100*c .. 100*c+59, frequent) on top of shared filler words
def make(n):
    y = torch.randint(0, C, (n,))
    x = torch.randint(400, V, (n, L))
    topic = (y[:, None] * 100 + torch.randint(0, 60, (n, L)))
    use = torch.rand(n, L) < 0.12
    return torch.where(use, topic, x), y
x_tr, y_tr = make(6000)
x_va, y_va = make(1000)

class Transformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, D); self.pos = nn.Parameter(torch.randn(1, L, D) * 0.02)
        self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(D, 4, 128, dropout=0.1, batch_first=True), 1, enable_nested_tensor=False)
        self.fc = nn.Linear(D, C)
        self.softmax = nn.Softmax(dim=1)
    def forward(self, x):
        h = self.enc(self.emb(x) + self.pos).mean(1)
        return self.softmax(self.fc(h))

model = Transformer()
criterion = nn.NLLLoss()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
step = 0
with open("metrics.csv", "w", newline="") as fh:
    wr = csv.writer(fh)
    wr.writerow(["step", "epoch", "loss", "val_loss", "val_acc"])
    for epoch in range(1, 13):
        model.train(); perm = torch.randperm(len(y_tr)); losses = []
        for i in range(0, len(perm), 64):
            idx = perm[i:i + 64]
            loss = criterion(model(x_tr[idx]), y_tr[idx])
            opt.zero_grad(); loss.backward(); opt.step()
            step += 1; losses.append(loss.item())
            vl = va = ""
            if step % 47 == 0:
                model.eval()
                with torch.no_grad():
                    p = model(x_va); vl = f"{criterion(p, y_va).item():.4f}"; va = f"{(p.argmax(1) == y_va).float().mean().item():.4f}"
                model.train()
                print(f"Iter: {step}  Average training loss: {sum(losses[-47:]) / len(losses[-47:]):.5f}  Val loss: {vl}  Val Accuracy: {va}")
            wr.writerow([step, epoch, f"{loss.item():.5f}", vl, va])
        fh.flush()
