import torch
import torch.nn as nn
import torch.nn.functional as F


class Opt:
    num_epochs = 20; freeze_teacher_epoch = 15


class Trainer:
    def __init__(self, opt):
        self.opt = opt
        self.models = {'student': nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1)),
                       'teacher': nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))}
        self.train_teacher = True
        params = []
        for m in self.models.values():
            params += list(m.parameters())
        self.optimizer = torch.optim.Adam(params, 1e-3)

    def freeze_teacher(self):
        if self.train_teacher:
            self.train_teacher = False
            params = []
            for k in ['student']:
                params += list(self.models[k].parameters())
            self.optimizer = torch.optim.Adam(params, 1e-3)
            for k in ['teacher']:
                self.models[k].eval()
                for p in self.models[k].parameters():
                    p.requires_grad = False

    def loss(self, x, y):
        t = self.models['teacher'](x)
        s = self.models['student'](x)
        loss = F.l1_loss(s, y) + 0.5 * F.l1_loss(s, t.detach())
        if self.train_teacher:
            loss = loss + F.l1_loss(t, y)
        return loss

    def run_epoch(self):
        x, y = torch.randn(64, 8), torch.randn(64, 1)
        for _ in range(10):
            loss = self.loss(x, y)
            self.optimizer.zero_grad()
            loss.backward()  # expect: graph_cut=False
            self.optimizer.step()

    def train(self):
        for self.epoch in range(self.opt.num_epochs):
            if self.epoch == self.opt.freeze_teacher_epoch:
                self.freeze_teacher()
            self.run_epoch()


if __name__ == '__main__':
    Trainer(Opt()).train()
