"""MLP-Mixer on synthetic 'images' given as 16 patches x 12 features: each of 4 classes is a fixed patch
pattern, cyclically shifted over the patch axis and buried in Gaussian noise; 8% of labels are resampled at
random (label noise), so the best reachable accuracy is about 0.94. Two Mixer blocks (token-mixing MLP across
patches, channel-mixing MLP across features), mean pooling, linear head, AdamW + cross-entropy."""
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
LR, WD, DROPOUT, BATCH, EPOCHS = 2.0, 0.01, 0.1, 64, 8


def log_start(n_params, n_tr, n_va):
    print(f"Iniciando treinamento do MLP-Mixer ({n_params} parâmetros), {n_tr} amostras de treino e {n_va} de validação")


def log_step(epoch, i, n, loss, lr, gstep):
    if i % 12 == 0:
        print(f"  [época {epoch}] lote {i:3d}/{n} | perda {loss:.4f} | taxa {lr:g}")


def log_epoch(epoch, tl, ta, vl, va, lr, el):
    print(f"Época {epoch:02d} concluída | perda treino {tl:.4f} | acurácia treino {ta:.3f} | perda validação {vl:.4f} | acurácia validação {va:.3f}")


def log_end(vl, va, el):
    print(f"Fim do treinamento em {el:.1f}s. Acurácia final de validação: {va:.3f}")
def make_data(n, gen):
    y = torch.randint(0, 4, (n,), generator=gen)
    protos = torch.randn(4, 16, 12, generator=torch.Generator().manual_seed(11))
    shift = torch.randint(0, 16, (n,), generator=gen)
    x = torch.stack([torch.roll(protos[c], int(s), dims=0) for c, s in zip(y.tolist(), shift.tolist())])
    x = 0.6 * x + 1.0 * torch.randn(n, 16, 12, generator=gen)
    flip = torch.rand(n, generator=gen) < 0.08
    y = torch.where(flip, torch.randint(0, 4, (n,), generator=gen), y)
    return x, y


gen = torch.Generator().manual_seed(3)
x_train, y_train = make_data(2400, gen)
x_val, y_val = make_data(600, gen)


class MixerBlock(nn.Module):
    def __init__(self, tokens, dim, hid_t, hid_c, p):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.token_mlp = nn.Sequential(nn.Linear(tokens, hid_t), nn.GELU(), nn.Linear(hid_t, tokens))
        self.norm2 = nn.LayerNorm(dim)
        self.channel_mlp = nn.Sequential(nn.Linear(dim, hid_c), nn.GELU(), nn.Dropout(p), nn.Linear(hid_c, dim))

    def forward(self, x):
        x = x + self.token_mlp(self.norm1(x).transpose(1, 2)).transpose(1, 2)
        return x + self.channel_mlp(self.norm2(x))


class Mixer(nn.Module):
    def __init__(self, width=32, depth=2, p=0.1):
        super().__init__()
        self.embed = nn.Linear(12, width)
        self.blocks = nn.Sequential(*[MixerBlock(16, width, 32, 64, p) for _ in range(depth)])
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, 4)

    def forward(self, x):
        h = self.blocks(self.embed(x))
        return self.head(self.norm(h).mean(1))


model = Mixer(p=DROPOUT)
optimizer = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=WD)
criterion = nn.CrossEntropyLoss()
n_params = sum(p.numel() for p in model.parameters())
steps_per_epoch = (len(x_train) + BATCH - 1) // BATCH
log_start(n_params, len(x_train), len(x_val))


def evaluate():
    model.eval()
    with torch.no_grad():
        logits = model(x_val)
        loss = criterion(logits, y_val).item()
        acc = (logits.argmax(1) == y_val).float().mean().item()
    model.train()
    return loss, acc


gstep = 0
t0 = time.time()
for epoch in range(1, EPOCHS + 1):
    model.train()
    perm = torch.randperm(len(x_train))
    tot, correct, seen = 0.0, 0, 0
    for i in range(steps_per_epoch):
        idx = perm[i * BATCH:(i + 1) * BATCH]
        xb, yb = x_train[idx], y_train[idx]
        optimizer.zero_grad()
        logits = model(xb)
        loss = criterion(logits, yb)
        loss.backward()
        optimizer.step()
        gstep += 1
        tot += loss.item() * len(idx)
        correct += (logits.argmax(1) == yb).sum().item()
        seen += len(idx)
        log_step(epoch, i + 1, steps_per_epoch, loss.item(), optimizer.param_groups[0]["lr"], gstep)
    val_loss, val_acc = evaluate()
    log_epoch(epoch, tot / seen, correct / seen, val_loss, val_acc, optimizer.param_groups[0]["lr"], time.time() - t0)
log_end(val_loss, val_acc, time.time() - t0)
