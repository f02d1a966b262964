# young-geng/EasyLM issue "Unusual Initializer Range default" (114) in miniature, ported from JAX/Flax to PyTorch:
# EasyLM/models/llama/llama_model.py before commit fe5b2c35 ("Fixed initialization range bug"), where the standard
# LLaMA config sets initializer_range = 1.0 and every kernel is created with
# jax.nn.initializers.normal(self.config.initializer_range): the token embedding (wte), wq / wk / wv / wo of each
# attention block, w1 / w2 / w3 of each SwiGLU MLP and the lm_head, so every weight starts as N(0, 1.0).
# Kept from the repository: the LLaMA block (RMSNorm eps 1e-6 before attention and MLP, rotary position embedding,
# causal attention, SwiGLU MLP, no biases, final RMSNorm, untied lm_head), the optimizer of EasyLM/optimizers.py
# (optax.clip_by_global_norm(1.0) followed by AdamW with b1 0.9, b2 0.95, weight_decay 1e-4 and a
# warmup_cosine_decay_schedule from init_lr 0.0 to lr and down to end_lr), cross_entropy_loss_and_accuracy of
# jax_utils.py, and llama_train.py's log: every log_freq steps a pprint of the metrics dict (accuracy,
# gradient_norm, learning_rate, loss, param_norm, step), plus an eval pass on held-out sequences.
# Scaled / chosen here: 2 layers, hidden 64, 4 heads, intermediate 172, vocabulary 64, sequences of 64 tokens from
# a synthetic first-order Markov "language" (each token has a few likely successors), batch 16, total_steps 800,
# lr 3e-3 with lr_warmup_steps 80 and lr_decay_steps 800, end_lr 3e-5, log_freq 50. metrics.csv has the loss,
# accuracy, gradient norm and learning rate of every step and the eval loss at every log step.
import csv
import math
import pprint

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(42)
torch.set_num_threads(1)

VOCAB = 64
SEQ = 64
BATCH = 16


# ---------------------------------------------------------------- synthetic Markov-chain "text"
def make_language(seed=7):
    g = torch.Generator().manual_seed(seed)
    trans = torch.full((VOCAB, VOCAB), 1e-3)
    for a in range(VOCAB):
        succ = torch.randperm(VOCAB, generator=g)[:4]
        w = torch.tensor([0.55, 0.25, 0.12, 0.08])
        trans[a, succ] += w
    trans = trans / trans.sum(1, keepdim=True)
    return trans


TRANS = make_language()


def sample_batch(n, g):
    x = torch.empty(n, SEQ + 1, dtype=torch.long)
    x[:, 0] = torch.randint(0, VOCAB, (n,), generator=g)
    for t in range(1, SEQ + 1):
        x[:, t] = torch.multinomial(TRANS[x[:, t - 1]], 1, generator=g).squeeze(1)
    return x


# entropy rate of the chain (the lowest achievable loss)
stat = torch.ones(VOCAB) / VOCAB
for _ in range(200):
    stat = stat @ TRANS
ENTROPY = float(-(stat[:, None] * TRANS * TRANS.log()).sum())

data_g = torch.Generator().manual_seed(1)
EVAL = sample_batch(64, torch.Generator().manual_seed(2))


# ---------------------------------------------------------------- LLaMA model (EasyLM layout)
class Config:
    vocab_size = VOCAB
    hidden_size = 64
    intermediate_size = 172
    num_hidden_layers = 2
    num_attention_heads = 4
    max_sequence_length = SEQ
    rms_norm_eps = 1e-6
    initializer_range = 1.0  # LLaMAConfigurator.get_standard_llama_config: config.initializer_range = 1.0


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))  # nn.initializers.ones

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def dense(fan_in, fan_out, cfg):
    lin = nn.Linear(fan_in, fan_out, bias=False)  # use_bias=False
    nn.init.normal_(lin.weight, 0.0, cfg.initializer_range)  # kernel_init=normal(initializer_range)
    return lin


def rope(x, cos, sin):
    x1, x2 = x[..., 0::2], x[..., 1::2]
    out = torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), dim=-1)
    return out.flatten(-2)


class Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d = cfg.hidden_size
        self.h = cfg.num_attention_heads
        self.hd = d // self.h
        self.wq = dense(d, d, cfg)
        self.wk = dense(d, d, cfg)
        self.wv = dense(d, d, cfg)
        self.wo = dense(d, d, cfg)
        freqs = 1.0 / (10000.0 ** (torch.arange(0, self.hd, 2).float() / self.hd))
        t = torch.arange(cfg.max_sequence_length).float()
        ang = torch.outer(t, freqs)
        self.register_buffer('cos', ang.cos()[None, :, None, :], persistent=False)
        self.register_buffer('sin', ang.sin()[None, :, None, :], persistent=False)

    def forward(self, x):
        b, s, d = x.shape
        q = self.wq(x).view(b, s, self.h, self.hd)
        k = self.wk(x).view(b, s, self.h, self.hd)
        v = self.wv(x).view(b, s, self.h, self.hd)
        q = rope(q, self.cos[:, :s], self.sin[:, :s])
        k = rope(k, self.cos[:, :s], self.sin[:, :s])
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-1, -2)) / math.sqrt(self.hd)
        mask = torch.ones(s, s, dtype=torch.bool, device=x.device).tril()
        att = att.masked_fill(~mask, float('-inf')).softmax(-1)
        out = (att @ v).transpose(1, 2).reshape(b, s, d)
        return self.wo(out)


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.w1 = dense(cfg.hidden_size, cfg.intermediate_size, cfg)
        self.w2 = dense(cfg.intermediate_size, cfg.hidden_size, cfg)
        self.w3 = dense(cfg.hidden_size, cfg.intermediate_size, cfg)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.attention_norm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)
        self.attention = Attention(cfg)
        self.ffn_norm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)
        self.feed_forward = MLP(cfg)

    def forward(self, x):
        x = x + self.attention(self.attention_norm(x))
        return x + self.feed_forward(self.ffn_norm(x))


class LLaMAForCausalLM(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.wte = nn.Embedding(cfg.vocab_size, cfg.hidden_size)
        nn.init.normal_(self.wte.weight, 0.0, cfg.initializer_range)  # embedding_init=normal(initializer_range)
        self.h = nn.ModuleList([Block(cfg) for _ in range(cfg.num_hidden_layers)])
        self.ln_f = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)
        self.lm_head = dense(cfg.hidden_size, cfg.vocab_size, cfg)

    def forward(self, tokens):
        x = self.wte(tokens)
        for blk in self.h:
            x = blk(x)
        return self.lm_head(self.ln_f(x))


def cross_entropy_loss_and_accuracy(logits, tokens):
    logp = F.log_softmax(logits.float(), -1)
    tok_lp = logp.gather(-1, tokens.unsqueeze(-1)).squeeze(-1)
    loss = -tok_lp.mean(-1).mean()
    acc = (logits.argmax(-1) == tokens).float().mean(-1).mean()
    return loss, acc


# ---------------------------------------------------------------- optimizer (EasyLM AdamWOptimizerFactory)
class OptCfg:
    init_lr = 0.0
    end_lr = 3e-5
    lr = 3e-3
    lr_warmup_steps = 80
    lr_decay_steps = 800
    b1 = 0.9
    b2 = 0.95
    clip_gradient = 1.0
    weight_decay = 1e-4


def warmup_cosine_decay_schedule(step, c):
    # optax.warmup_cosine_decay_schedule
    if step < c.lr_warmup_steps:
        return c.init_lr + (c.lr - c.init_lr) * step / c.lr_warmup_steps
    frac = min(step - c.lr_warmup_steps, c.lr_decay_steps - c.lr_warmup_steps) / (c.lr_decay_steps - c.lr_warmup_steps)
    return c.end_lr + (c.lr - c.end_lr) * 0.5 * (1 + math.cos(math.pi * frac))


total_steps = 800
log_freq = 50
cfg = Config()
model = LLaMAForCausalLM(cfg)
n_params = sum(p.numel() for p in model.parameters())
print('LLaMA config: hidden_size=%d intermediate_size=%d num_hidden_layers=%d num_attention_heads=%d '
      'vocab_size=%d initializer_range=%.2f (%d parameters)' % (
          cfg.hidden_size, cfg.intermediate_size, cfg.num_hidden_layers, cfg.num_attention_heads,
          cfg.vocab_size, cfg.initializer_range, n_params))
print('entropy rate of the training text: %.4f nats/token (uniform: %.4f)' % (ENTROPY, math.log(VOCAB)))
oc = OptCfg()
opt = torch.optim.AdamW(model.parameters(), lr=oc.init_lr, betas=(oc.b1, oc.b2), eps=1e-8,
                        weight_decay=oc.weight_decay)

f = open('metrics.csv', 'w', newline='')
w = csv.writer(f)
w.writerow(['step', 'loss', 'accuracy', 'gradient_norm', 'learning_rate', 'param_norm', 'eval_loss', 'eval_accuracy'])

for step in range(total_steps):
    lr = warmup_cosine_decay_schedule(step, oc)
    for gp in opt.param_groups:
        gp['lr'] = lr
    batch = sample_batch(BATCH, data_g)
    inp, tgt = batch[:, :-1], batch[:, 1:]
    model.train()
    logits = model(inp)
    loss, acc = cross_entropy_loss_and_accuracy(logits, tgt)
    opt.zero_grad()
    loss.backward()
    gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), oc.clip_gradient)
    opt.step()
    pnorm = float(torch.sqrt(sum((p.detach() ** 2).sum() for p in model.parameters())))
    row = [step, float(loss.detach()), float(acc), float(gnorm), lr, pnorm, '', '']
    if step % log_freq == 0 or step == total_steps - 1:
        model.eval()
        with torch.no_grad():
            el, ea = cross_entropy_loss_and_accuracy(model(EVAL[:, :-1]), EVAL[:, 1:])
        row[6], row[7] = float(el), float(ea)
        log_metrics = {'step': step, 'loss': round(float(loss.detach()), 4), 'accuracy': round(float(acc), 4),
                       'gradient_norm': round(float(gnorm), 4), 'learning_rate': float('%.6g' % lr),
                       'param_norm': round(pnorm, 2), 'eval_loss': round(float(el), 4),
                       'eval_accuracy': round(float(ea), 4)}
        print('\n' + pprint.pformat(log_metrics) + '\n', flush=True)
    w.writerow(row)
f.close()
print('done: final eval loss %.4f (entropy rate %.4f)' % (row[6], ENTROPY))
