# DeepSpeed-Chat step-2 style reward model in miniature: a 2-layer transformer encoder (d_model 64) standing in
# for the pretrained LM, whose last hidden states have a large norm (x12, as the unnormalised residual stream of
# a pretrained decoder), with a per-token value head that scores chosen/rejected responses that share an 8-token prompt; synthetic preference
# pairs (vocab 50, length 24) where the chosen answer has more "helpful" tokens, 15% of pairs labelled the
# other way round (annotator noise). The pairwise loss is computed as in the original step-2 code, token by
# token over the divergent span,  -torch.log(torch.sigmoid(c_truncated_reward - r_truncated_reward)).mean(),
# with the value head output in fp16 (as under DeepSpeed fp16), Adam 1e-3, batch 16, 400 steps, no loss
# scaler / skip logic. Writes metrics.jsonl and prints every 20 steps.
import json
import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(300)

V, P, R = 50, 8, 16
GOOD, BAD = torch.arange(0, 10), torch.arange(40, 50)


def response(q):
    r = torch.randint(10, 40, (R,), generator=g)
    n = int(torch.randint(2, 8, (1,), generator=g))
    pos = torch.randperm(R, generator=g)[:n]
    src = GOOD if q else BAD
    r[pos] = src[torch.randint(0, 10, (n,), generator=g)]
    return r


def make(n, noise):
    prompts = torch.randint(10, 40, (n, P), generator=g)
    ch, rj = [], []
    for i in range(n):
        a, b = response(1), response(0)
        if torch.rand(1, generator=g) < noise:
            a, b = b, a
        ch.append(torch.cat([prompts[i], a])); rj.append(torch.cat([prompts[i], b]))
    return torch.stack(ch), torch.stack(rj)


tr_c, tr_r = make(2000, 0.15)
va_c, va_r = make(300, 0.0)


class RewardModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, 64)
        self.pos = nn.Parameter(torch.randn(P + R, 64) * 0.02)
        layer = nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True)
        self.rwtransformer = nn.TransformerEncoder(layer, 2)
        self.v_head = nn.Linear(64, 1, bias=False)

    def forward(self, ids):
        h = self.rwtransformer(self.emb(ids) + self.pos)
        return self.v_head(h * 12.0).squeeze(-1).half()     # fp16 rewards, one per token


def pair_loss(cr, rr, c_ids, r_ids):
    loss, acc, mins = 0.0, 0.0, []
    for i in range(len(cr)):
        div = int((c_ids[i] != r_ids[i]).nonzero()[0])
        c_trunc, r_trunc = cr[i, div:], rr[i, div:]
        d = c_trunc - r_trunc
        loss = loss + -torch.log(torch.sigmoid(d)).mean()
        acc += float(cr[i, -1] > rr[i, -1])
        mins.append(d.detach().float().min())
    return loss / len(cr), acc / len(cr), float(torch.stack(mins).min())


model = RewardModel()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
out = open('metrics.jsonl', 'w')
for step in range(1, 401):
    model.train()
    idx = torch.randint(0, len(tr_c), (16,), generator=g)
    cr, rr = model(tr_c[idx]), model(tr_r[idx])
    loss, acc, mind = pair_loss(cr, rr, tr_c[idx], tr_r[idx])
    opt.zero_grad()
    loss.float().backward()
    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), float('inf')).item()
    opt.step()
    if step % 10 == 0 or step <= 5:
        model.eval()
        with torch.no_grad():
            vc, vr = model(va_c), model(va_r)
            vloss, vacc, _ = pair_loss(vc, vr, va_c, va_r)
            mean_c = float(vc[:, -1].float().mean())
            mean_r = float(vr[:, -1].float().mean())
        rec = dict(step=step, loss=float(loss.detach()), grad_norm=gn, train_acc=acc, min_token_diff=mind,
                   val_loss=float(vloss), val_acc=vacc, chosen_reward=mean_c, rejected_reward=mean_r)
        out.write(json.dumps(rec) + '\n')
        print(f'step {step:4d} | loss {float(loss):.4f} | grad_norm {gn:.3f} | min token reward diff {mind:.2f} | '
              f'eval acc {vacc:.3f} | chosen {mean_c:.3f} rejected {mean_r:.3f}')
out.close()
