# dragen1860/MAML-Pytorch omniglot_train.py in miniature: the Meta learner of meta.py (first-order inner
# loop with torch.autograd.grad and fast weights, update_step 5 with update_lr 0.4, query losses of the
# last inner step averaged over tasks, Adam meta_lr 1e-3), a functional Learner for the repository's
# config (conv2d 3x3 stride 2 - relu - bn, three times, conv2d 2x2 - relu - bn, flatten, linear n_way;
# 32 filters instead of 64), 5-way 1-shot with 15 query images, task_num 8 instead of 32, and the
# OmniglotNShot episode cache, whose label arrays are made with .astype(np.int): on the reporter's
# Windows machine (numpy 1.x) np.int is a 32-bit integer, reproduced here with np.int32.
# 1623 synthetic 28 x 28 "characters" (20 noisy drawings each of a random stroke pattern) replace
# Omniglot. Output lines as in omniglot_train.py.
import argparse
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

class Learner(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config; self.vars = nn.ParameterList(); self.vars_bn = []
        for name, param in config:
            if name == 'conv2d':
                w = nn.Parameter(torch.ones(*param[:4])); nn.init.kaiming_normal_(w)
                self.vars.append(w); self.vars.append(nn.Parameter(torch.zeros(param[0])))
            elif name == 'linear':
                w = nn.Parameter(torch.ones(*param)); nn.init.kaiming_normal_(w)
                self.vars.append(w); self.vars.append(nn.Parameter(torch.zeros(param[0])))
            elif name == 'bn':
                self.vars.append(nn.Parameter(torch.ones(param[0]))); self.vars.append(nn.Parameter(torch.zeros(param[0])))
                rm, rv = torch.zeros(param[0]), torch.ones(param[0])
                self.vars_bn.extend([rm, rv])
    def parameters(self):
        return self.vars
    def extra_repr(self):
        return ', '.join('%s:%s' % (n, tuple(p)) for n, p in self.config)
    def forward(self, x, vars=None, bn_training=True):
        if vars is None: vars = self.vars
        idx = bn_idx = 0
        for name, param in self.config:
            if name == 'conv2d':
                x = F.conv2d(x, vars[idx], vars[idx + 1], stride=param[4], padding=param[5]); idx += 2
            elif name == 'linear':
                x = F.linear(x, vars[idx], vars[idx + 1]); idx += 2
            elif name == 'bn':
                x = F.batch_norm(x, self.vars_bn[bn_idx], self.vars_bn[bn_idx + 1], weight=vars[idx], bias=vars[idx + 1],
                                 training=bn_training); idx += 2; bn_idx += 2
            elif name == 'flatten':
                x = x.view(x.size(0), -1)
            elif name == 'relu':
                x = F.relu(x)
        return x

class Meta(nn.Module):
    def __init__(self, args, config):
        super().__init__()
        self.update_lr, self.meta_lr, self.n_way = args.update_lr, args.meta_lr, args.n_way
        self.update_step, self.update_step_test = args.update_step, args.update_step_test
        self.net = Learner(config)
        self.meta_optim = torch.optim.Adam(self.net.parameters(), lr=self.meta_lr)
    def forward(self, x_spt, y_spt, x_qry, y_qry):
        task_num, setsz, c_, h, w = x_spt.size(); querysz = x_qry.size(1)
        losses_q = [0 for _ in range(self.update_step + 1)]; corrects = [0 for _ in range(self.update_step + 1)]
        for i in range(task_num):
            logits = self.net(x_spt[i], vars=None, bn_training=True)
            loss = F.cross_entropy(logits, y_spt[i])
            grad = torch.autograd.grad(loss, self.net.parameters())
            fast_weights = list(map(lambda p: p[1] - self.update_lr * p[0], zip(grad, self.net.parameters())))
            with torch.no_grad():
                logits_q = self.net(x_qry[i], self.net.parameters(), bn_training=True)
                losses_q[0] += F.cross_entropy(logits_q, y_qry[i])
                corrects[0] += torch.eq(F.softmax(logits_q, dim=1).argmax(dim=1), y_qry[i]).sum().item()
            with torch.no_grad():
                logits_q = self.net(x_qry[i], fast_weights, bn_training=True)
                losses_q[1] += F.cross_entropy(logits_q, y_qry[i])
                corrects[1] += torch.eq(F.softmax(logits_q, dim=1).argmax(dim=1), y_qry[i]).sum().item()
            for k in range(1, self.update_step):
                logits = self.net(x_spt[i], fast_weights, bn_training=True)
                loss = F.cross_entropy(logits, y_spt[i])
                grad = torch.autograd.grad(loss, fast_weights)
                fast_weights = list(map(lambda p: p[1] - self.update_lr * p[0], zip(grad, fast_weights)))
                logits_q = self.net(x_qry[i], fast_weights, bn_training=True)
                loss_q = F.cross_entropy(logits_q, y_qry[i])
                losses_q[k + 1] += loss_q
                with torch.no_grad():
                    corrects[k + 1] += torch.eq(F.softmax(logits_q, dim=1).argmax(dim=1), y_qry[i]).sum().item()
        loss_q = losses_q[-1] / task_num
        self.meta_optim.zero_grad(); loss_q.backward(); self.meta_optim.step()
        return np.array(corrects) / (querysz * task_num)

class OmniglotNShot:
    def __init__(self, batchsz, n_way, k_shot, k_query, imgsz):
        rs = np.random.RandomState(0)
        strokes = (rs.rand(1623, 7, 7) > 0.6).astype(np.float32)
        base = np.kron(strokes, np.ones((4, 4), np.float32))[:, None]                     # [1623, 1, 28, 28]
        self.x = np.clip(base[:, None] + 0.3 * rs.randn(1623, 20, 1, imgsz, imgsz), 0, 1).astype(np.float32)
        print('load from omniglot.npy.')
        self.x_train, self.x_test = self.x[:1200], self.x[1200:]
        self.batchsz, self.n_way, self.k_shot, self.k_query, self.resize = batchsz, n_way, k_shot, k_query, imgsz
        self.rs = rs
        print("DB: train", self.x_train.shape, "test", self.x_test.shape)
    def next(self, mode='train'):
        data_pack = self.x_train if mode == 'train' else self.x_test
        setsz, querysz = self.k_shot * self.n_way, self.k_query * self.n_way
        x_spts, y_spts, x_qrys, y_qrys = [], [], [], []
        for i in range(self.batchsz):
            x_spt, y_spt, x_qry, y_qry = [], [], [], []
            for j, cur_class in enumerate(self.rs.choice(data_pack.shape[0], self.n_way, False)):
                selected_img = self.rs.choice(20, self.k_shot + self.k_query, False)
                x_spt.append(data_pack[cur_class][selected_img[:self.k_shot]]); x_qry.append(data_pack[cur_class][selected_img[self.k_shot:]])
                y_spt.append([j for _ in range(self.k_shot)]); y_qry.append([j for _ in range(self.k_query)])
            perm = self.rs.permutation(setsz)
            x_spts.append(np.array(x_spt).reshape(setsz, 1, self.resize, self.resize)[perm]); y_spts.append(np.array(y_spt).reshape(setsz)[perm])
            perm = self.rs.permutation(querysz)
            x_qrys.append(np.array(x_qry).reshape(querysz, 1, self.resize, self.resize)[perm]); y_qrys.append(np.array(y_qry).reshape(querysz)[perm])
        x_spts = np.array(x_spts).astype(np.float32).reshape(self.batchsz, setsz, 1, self.resize, self.resize)
        y_spts = np.array(y_spts).astype(np.int32).reshape(self.batchsz, setsz)      # np.int on Windows
        x_qrys = np.array(x_qrys).astype(np.float32).reshape(self.batchsz, querysz, 1, self.resize, self.resize)
        y_qrys = np.array(y_qrys).astype(np.int32).reshape(self.batchsz, querysz)
        return x_spts, y_spts, x_qrys, y_qrys

def main(args):
    torch.manual_seed(222); np.random.seed(222); torch.set_num_threads(1)
    print(args)
    nf = 32
    config = [('conv2d', [nf, 1, 3, 3, 2, 0]), ('relu', [True]), ('bn', [nf]),
              ('conv2d', [nf, nf, 3, 3, 2, 0]), ('relu', [True]), ('bn', [nf]),
              ('conv2d', [nf, nf, 3, 3, 2, 0]), ('relu', [True]), ('bn', [nf]),
              ('conv2d', [nf, nf, 2, 2, 1, 0]), ('relu', [True]), ('bn', [nf]),
              ('flatten', []), ('linear', [args.n_way, nf])]
    device = torch.device('cpu')
    maml = Meta(args, config).to(device)
    tmp = filter(lambda x: x.requires_grad, maml.parameters())
    num = sum(map(lambda x: np.prod(x.shape), tmp))
    print(maml)
    print('Total trainable tensors:', num)
    db_train = OmniglotNShot(batchsz=args.task_num, n_way=args.n_way, k_shot=args.k_spt, k_query=args.k_qry, imgsz=args.imgsz)
    for step in range(61):
        x_spt, y_spt, x_qry, y_qry = db_train.next()
        x_spt, y_spt, x_qry, y_qry = torch.from_numpy(x_spt).to(device), torch.from_numpy(y_spt).to(device), \
                                     torch.from_numpy(x_qry).to(device), torch.from_numpy(y_qry).to(device)
        accs = maml(x_spt, y_spt, x_qry, y_qry)
        if step % 30 == 0:
            print('step:', step, '\ttraining acc:', accs, flush=True)

if __name__ == '__main__':
    argparser = argparse.ArgumentParser()
    argparser.add_argument('--n_way', type=int, help='n way', default=5)
    argparser.add_argument('--k_spt', type=int, help='k shot for support set', default=1)
    argparser.add_argument('--k_qry', type=int, help='k shot for query set', default=15)
    argparser.add_argument('--imgsz', type=int, help='imgsz', default=28)
    argparser.add_argument('--imgc', type=int, help='imgc', default=1)
    argparser.add_argument('--task_num', type=int, help='meta batch size, namely task num', default=8)
    argparser.add_argument('--meta_lr', type=float, help='meta-level outer learning rate', default=1e-3)
    argparser.add_argument('--update_lr', type=float, help='task-level inner update learning rate', default=0.4)
    argparser.add_argument('--update_step', type=int, help='task-level inner update steps', default=5)
    argparser.add_argument('--update_step_test', type=int, help='update steps for finetunning', default=10)
    args = argparser.parse_args()
    main(args)
