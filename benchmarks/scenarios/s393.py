# Supervised fine-tuning (sft stage, LlamaFactory-style logging) of a tiny causal LM in miniature.
# Synthetic instruction data: 240 examples; each prompt names a topic (16 topics) and each answer
# is a topic template (learnable) followed by 10 example-specific tokens (only memorisable).
# Loss on answer tokens only. AdamW lr 3e-3 (cosine, 10 warmup steps), no dropout, batch 8,
# 4 epochs, eval on 80 held-out examples every 30 steps.
import math
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); torch.set_num_threads(1)
V, L, P = 160, 28, 8     # vocab, sequence length, prompt length

g = torch.Generator().manual_seed(1)
templates = torch.randint(40, V, (16, 10), generator=g)
def make(n):
    topic = torch.randint(0, 16, (n,), generator=g)
    prompt = torch.cat([topic[:, None] + 2, torch.randint(20, 40, (n, P - 1), generator=g)], 1)
    answer = torch.cat([templates[topic], torch.randint(40, V, (n, L - P - 10), generator=g)], 1)
    return torch.cat([prompt, answer], 1)
train, evals = make(240), make(80)

class TinyLM(nn.Module):
    def __init__(self, d=128):
        super().__init__()
        self.tok = nn.Embedding(V, d); self.pos = nn.Embedding(L, d)
        layer = nn.TransformerEncoderLayer(d, 4, 4 * d, dropout=0.0, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, 3)
        self.ln = nn.LayerNorm(d); self.head = nn.Linear(d, V)
    def forward(self, x):
        T = x.shape[1]
        mask = torch.triu(torch.full((T, T), float('-inf')), 1)
        h = self.tok(x) + self.pos(torch.arange(T))
        return self.head(self.ln(self.blocks(h, mask=mask)))

def lm_loss(model, x):
    logits = model(x[:, :-1]); tgt = x[:, 1:].clone()
    tgt[:, :P - 1] = -100                       # prompt tokens are not trained on
    return F.cross_entropy(logits.reshape(-1, V), tgt.reshape(-1), ignore_index=-100)

model = TinyLM()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.0)
bs, epochs = 8, 4
steps_per_epoch = len(train) // bs; total = steps_per_epoch * epochs
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: (s + 1) / 10 if s < 10 else
                                          0.5 * (1 + math.cos(math.pi * (s - 10) / (total - 10))))
print('***** Running training *****')
print('  Num examples = %d\n  Num Epochs = %d\n  Instantaneous batch size per device = %d\n  Total optimization steps = %d'
      % (len(train), epochs, bs, total))
step = 0; window = []
for ep in range(epochs):
    perm = torch.randperm(len(train))
    for i in range(steps_per_epoch):
        model.train()
        loss = lm_loss(model, train[perm[i * bs:(i + 1) * bs]])
        opt.zero_grad(); loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step(); sched.step(); step += 1; window.append(loss.item())
        if step % 5 == 0:
            print("{'loss': %.4f, 'learning_rate': %.4e, 'epoch': %.2f}" % (
                sum(window) / len(window), sched.get_last_lr()[0], step / steps_per_epoch))
            window = []
        if step % 30 == 0 or step == total:
            model.eval()
            with torch.no_grad():
                el = lm_loss(model, evals).item()
            print("{'eval_loss': %.4f, 'eval_runtime': 0.05, 'epoch': %.2f}" % (el, step / steps_per_epoch))
with torch.no_grad():
    print("***** train metrics *****\n  train_loss = %.4f\n  eval_loss = %.4f" % (lm_loss(model, train).item(), lm_loss(model, evals).item()))
