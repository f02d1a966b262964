# Emotional-support dialogue response generation in miniature: a GRU encoder-decoder conditioned on
# the seeker's utterance and a strategy token, trained with teacher forcing on 600 synthetic
# (context, strategy, response) pairs for 5 epochs, AdamW 1e-3 with linear warm-up/decay, batch 16.
# The training loss is logged every 10 steps as the mean of the last 10 steps (tensorboard-style);
# the validation loss and perplexity are printed after each epoch.
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(51)

V, Lc, Lr, n_strat = 120, 12, 10, 8
PAD, BOS = 0, 1
topic_words = torch.randint(10, V, (20, 6), generator=g)
strat_words = torch.randint(10, V, (n_strat, 4), generator=g)
def pair():
    t = int(torch.randint(0, 20, (1,), generator=g)); s = int(torch.randint(0, n_strat, (1,), generator=g))
    ctx = topic_words[t][torch.randint(0, 6, (Lc,), generator=g)]
    ctx = torch.where(torch.rand(Lc, generator=g) < 0.3, torch.randint(10, V, (Lc,), generator=g), ctx)
    resp = torch.cat([strat_words[s][torch.randint(0, 4, (4,), generator=g)],
                      topic_words[t][torch.randint(0, 6, (Lr - 4,), generator=g)]])
    resp = torch.where(torch.rand(Lr, generator=g) < 0.35, torch.randint(10, V, (Lr,), generator=g), resp)
    return ctx, s, resp
data = [pair() for _ in range(900)]
def stack(items):
    return (torch.stack([d[0] for d in items]), torch.tensor([d[1] for d in items]), torch.stack([d[2] for d in items]))
Ctr, Str, Rtr = stack(data[:600]); Cva, Sva, Rva = stack(data[600:])

class Seq2Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, 128)
        self.strat = nn.Embedding(n_strat, 128)
        self.enc = nn.GRU(128, 512, batch_first=True)
        self.dec = nn.GRU(128, 512, batch_first=True)
        self.out = nn.Linear(512, V)
    def forward(self, ctx, s, resp):
        _, h = self.enc(self.emb(ctx))
        dec_in = torch.cat([torch.full_like(resp[:, :1], BOS), resp[:, :-1]], 1)
        x = self.emb(dec_in); x[:, 0] = x[:, 0] + self.strat(s)
        o, _ = self.dec(x, h)
        return self.out(o)

model = Seq2Seq()
EPOCHS, BS = 5, 16
steps_total = EPOCHS * math.ceil(600 / BS)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.0)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda st: min(1.0, (st + 1) / 50) * max(0.0, 1 - st / steps_total))
step, window = 0, []
for epoch in range(EPOCHS):
    model.train()
    perm = torch.randperm(600)
    for i in range(0, 600, BS):
        idx = perm[i:i + BS]
        logits = model(Ctr[idx], Str[idx], Rtr[idx])
        loss = F.cross_entropy(logits.reshape(-1, V), Rtr[idx].reshape(-1))
        opt.zero_grad(); loss.backward(); nn.utils.clip_grad_norm_(model.parameters(), 1.0); opt.step(); sched.step()
        step += 1; window.append(loss.item())
        if step % 10 == 0:
            print('step {:4d} | epoch {} | train/loss {:.4f} | lr {:.2e}'.format(step, epoch, sum(window) / len(window), sched.get_last_lr()[0]))
            window = []
    model.eval()
    with torch.no_grad():
        vl = F.cross_entropy(model(Cva, Sva, Rva).reshape(-1, V), Rva.reshape(-1)).item()
    print('=== epoch {} done | eval/loss {:.4f} | eval/ppl {:.2f}'.format(epoch, vl, math.exp(vl)))
