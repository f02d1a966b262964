# MaskBit-style bit tokenizer in miniature: a conv autoencoder whose 8-channel latent is quantized per position
# with lookup-free binary quantization (sign, straight-through), so each token is one of 2^8 = 256 bit codes.
# Loss = reconstruction MSE + commitment + 0.1 * entropy loss, where the entropy loss is
#     per-sample (token) entropy  -  codebook (batch-average) entropy,
# minimising the first (confident assignments) and maximising the second (use all codes); the second term is
# subtracted, so the total loss can and does go negative. Adam 2e-3, batch 32, 12x12 synthetic images,
# 500 steps. Writes metrics.jsonl and prints log lines like the tokenizer trainer.
import json
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(307)


def images(n):
    xs = torch.linspace(-1, 1, 12)
    yy, xx = torch.meshgrid(xs, xs, indexing='ij')
    out = torch.empty(n, 3, 12, 12)
    for i in range(n):
        c = torch.rand(3, 1, 1, generator=g)
        a, f = float(torch.rand(1, generator=g)) * 6.28, 2 + 4 * float(torch.rand(1, generator=g))
        out[i] = c * (0.5 + 0.5 * torch.sin(f * (math.cos(a) * xx + math.sin(a) * yy)))
    return out


data, val = images(2000), images(200)
B = 8
codes = torch.tensor([[1.0 if (k >> b) & 1 else -1.0 for b in range(B)] for k in range(2 ** B)])


class Tokenizer(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1), nn.ReLU(), nn.Conv2d(32, B, 3, 1, 1))
        self.dec = nn.Sequential(nn.Conv2d(B, 32, 3, 1, 1), nn.ReLU(), nn.ConvTranspose2d(32, 3, 4, 2, 1))

    def forward(self, x):
        z = self.enc(x)
        q = torch.where(z > 0, 1.0, -1.0)
        zq = z + (q - z).detach()
        return self.dec(zq), z, q


def entropy_terms(z, temp=0.5):
    flat = z.permute(0, 2, 3, 1).reshape(-1, B)
    logits = 2 * flat @ codes.t() / temp                 # -||z - c||^2 up to a constant
    p = logits.softmax(-1)
    sample_ent = -(p * torch.log(p + 1e-8)).sum(-1).mean()
    avg = p.mean(0)
    avg_ent = -(avg * torch.log(avg + 1e-8)).sum()
    return sample_ent, avg_ent


model = Tokenizer()
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
out = open('metrics.jsonl', 'w')
for step in range(1, 501):
    idx = torch.randint(0, len(data), (32,), generator=g)
    x = data[idx]
    rec, z, q = model(x)
    rec_loss = F.mse_loss(rec, x)
    commit = F.mse_loss(z, q.detach())
    s_ent, a_ent = entropy_terms(z)
    ent_loss = s_ent - a_ent
    total = rec_loss + 0.25 * commit + 0.1 * ent_loss
    opt.zero_grad(); total.backward(); opt.step()
    if step % 25 == 0:
        with torch.no_grad():
            vr, vz, vq = model(val)
            v_rec = F.mse_loss(vr, val).item()
            used = len(torch.unique(((vq > 0).long() * (2 ** torch.arange(B)).view(1, B, 1, 1)).sum(1)))
        rec_ = dict(step=step, total_loss=total.item(), entropy_loss=ent_loss.item(), sample_entropy=s_ent.item(),
                    avg_entropy=a_ent.item(), rec_loss=rec_loss.item(), val_rec_loss=v_rec, codes_used=used)
        out.write(json.dumps(rec_) + '\n')
        print(f'Step: {step} Total Loss: {total.item():.4f} Entropy Loss: {ent_loss.item():.4f} Sample Entropy: '
              f'{s_ent.item():.4f} Avg Entropy: {a_ent.item():.4f} Rec Loss: {rec_loss.item():.4f} '
              f'Val Rec Loss: {v_rec:.4f} Codes used: {used}/256')
out.close()
