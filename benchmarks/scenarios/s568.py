# facebookresearch/ParlAI, TorchAgent.build_lr_scheduler in parlai/core/torch_agent.py before pull request 1812
# (parent commit 5e5776e9): with --warmup-updates > 0 the warmup scheduler, a LambdaLR whose factor rises linearly
# from --warmup-rate (default 1e-4) to 1.0, is created on every start, also when a run resumes from a checkpoint that
# is far past its warmup. Creating a LambdaLR sets the learning rate to initial_lr * factor(0), i.e. multiplies it by
# 1e-4; the warmup scheduler is only stepped while number_training_updates <= warmup_updates, so after a resume it is
# never stepped again, loading its state dict does not touch the learning rate, and --lr-scheduler reduceonplateau can
# only lower it further. The pull request's test in miniature: a transformer/ranker (n_layers 1, n_heads 1,
# ffn_size 32, embedding_size 32) with optimizer adamax, learningrate 7e-3, batchsize 32 and
# lr_scheduler reduceonplateau (patience 3, decay 0.5), trained on a candidate task, then started again from its
# model file; the second start uses the buggy build_lr_scheduler. Written as one script in plain PyTorch: run 1
# trains 3 epochs and saves ./model.checkpoint (model, optimizer, number_training_updates, lr_scheduler,
# warmup_scheduler, lr_scheduler_type), run 2 loads it and trains 5 more epochs; ParlAI's report lines (train every
# 40 updates, valid after each epoch with the impatience line). Scaled: warmup_updates 100 instead of 1; the task is
# synthetic (each of the label's 6 tokens is a fixed function of two neighbouring context tokens, vocabulary 100,
# 3000 training and 500 validation
# examples), trained with in-batch negatives and evaluated by ranking the label among 100 candidates. metrics.csv has
# the loss and learning rate of every update and the validation results.
import csv
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim

torch.manual_seed(0)
torch.set_num_threads(1)

opt = dict(model='transformer/ranker', optimizer='adamax', learningrate=7e-3, batchsize=32, n_layers=1,
           n_heads=1, ffn_size=32, embedding_size=32, warmup_updates=100, warmup_rate=1e-4,
           lr_scheduler='reduceonplateau', lr_scheduler_patience=3, lr_scheduler_decay=0.5,
           model_file='./model')
VOCAB, LEN = 100, 6
g = torch.Generator().manual_seed(7)
train_x = torch.randint(2, VOCAB, (3000, LEN), generator=g)
valid_x = torch.randint(2, VOCAB, (500, LEN), generator=g)
valid_cands = torch.randint(2, VOCAB, (500, 99, LEN), generator=g)


def label_of(x):
    # the label's token i combines the context's tokens i and i + 1
    return (x * 7 + x.roll(-1, 1)) % (VOCAB - 2) + 2


class Encoder(nn.Module):
    def __init__(self, emb):
        super().__init__()
        self.emb = emb
        self.pos = nn.Parameter(torch.randn(LEN, opt['embedding_size']) * 0.1)
        layer = nn.TransformerEncoderLayer(opt['embedding_size'], opt['n_heads'], opt['ffn_size'], dropout=0.0,
                                           batch_first=True)
        self.layers = nn.TransformerEncoder(layer, opt['n_layers'], enable_nested_tensor=False)

    def forward(self, x):
        return self.layers(self.emb(x) + self.pos).mean(1)


class TransformerMemNet(nn.Module):
    def __init__(self):
        super().__init__()
        emb = nn.Embedding(VOCAB, opt['embedding_size'])
        self.context_encoder = Encoder(emb)
        self.cand_encoder = Encoder(emb)

    def forward(self, xs, cands):
        return self.context_encoder(xs) @ self.cand_encoder(cands).t()


class TorchRankerAgent:
    def __init__(self, states=None):
        self.model = TransformerMemNet()
        self._number_training_updates = 0
        self.optimizer = optim.Adamax(self.model.parameters(), lr=opt['learningrate'])
        if states is not None:
            print('[ Loading existing model params from {} ]'.format(opt['model_file']))
            self.model.load_state_dict(states['model'])
            self.optimizer.load_state_dict(states['optimizer'])
        self.build_lr_scheduler(states)

    def build_lr_scheduler(self, states=None, hard_reset=False):
        optimizer = self.optimizer
        if opt.get('warmup_updates', -1) > 0:

            def _warmup_lr(step):
                start = opt['warmup_rate']
                end = 1.0
                progress = min(1.0, step / opt['warmup_updates'])
                lr_mult = start + (end - start) * progress
                return lr_mult

            self.warmup_scheduler = optim.lr_scheduler.LambdaLR(optimizer, _warmup_lr)
        else:
            self.warmup_scheduler = None
        self.scheduler = optim.lr_scheduler.ReduceLROnPlateau(
            optimizer, 'min', factor=opt['lr_scheduler_decay'], patience=opt['lr_scheduler_patience'])
        if states is None:
            states = {}
        if states and states.get('lr_scheduler_type') != opt['lr_scheduler'] and not hard_reset:
            print('LR scheduler is different from saved. Starting fresh!')
            hard_reset = True
        if hard_reset:
            return
        if 'number_training_updates' in states:
            self._number_training_updates = states['number_training_updates']
        if self.scheduler and 'lr_scheduler' in states:
            self.scheduler.load_state_dict(states['lr_scheduler'])
        if states.get('warmup_scheduler') and getattr(self, 'warmup_scheduler', None):
            self.warmup_scheduler.load_state_dict(states['warmup_scheduler'])

    def _is_lr_warming_up(self):
        return self.warmup_scheduler is not None and self._number_training_updates <= opt['warmup_updates']

    def receive_metrics(self, metrics_dict):
        if self._is_lr_warming_up():
            return
        self.scheduler.step(metrics_dict['loss'])

    def lr(self):
        return self.optimizer.param_groups[0]['lr']

    def train_step(self, xs):
        self.model.train()
        self.optimizer.zero_grad()
        scores = self.model(xs, label_of(xs))
        loss = F.cross_entropy(scores, torch.arange(len(xs)))
        loss.backward()
        self._number_training_updates += 1
        if self._is_lr_warming_up():
            self.warmup_scheduler.step()
        self.optimizer.step()
        return loss.item(), (scores.argmax(1) == torch.arange(len(xs))).float().mean().item()

    def eval(self):
        self.model.eval()
        with torch.no_grad():
            ctx = self.model.context_encoder(valid_x)
            cands = torch.cat([label_of(valid_x).unsqueeze(1), valid_cands], 1)
            cand_enc = self.model.cand_encoder(cands.view(-1, LEN)).view(500, 100, -1)
            scores = (ctx.unsqueeze(1) * cand_enc).sum(-1)
            loss = F.cross_entropy(scores, torch.zeros(500, dtype=torch.long)).item()
            rank = (scores > scores[:, :1]).sum(1).float() + 1
        return {'exs': 500, 'loss': loss, 'mean_rank': rank.mean().item(), 'hits@1': (rank == 1).float().mean().item()}

    def save(self):
        torch.save({'model': self.model.state_dict(), 'optimizer': self.optimizer.state_dict(),
                    'number_training_updates': self._number_training_updates,
                    'lr_scheduler': self.scheduler.state_dict(),
                    'warmup_scheduler': self.warmup_scheduler.state_dict() if self.warmup_scheduler else None,
                    'lr_scheduler_type': opt['lr_scheduler'], 'best_valid': self.best_valid},
                   opt['model_file'] + '.checkpoint')


out_f = open('metrics.csv', 'w', newline='')
wr = csv.writer(out_f)
wr.writerow(['run', 'epoch', 'num_updates', 'lr', 'loss', 'valid_loss', 'valid_hits@1', 'valid_mean_rank'])
t0 = time.time()


def train_model(agent, run, start_epoch, num_epochs, best=float('inf')):
    impatience = 0
    exs = 0
    for epoch in range(start_epoch, start_epoch + num_epochs):
        perm = torch.randperm(len(train_x))
        acc_loss, acc_hit, n = 0.0, 0.0, 0
        for i in range(0, len(perm) - opt['batchsize'] + 1, opt['batchsize']):
            loss, hit = agent.train_step(train_x[perm[i:i + opt['batchsize']]])
            exs += opt['batchsize']
            acc_loss += loss; acc_hit += hit; n += 1
            wr.writerow([run, epoch, agent._number_training_updates, '%.3g' % agent.lr(), round(loss, 5), '', '', ''])
            if agent._number_training_updates % 40 == 0:
                print("[ time:{:.0f}s total_exs:{} epochs:{:.2f} ] {{'exs': {}, 'lr': {:.4g}, 'num_updates': {}, "
                      "'loss': {:.4f}, 'hits@1': {:.3f}}}".format(time.time() - t0, exs, epoch + i / len(perm),
                                                                   n * opt['batchsize'], agent.lr(),
                                                                   agent._number_training_updates,
                                                                   acc_loss / n, acc_hit / n), flush=True)
                acc_loss, acc_hit, n = 0.0, 0.0, 0
        print('[ running eval: valid ]')
        v = agent.eval()
        v['lr'] = agent.lr()
        v['num_updates'] = agent._number_training_updates
        print("valid:{{'exs': 500, 'hits@1': {:.3f}, 'loss': {:.4f}, 'lr': {:.4g}, 'mean_rank': {:.2f}, "
              "'num_updates': {}}}".format(v['hits@1'], v['loss'], v['lr'], v['mean_rank'], v['num_updates']))
        wr.writerow([run, epoch, agent._number_training_updates, '%.3g' % agent.lr(), '', round(v['loss'], 5),
                     round(v['hits@1'], 4), round(v['mean_rank'], 3)])
        out_f.flush()
        agent.receive_metrics(v)
        if v['loss'] < best:
            print('[ new best loss: {:.4f} (previous best was {:.4g}) ]'.format(v['loss'], best))
            best = v['loss']
            impatience = 0
            agent.best_valid = best
            agent.save()
        else:
            impatience += 1
            print('[ did not beat best loss: {:.4f} impatience: {} ]'.format(best, impatience))


print('[ run 1: training from scratch, model_file {} ]'.format(opt['model_file']))
agent = TorchRankerAgent()
train_model(agent, 1, 0, 3)
print('[ run 1 finished; starting again from {} ]'.format(opt['model_file'] + '.checkpoint'))
states = torch.load(opt['model_file'] + '.checkpoint', weights_only=False)
agent = TorchRankerAgent(states)
print('[ resumed at num_updates {}, lr {:.4g} ]'.format(agent._number_training_updates, agent.lr()))
train_model(agent, 2, 3, 5, best=states['best_valid'])
out_f.close()
