# nianticlabs/manydepth issue "A tiny bug during training" in miniature: the training schedule of
# manydepth/trainer.py with its default options (--learning_rate 1e-4, --num_epochs 20, --scheduler_step_size 15,
# --freeze_teacher_epoch 15, --batch_size 12; the learning rate is raised from 1e-4 to 5e-3 because the miniature
# makes 30 updates per epoch instead of thousands). Trainer.__init__ builds self.model_optimizer = optim.Adam(
# self.parameters_to_train, self.opt.learning_rate) and self.model_lr_scheduler = optim.lr_scheduler.StepLR(
# self.model_optimizer, self.opt.scheduler_step_size, 0.1); train() loops "for self.epoch in range(num_epochs)",
# calls self.freeze_teacher() when self.epoch == self.opt.freeze_teacher_epoch and then run_epoch(), which ends with
# self.model_lr_scheduler.step(); freeze_teacher() ("freezing teacher and pose networks!") drops the mono (teacher)
# and pose networks from parameters_to_train and, "to ensure there are no updates to the teacher and pose networks",
# builds a new Adam optimizer AND a new StepLR(step_size 15, gamma 0.1). Because the freeze happens at epoch 15 and
# the fresh scheduler counts from zero again, the drop to 1e-5 that was due at epoch 15 never happens: the learning
# rate stays at 1e-4 for all 20 epochs. The models dict keeps manydepth's names (encoder / depth: the multi-frame
# student that sees the current and the previous frame; mono_encoder / mono_depth: the single-frame teacher; pose_encoder /
# pose: a relative-motion regressor), the line "Training" at the start of each epoch and the log line
# "epoch {:>3} | batch {:>6} | examples/s: {:5.1f} | loss: {:.5f} | time elapsed: .. | time left: .." with
# val() after it. Scaled down and simplified: 32 x 32 synthetic two-frame scenes (a textured ground plane with fog
# and a few boxes; the previous frame is the same scene seen after a sideways camera shift, so nearer pixels move
# more), 360 training and 60 validation scenes, tiny encoder-decoder CNNs, and noisy depth supervision (depth plus
# fresh Gaussian noise of sd 2.0 on every draw, an L1 loss) in place of the photometric reprojection losses; the student is
# also pulled towards the teacher's depth as in manydepth's consistency loss. The learning rate and the validation
# L1 error against the clean depth are printed with every epoch. metrics.csv has the logged loss and the validation
# error with the learning rate in use.
import csv, time
import numpy as np
import torch, torch.nn as nn, torch.nn.functional as F

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)


class Opt:
    learning_rate = 5e-3; num_epochs = 20; scheduler_step_size = 15; freeze_teacher_epoch = 15; batch_size = 12
    log_frequency = 10; height = 32; width = 32


# ---------------------------------------------------------------- synthetic two-frame scenes
def make_scene(r, H=32, W=32):
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    depth = 1.0 + 9.0 * (1 - yy / H) ** 1.5                  # ground plane: far at the top
    for _ in range(r.randint(1, 4)):                          # boxes standing on it
        w, h = r.randint(5, 12), r.randint(5, 14)
        x0, y0 = r.randint(0, W - w), r.randint(H // 3, H - h)
        depth[y0:y0 + h, x0:x0 + w] = np.minimum(depth[y0:y0 + h, x0:x0 + w], r.uniform(1.0, 4.0))
    tex = r.uniform(0.4, 1.0, (3, 1, 1)) * (0.8 + 0.2 * np.sin(xx * r.uniform(0.5, 1.5) + yy * r.uniform(0.5, 1.5)))
    fog = np.exp(-depth / 6.0)
    cur = tex * fog + (1 - fog) * 0.7
    shift = r.uniform(1.0, 2.0)                               # sideways camera motion
    disp = shift * 3.0 / depth                                # pixels of motion, larger when near
    src_x = np.clip(np.round(xx + disp).astype(int), 0, W - 1)
    prev = cur[:, yy.astype(int), src_x]
    return np.concatenate([cur, prev]).astype(np.float32), depth.astype(np.float32), np.float32(shift)


rs = np.random.RandomState(11)
train_scenes = [make_scene(rs) for _ in range(360)]
val_scenes = [make_scene(rs) for _ in range(60)]
stack = lambda sc, i: torch.tensor(np.stack([s[i] for s in sc]))
Xtr, Dtr, Mtr = stack(train_scenes, 0), stack(train_scenes, 1).unsqueeze(1), stack(train_scenes, 2)
Xva, Dva = stack(val_scenes, 0), stack(val_scenes, 1).unsqueeze(1)


# ---------------------------------------------------------------- networks
class Encoder(nn.Module):
    def __init__(self, cin):
        super().__init__()
        self.c1 = nn.Conv2d(cin, 16, 3, stride=2, padding=1); self.c2 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.c3 = nn.Conv2d(32, 32, 3, padding=1)

    def forward(self, x):
        f1 = F.elu(self.c1(x)); f2 = F.elu(self.c2(f1))
        return [f1, F.elu(self.c3(f2))]


class DepthDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.u1 = nn.Conv2d(32 + 16, 16, 3, padding=1); self.u2 = nn.Conv2d(16, 1, 3, padding=1)

    def forward(self, feats):
        f1, f2 = feats
        x = F.interpolate(f2, scale_factor=2, mode='nearest')
        x = F.elu(self.u1(torch.cat([x, f1], 1)))
        x = F.interpolate(x, scale_factor=2, mode='nearest')
        return 0.5 + 10.0 * torch.sigmoid(self.u2(x))       # depth in [0.5, 10.5]


class PoseDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 1)

    def forward(self, feats):
        return self.fc(feats[-1].mean((2, 3))).squeeze(1)


class Trainer:
    def __init__(self, opt):
        self.opt = opt
        self.models = {'encoder': Encoder(6), 'depth': DepthDecoder(), 'mono_encoder': Encoder(3),
                       'mono_depth': DepthDecoder(), 'pose_encoder': Encoder(6), 'pose': PoseDecoder()}
        self.train_teacher_and_pose = True
        self.parameters_to_train = []
        for m in self.models.values():
            self.parameters_to_train += list(m.parameters())
        self.model_optimizer = torch.optim.Adam(self.parameters_to_train, self.opt.learning_rate)
        self.model_lr_scheduler = torch.optim.lr_scheduler.StepLR(self.model_optimizer, self.opt.scheduler_step_size,
                                                                  0.1)
        self.num_total_steps = len(Xtr) // self.opt.batch_size * self.opt.num_epochs
        self.metrics = open('metrics.csv', 'w', newline=''); self.wr = csv.writer(self.metrics)
        self.wr.writerow(['epoch', 'step', 'loss', 'lr', 'val_l1'])
        self.rng = np.random.RandomState(4)
        self.noise = torch.Generator().manual_seed(5)

    def set_train(self):
        for k, m in self.models.items():
            if self.train_teacher_and_pose or k not in ['mono_encoder', 'mono_depth', 'pose_encoder', 'pose']:
                m.train()

    def freeze_teacher(self):
        if self.train_teacher_and_pose:
            self.train_teacher_and_pose = False
            print('freezing teacher and pose networks!')
            # here we reinitialise our optimizer to ensure there are no updates to the
            # teacher and pose networks
            self.parameters_to_train = []
            for k in ['encoder', 'depth']:
                self.parameters_to_train += list(self.models[k].parameters())
            self.model_optimizer = torch.optim.Adam(self.parameters_to_train, self.opt.learning_rate)
            self.model_lr_scheduler = torch.optim.lr_scheduler.StepLR(self.model_optimizer,
                                                                      self.opt.scheduler_step_size, 0.1)
            # set eval so that teacher + pose batch norm is running average
            for k in ['mono_encoder', 'mono_depth', 'pose_encoder', 'pose']:
                self.models[k].eval()
                for p in self.models[k].parameters():
                    p.requires_grad = False

    def train(self):
        self.epoch, self.step, self.start_time = 0, 0, time.time()
        for self.epoch in range(self.opt.num_epochs):
            if self.epoch == self.opt.freeze_teacher_epoch:
                self.freeze_teacher()
            self.run_epoch()
        self.metrics.close()

    def process_batch(self, idx):
        x, d, m = Xtr[idx], Dtr[idx], Mtr[idx]
        target = d + 2.0 * torch.randn(d.shape, generator=self.noise)      # noisy depth supervision
        mono = self.models['mono_depth'](self.models['mono_encoder'](x[:, :3]))
        multi = self.models['depth'](self.models['encoder'](x))
        pose = self.models['pose'](self.models['pose_encoder'](x))
        loss = F.l1_loss(multi, target) + 0.5 * F.l1_loss(multi, mono.detach())
        if self.train_teacher_and_pose:
            loss = loss + F.l1_loss(mono, target) + F.l1_loss(pose, m + 0.2 * torch.randn(m.shape, generator=self.noise))
        return loss

    def run_epoch(self):
        print('Training')
        print('epoch %d: learning rate %.1e' % (self.epoch, self.model_optimizer.param_groups[0]['lr']))
        self.set_train()
        perm = self.rng.permutation(len(Xtr))
        for batch_idx in range(len(Xtr) // self.opt.batch_size):
            before_op_time = time.time()
            idx = perm[batch_idx * self.opt.batch_size:(batch_idx + 1) * self.opt.batch_size]
            loss = self.process_batch(idx)
            self.model_optimizer.zero_grad()
            loss.backward()
            self.model_optimizer.step()
            duration = time.time() - before_op_time
            if batch_idx % self.opt.log_frequency == 0:
                self.log_time(batch_idx, duration, loss.item())
                self.wr.writerow([self.epoch, self.step, round(loss.item(), 5),
                                  self.model_optimizer.param_groups[0]['lr'], ''])
            self.step += 1
        v = self.val()
        print('  val: depth L1 %.4f' % v)
        self.wr.writerow([self.epoch, self.step, '', self.model_optimizer.param_groups[0]['lr'], round(v, 5)])
        self.metrics.flush()
        self.model_lr_scheduler.step()

    def val(self):
        for m in self.models.values():
            m.eval()
        with torch.no_grad():
            v = F.l1_loss(self.models['depth'](self.models['encoder'](Xva)), Dva).item()
        self.set_train()
        return v

    def log_time(self, batch_idx, duration, loss):
        samples_per_sec = self.opt.batch_size / max(duration, 1e-6)
        time_sofar = time.time() - self.start_time
        training_time_left = (self.num_total_steps / max(self.step, 1) - 1.0) * time_sofar if self.step > 0 else 0
        print('epoch {:>3} | batch {:>6} | examples/s: {:5.1f} | loss: {:.5f} | time elapsed: {:.0f}s | time left: '
              '{:.0f}s'.format(self.epoch, batch_idx, samples_per_sec, loss, time_sofar, training_time_left))


if __name__ == '__main__':
    Trainer(Opt()).train()
