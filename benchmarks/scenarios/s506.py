# PaddlePaddle/Knover issue "`entropy_loss` 在训练过程中几乎不变，都是 -3.0 左右" in miniature, ported from
# PaddlePaddle to PyTorch: PLATO-2 style training with knover/models/plato.py's losses. A unified transformer
# (shared weights; bidirectional attention over context, causal attention over the response) is used twice:
# as the recognition network ([M] token + context + response -> posterior logits over latent_type_size = 20
# latent values, weight-tied to the latent embedding) and as the generation network (latent embedding +
# context -> response, token_lm_loss). The latent is sampled with gumbel_softmax(tau=0.67); use_bow=True adds
# the bag-of-words loss (token_bow_loss) and use_entropy=True adds entropy_loss = mean(sum(p * log p)) of the
# posterior to the loss, as in the poster's run. 2 layers, hidden 64, 4 heads instead of PLATO-2's 24/32
# layers; 6000 synthetic dialogues (context of 10 tokens, response of 8 tokens, vocabulary 120; each context
# has several plausible responses) instead of the Reddit / Twitter data; AdamW (weight decay 0.01) with a linear warm-up to 1e-3
# (noam-like) instead of 1e-5. train.py's log lines: "[train][epoch] progress: ... step: ..., time: ...,
# queue size: ..., speed: ... steps/s", "\tcurrent lr: ...", "\t<metrics>", and "[Evaluation][step] ...".
import json, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)

VOCAB, PAD, BOS, EOS, MASK = 120, 0, 1, 2, 3
CTX, RSP, LATENT = 10, 8, 20
rs = np.random.RandomState(0)
TOPICS = rs.randint(4, VOCAB, (12, 6))                    # each context comes from a topic
REPLIES = rs.randint(4, VOCAB, (12, 4, RSP - 1))          # 4 plausible reply templates per topic


def dialogue(r):
    t = r.randint(12)
    ctx = np.where(r.rand(CTX) < 0.7, r.choice(TOPICS[t], CTX), r.randint(4, VOCAB, CTX))
    rep = REPLIES[t, r.randint(4)].copy()
    noise = r.rand(RSP - 1) < 0.15
    rep[noise] = r.randint(4, VOCAB, noise.sum())
    return ctx, np.concatenate([rep, [EOS]])


def make(n, seed):
    r = np.random.RandomState(seed); c, s = zip(*[dialogue(r) for _ in range(n)])
    return torch.tensor(np.stack(c)), torch.tensor(np.stack(s))


Ctr, Rtr = make(6000, 1); Cva, Rva = make(600, 2)


class Plato(nn.Module):
    def __init__(self, d=64, heads=4, layers=2):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, d); self.pos = nn.Embedding(1 + CTX + RSP, d); self.typ = nn.Embedding(3, d)
        layer = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.1, batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, layers)
        self.ln = nn.LayerNorm(d)
        for e in (self.tok, self.pos, self.typ): nn.init.normal_(e.weight, std=0.02)
        self.latent_emb = nn.Parameter(torch.randn(d, LATENT) * 0.02)   # shared: recognition fc weight and latent embeddings
        self.recognition_bias = nn.Parameter(torch.zeros(LATENT))
        self.pool = nn.Linear(d, d)
        self.bow_trans = nn.Sequential(nn.Linear(d, d), nn.GELU(), nn.LayerNorm(d))
        self.bow_bias = nn.Parameter(torch.zeros(VOCAB)); self.lm_bias = nn.Parameter(torch.zeros(VOCAB))
        L = 1 + CTX + RSP
        gen = torch.zeros(L, L, dtype=torch.bool)                           # True = blocked
        gen[:1 + CTX, 1 + CTX:] = True                                      # context cannot see the response
        gen[1 + CTX:, 1 + CTX:] = torch.triu(torch.ones(RSP, RSP, dtype=torch.bool), 1)
        self.register_buffer('gen_mask', gen)

    def embed(self, first, ctx, rsp_in):
        B = ctx.shape[0]
        tok = torch.cat([first[:, None], self.tok(ctx), self.tok(rsp_in)], 1)
        typ = torch.cat([torch.zeros(B, 1 + CTX, dtype=torch.long), torch.ones(B, rsp_in.shape[1], dtype=torch.long)], 1)
        return tok + self.pos.weight[None, :tok.shape[1]] + self.typ(typ)

    def forward(self, ctx, rsp):
        B = ctx.shape[0]
        rsp_in = torch.cat([torch.full((B, 1), BOS), rsp[:, :-1]], 1)
        # recognition network: [M] + context + full response, bidirectional
        rec = self.ln(self.enc(self.embed(self.tok(torch.full((B,), MASK)), ctx, rsp)))
        logits = torch.tanh(self.pool(rec[:, 0])) @ self.latent_emb + self.recognition_bias
        post_probs = F.softmax(logits, -1)
        u = torch.rand_like(logits)
        weights = F.softmax((logits - torch.log(1e-10 - torch.log(u + 1e-10))) / 0.67, -1)   # gumbel_softmax
        latent = weights @ self.latent_emb.t()
        # generation network: latent + context (bidirectional) + response (causal)
        out = self.ln(self.enc(self.embed(latent, ctx, rsp_in), mask=self.gen_mask))
        lm_logits = out[:, 1 + CTX:] @ self.tok.weight.t() + self.lm_bias
        token_lm_loss = F.cross_entropy(lm_logits.reshape(-1, VOCAB), rsp.reshape(-1))
        bow_logits = self.bow_trans(out[:, :1]).expand(-1, RSP, -1) @ self.tok.weight.t() + self.bow_bias
        token_bow_loss = F.cross_entropy(bow_logits.reshape(-1, VOCAB), rsp.reshape(-1))
        entropy_loss = (post_probs * torch.log(post_probs)).sum(1).mean()
        loss = token_lm_loss + token_bow_loss + entropy_loss                # use_bow=True, use_entropy=True
        acc = (lm_logits.argmax(-1) == rsp).float().mean()
        return dict(token_lm_loss=token_lm_loss, token_lm_acc=acc, loss=loss, token_bow_loss=token_bow_loss,
                    entropy_loss=entropy_loss)


def show_args():
    args = dict(is_distributed=False, save_path='output', train_file='data/train.tsv', valid_file='data/valid.tsv',
                start_step=0, num_epochs=3, log_steps=25, validation_steps=150, eval_metric='-loss',
                model='Plato', vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                latent_type_size=LATENT, use_bow=True, use_entropy=True, batch_size=32, learning_rate=1e-3,
                warmup_steps=100, weight_decay=0.01, max_seq_len=1 + CTX + RSP)
    print('Training Arguments:\n' + json.dumps(args, indent=4))


def evaluate(model, step):
    print('=' * 80); print('Evaluation: valid')
    t0 = time.time(); model.eval(); agg = {}
    with torch.no_grad():
        for i in range(0, len(Cva), 100):
            m = model(Cva[i:i + 100], Rva[i:i + 100])
            for k, v in m.items(): agg[k] = agg.get(k, 0.0) + v.item() * len(Cva[i:i + 100])
    model.train()
    metrics = {k: v / len(Cva) for k, v in agg.items()}
    print(f'[Evaluation][{step}] ' + ', '.join(f'{k}: {v:.4f}' for k, v in metrics.items()))
    print(f'\ttime cost: {time.time() - t0:.3f}'); print('=' * 80)
    return metrics


if __name__ == '__main__':
    show_args()
    model = Plato(); model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    warmup, bs, epochs, log_steps, validation_steps = 100, 32, 3, 25, 150
    steps_per_epoch = len(Ctr) // bs
    out = open('metrics.jsonl', 'w')
    print('Training is start.')
    step, best, t0 = 0, 1e10, time.time(); acc = {}
    for epoch in range(epochs):
        perm = torch.randperm(len(Ctr))
        for b in range(steps_per_epoch):
            step += 1
            lr = 1e-3 * min(1.0, step / warmup)
            for g in opt.param_groups: g['lr'] = lr
            idx = perm[b * bs:(b + 1) * bs]
            m = model(Ctr[idx], Rtr[idx])
            opt.zero_grad(); m['loss'].backward(); opt.step()
            for k, v in m.items(): acc[k] = acc.get(k, 0.0) + v.item()
            if step % log_steps == 0:
                dt = time.time() - t0
                metrics = {k: v / log_steps for k, v in acc.items()}; acc = {}
                print(f'[train][{epoch}] progress: {b + 1}/{steps_per_epoch} step: {step}, time: {dt:.3f}, '
                      f'queue size: 64, speed: {log_steps / dt:.3f} steps/s')
                print(f'\tcurrent lr: {lr:.7f}')
                print('\t' + ', '.join(f'{k}: {v:.4f}' for k, v in metrics.items()))
                out.write(json.dumps(dict(step=step, epoch=epoch, split='train', lr=lr, **{k: round(v, 5) for k, v in metrics.items()})) + '\n')
                t0 = time.time()
            if step % validation_steps == 0:
                vm = evaluate(model, step)
                out.write(json.dumps(dict(step=step, epoch=epoch, split='valid', **{k: round(v, 5) for k, v in vm.items()})) + '\n')
                print('Saving model into output/lastest.'); print('Model has saved into output/lastest.')
                if vm['loss'] < best:
                    best = vm['loss']; print(f'Get better valid metric: loss = {vm["loss"]}')
                    print('Saving model into output/best.'); print('Model has saved into output/best.')
                t0 = time.time()
            out.flush()
    print('Training is completed.')
