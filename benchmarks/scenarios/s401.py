# TRIDENT tutorial 3 ("Training a WSI classification model with ABMIL") in miniature: bags of
# pre-extracted patch features (synthetic, 256-d, 60-120 patches per slide; positive slides hold a
# small fraction of patches with a tumour signature), BinaryClassificationModel = ABMILSlideEncoder
# (pre-attention Linear+GELU+dropout, gated attention, attention pooling) + Linear classifier,
# AdamW 4e-4, 20 epochs, one slide per step, "Epoch n, Loss: x" lines and a final test AUC/accuracy.
# As in the tutorial, the slide encoder is built through the model factory, which sets
# requires_grad = False on all of its parameters, so only the final classifier is trained.
import csv
import numpy as np
import torch, torch.nn as nn

np.random.seed(122); torch.manual_seed(122); torch.set_num_threads(1)

D = 256
proto = torch.randn(D); proto = proto / proto.norm() * 6.0
def slide(label):
    n = np.random.randint(60, 121); x = torch.randn(n, D)
    if label:
        k = max(2, int(n * np.random.uniform(0.04, 0.10))); x[:k] += proto
    return x[torch.randperm(n)]
def split(n):
    ys = np.random.randint(0, 2, n); return [slide(y) for y in ys], torch.tensor(ys, dtype=torch.float32)
train_x, train_y = split(240); test_x, test_y = split(120)

class ABMILSlideEncoder(nn.Module):
    def __init__(self, input_feature_dim=D, n_heads=1, head_dim=128, dropout=0.0, gated=True):
        super().__init__()
        self.pre = nn.Sequential(nn.Linear(input_feature_dim, head_dim), nn.GELU(), nn.Dropout(dropout))
        self.a = nn.Sequential(nn.Linear(head_dim, head_dim), nn.Tanh())
        self.b = nn.Sequential(nn.Linear(head_dim, head_dim), nn.Sigmoid())
        self.c = nn.Linear(head_dim, n_heads)
    def forward(self, x):
        h = self.pre(x); att = torch.softmax(self.c(self.a(h) * self.b(h)), dim=0)
        return (att * h).sum(0)

def create_slide_encoder(**kw):                         # model factory (load.py)
    enc = ABMILSlideEncoder(**kw)
    for p in enc.parameters(): p.requires_grad = False
    return enc

class BinaryClassificationModel(nn.Module):
    def __init__(self, input_feature_dim=D, n_heads=1, head_dim=128, dropout=0.0, gated=True):
        super().__init__()
        self.feature_encoder = create_slide_encoder(input_feature_dim=input_feature_dim, n_heads=n_heads,
                                                    head_dim=head_dim, dropout=dropout, gated=gated)
        self.classifier = nn.Linear(head_dim, 1)
    def forward(self, x): return self.classifier(self.feature_encoder(x)).squeeze(-1)

model = BinaryClassificationModel()
criterion = nn.BCEWithLogitsLoss()
optimizer = torch.optim.AdamW(model.parameters(), lr=4e-4)
def auc(s, y):
    s, y = np.asarray(s), np.asarray(y); pos, neg = s[y == 1], s[y == 0]
    return float(((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()) / (len(pos) * len(neg)))
f = open('metrics.csv', 'w', newline=''); w = csv.writer(f); w.writerow(['epoch', 'train_loss', 'test_auc', 'test_acc'])
num_epochs = 20
for epoch in range(num_epochs):
    model.train(); total = 0.0
    for i in np.random.permutation(len(train_x)):
        loss = criterion(model(train_x[i]), train_y[i])
        optimizer.zero_grad(); loss.backward(); optimizer.step(); total += loss.item()
    model.eval()
    with torch.no_grad(): s = [torch.sigmoid(model(x)).item() for x in test_x]
    a = auc(s, test_y.numpy()); acc = float(((np.array(s) > 0.5) == test_y.numpy()).mean())
    print(f"Epoch {epoch + 1}/{num_epochs}, Loss: {total / len(train_x):.4f}")
    w.writerow([epoch + 1, round(total / len(train_x), 5), round(a, 4), round(acc, 4)]); f.flush()
print(f"Test AUC: {a:.4f}")
print(f"Test Accuracy: {acc:.4f}")
f.close()
