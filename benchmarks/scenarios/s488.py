# adapter-hub/adapters (adapter-transformers) issue "Train T5 with adapter without using Trainer Class
# didn't update the adapter's weight" in miniature: a custom training loop (no Trainer) for a T5-style
# encoder-decoder with bottleneck adapters, as in the poster's script: the optimizer (AdamW with the usual
# no_decay parameter groups over model.named_parameters()) and the linear scheduler are built from the
# model, then model.add_adapter(task, config=HoulsbyConfig()), model.train_adapter(task) (freezes the base
# model, unfreezes the adapter) and model.set_active_adapters(task) are called. A tiny transformer
# encoder-decoder, pretrained in the script on a copy task, stands in for t5-base; the adapter task is
# sequence reversal on synthetic token sequences. The poster printed an adapter weight of the first
# encoder layer during training; the script does the same.
import math
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
V, L, D, H, FF = 16, 8, 64, 4, 128          # vocab (0 = pad/start), length, width, heads, ffn
PAD = 0

class Adapter(nn.Module):                     # Houlsby bottleneck: down - relu - up, residual
    def __init__(self, d, r=16):
        super().__init__(); self.adapter_down = nn.Linear(d, d // r * 4); self.adapter_up = nn.Linear(d // r * 4, d)
        nn.init.normal_(self.adapter_down.weight, std=1e-2); nn.init.zeros_(self.adapter_up.weight)
        nn.init.zeros_(self.adapter_up.bias)
    def forward(self, h): return h + self.adapter_up(F.relu(self.adapter_down(h)))

class Block(nn.Module):
    def __init__(self, cross=False):
        super().__init__()
        self.ln1 = nn.LayerNorm(D); self.attn = nn.MultiheadAttention(D, H, batch_first=True)
        self.cross = cross
        if cross: self.lnc = nn.LayerNorm(D); self.xattn = nn.MultiheadAttention(D, H, batch_first=True)
        self.ln2 = nn.LayerNorm(D); self.ff = nn.Sequential(nn.Linear(D, FF), nn.ReLU(), nn.Linear(FF, D))
        self.adapters = nn.ModuleDict()
        self.active = None
    def forward(self, h, mem=None, causal=None):
        a = self.ln1(h); a = self.attn(a, a, a, attn_mask=causal, need_weights=False)[0]
        if self.active: a = self.adapters[self.active + '_attn'](a)
        h = h + a
        if self.cross:
            c = self.lnc(h); h = h + self.xattn(c, mem, mem, need_weights=False)[0]
        f = self.ff(self.ln2(h))
        if self.active: f = self.adapters[self.active + '_ff'](f)
        return h + f

class TinyT5(nn.Module):
    def __init__(self, n_layers=2):
        super().__init__()
        self.shared = nn.Embedding(V, D); self.pos = nn.Parameter(torch.randn(L + 1, D) * 0.02)
        self.encoder = nn.ModuleList([Block() for _ in range(n_layers)])
        self.decoder = nn.ModuleList([Block(cross=True) for _ in range(n_layers)])
        self.ln_f = nn.LayerNorm(D); self.lm_head = nn.Linear(D, V, bias=False)
    def forward(self, input_ids, labels):
        dec_in = torch.cat([torch.zeros_like(labels[:, :1]), labels[:, :-1]], 1)   # shift right, start = 0
        h = self.shared(input_ids) + self.pos[:input_ids.size(1)]
        for b in self.encoder: h = b(h)
        g = self.shared(dec_in) + self.pos[:dec_in.size(1)]
        causal = torch.triu(torch.ones(L, L, dtype=torch.bool), 1)
        for b in self.decoder: g = b(g, mem=h, causal=causal)
        logits = self.lm_head(self.ln_f(g))
        return F.cross_entropy(logits.reshape(-1, V), labels.reshape(-1)), logits
    # adapter-transformers style API
    def add_adapter(self, name, config=None):
        for b in list(self.encoder) + list(self.decoder):
            b.adapters[name + '_attn'] = Adapter(D); b.adapters[name + '_ff'] = Adapter(D)
    def train_adapter(self, name):
        for n, p in self.named_parameters(): p.requires_grad = ('adapters.' + name) in n
    def set_active_adapters(self, name):
        for b in list(self.encoder) + list(self.decoder): b.active = name

def batch(n, task):
    x = torch.randint(1, V, (n, L))
    return x, (x.clone() if task == 'copy' else x.flip(1))

# "pretrained" base model: a short run on the copy task
model = TinyT5()
pre = torch.optim.AdamW(model.parameters(), lr=3e-3)
for s in range(250):
    x, y = batch(64, 'copy'); loss, _ = model(x, y); pre.zero_grad(); loss.backward(); pre.step()
print('loaded base model (copy task loss %.4f)' % loss.item())

# --- the poster's script: optimizer and scheduler first ---
num_train_epochs, steps_per_epoch, lr = 4, 60, 1e-3
no_decay = ["bias", "LayerNorm.weight", "ln"]
optimizer_grouped_parameters = [
    {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)], "weight_decay": 0.0},
    {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)], "weight_decay": 0.0},
]
optimizer = torch.optim.AdamW(optimizer_grouped_parameters, lr=lr)
max_train_steps = num_train_epochs * steps_per_epoch
lr_scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1 - s / max_train_steps)

task_name = 'reverse'
model.add_adapter(task_name, config='houlsby')
model.train_adapter(task_name)
model.set_active_adapters(task_name)
n_train = sum(p.numel() for p in model.parameters() if p.requires_grad)
print('trainable parameters: %d of %d' % (n_train, sum(p.numel() for p in model.parameters())))

torch.manual_seed(1)
val_x, val_y = batch(256, 'reverse')
w = model.encoder[0].adapters[task_name + '_attn'].adapter_up.weight
for epoch in range(num_train_epochs):
    model.train(); tot = 0.0
    for step in range(steps_per_epoch):
        x, y = batch(32, 'reverse')
        loss, _ = model(x, y)
        loss.backward(); optimizer.step(); lr_scheduler.step(); optimizer.zero_grad()
        tot += loss.item()
        if (step + 1) % 20 == 0:
            print('epoch %d step %d loss %.4f lr %.6f' % (epoch, step + 1, loss.item(), lr_scheduler.get_last_lr()[0]))
    model.eval()
    with torch.no_grad():
        vloss, logits = model(val_x, val_y)
        acc = (logits.argmax(-1) == val_y).float().mean().item()
    print('epoch %d: train loss %.4f | eval loss %.4f | eval token acc %.4f | encoder.0 adapter_up.weight[0,:4] %s'
          % (epoch, tot / steps_per_epoch, vloss.item(), acc, [round(v, 5) for v in w[0, :4].tolist()]), flush=True)
