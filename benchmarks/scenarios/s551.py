# dulucas/siMLPe issue "ValueError: num_samples should be a positive integer value, but got num_samples=0" in
# miniature: exps/baseline_h36m/train.py of siMLPe (human motion prediction with an all-MLP network): the model is
# built, then H36MDataset(config, 'train', config.data_aug) reads the sequence names from data/h36m_train.txt
# (np.loadtxt on h36m_anno_dir with 'h36m' removed) and collects the motion files with
# glob.glob(self._h36m_anno_dir + '/' + dataset + '/*'), which silently returns nothing when the Human3.6M files are
# not where config.h36m_anno_dir points; _collect_all() then finds no sequences, len(dataset) is 0, and
# DataLoader(dataset, batch_size=config.batch_size, num_workers=config.num_workers, drop_last=True, sampler=None,
# shuffle=True, pin_memory=True) fails in RandomSampler with "ValueError: num_samples should be a positive integer
# value, but got num_samples=0" (exit 1) before the first iteration. Here the synthetic motion files are written the
# way the poster had them, in a folder other than the one the config names (data/h3.6m/dataset/<subject>/ instead of
# data/h36m/<subject>/). The rest is the training script: siMLPe (motion_fc_in temporal-spatial FC, a stack of MLP
# blocks with temporal FC and spatial LayerNorm, motion_fc_out), DCT of the input, offset to the last observed pose
# (deriv_output), mean per-joint position error plus the velocity term (use_relative_loss), Adam 3e-4 with the
# multistep drop to 1e-5, "Iter {} Summary:" / "lr: ... Training loss: ..." every print_every iterations. Scaled down:
# 22 joints as xyz in millimetres written directly (no exp-map conversion), 8 MLP blocks instead of 48, input 50 /
# target 10 frames, batch 64, 400 iterations. metrics.csv has the logged training loss (only what was logged before
# the crash).
import csv, glob, json, os, time
import numpy as np
import torch, torch.nn as nn
from torch.utils.data import DataLoader

torch.manual_seed(888); np.random.seed(888); torch.set_num_threads(1)


class C(dict):
    __getattr__ = dict.__getitem__
    __setattr__ = dict.__setitem__


config = C()
config.h36m_anno_dir = os.path.join(os.getcwd(), 'data', 'h36m')
config.motion = C(h36m_input_length=50, h36m_input_length_dct=50, h36m_target_length_train=10,
                  h36m_target_length_eval=25, dim=66)
config.data_aug = True
config.deriv_input = True
config.deriv_output = True
config.use_relative_loss = True
config.shift_step = 1
config.batch_size = 64
config.num_workers = 0
config.cos_lr_max = 3e-4
config.cos_lr_min = 5e-8
config.cos_lr_total_iters = 400
config.weight_decay = 1e-4
config.print_every = 50
config.motion_mlp = C(hidden_dim=66, seq_len=50, num_layers=8, with_normalization=True, spatial_fc_only=False,
                      norm_axis='spatial')
config.motion_fc_in = C(temporal_fc=False)
config.motion_fc_out = C(temporal_fc=False)


def write_synthetic_h36m(root):
    """Synthetic periodic 'walking' motions for 22 joints, one file per (subject, action), like the H3.6M txt files."""
    os.makedirs(os.path.join(os.getcwd(), 'data'), exist_ok=True)
    with open(os.path.join(os.getcwd(), 'data', 'h36m_train.txt'), 'w') as fh:
        fh.write('S1\nS6\nS7\nS8\nS9\n')
    r = np.random.RandomState(0)
    base = r.normal(0, 300, (22, 3))
    for subj in ['S1', 'S6', 'S7', 'S8', 'S9']:
        os.makedirs(os.path.join(root, subj), exist_ok=True)
        for action in ['walking_1', 'eating_1', 'smoking_1']:
            T = 200; t = np.arange(T)[:, None, None]
            freq = r.uniform(0.05, 0.12); amp = r.uniform(20, 120, (1, 22, 3)); ph = r.uniform(0, 6.3, (1, 22, 3))
            xyz = base[None] + amp * np.sin(freq * t + ph) + r.normal(0, 2, (T, 22, 3))
            np.savetxt(os.path.join(root, subj, action + '.txt'), xyz.reshape(T, -1), delimiter=',', fmt='%.3f')


class H36MDataset(torch.utils.data.Dataset):
    def __init__(self, config, split_name, data_aug=False):
        super().__init__()
        self._split_name = split_name
        self.data_aug = data_aug
        self._h36m_anno_dir = config.h36m_anno_dir
        self._h36m_files = self._get_h36m_files()
        self.h36m_motion_input_length = config.motion.h36m_input_length
        self.h36m_motion_target_length = config.motion.h36m_target_length
        self.motion_dim = config.motion.dim
        self.shift_step = config.shift_step
        self._collect_all()
        self._file_length = len(self.data_idx)

    def __len__(self):
        if self._file_length is not None:
            return self._file_length
        return len(self._h36m_files)

    def _get_h36m_files(self):
        seq_names = []
        if self._split_name == 'train':
            seq_names += np.loadtxt(os.path.join(self._h36m_anno_dir.replace('h36m', ''), 'h36m_train.txt'),
                                    dtype=str).tolist()
        file_list = []
        for dataset in seq_names:
            subjects = glob.glob(self._h36m_anno_dir + '/' + dataset + '/*')
            for subject in subjects:
                file_list.append(subject)
        h36m_files = []
        for path in file_list:
            info = open(path, 'r').readlines()
            pose_info = [np.array([float(x) for x in line.strip().split(',')]) for line in info if line.strip()]
            h36m_files.append(torch.tensor(np.array(pose_info)).float().reshape(-1, 22, 3))
        return h36m_files

    def _collect_all(self):
        self.h36m_seqs = []
        self.data_idx = []
        idx = 0
        for h36m_motion_poses in self._h36m_files:
            N = len(h36m_motion_poses)
            if N < self.h36m_motion_target_length + self.h36m_motion_input_length:
                continue
            sampled_index = np.arange(0, N, 2)
            h36m_motion_poses = h36m_motion_poses[sampled_index]
            T = h36m_motion_poses.shape[0]
            h36m_motion_poses = h36m_motion_poses.reshape(T, -1)
            self.h36m_seqs.append(h36m_motion_poses)
            valid_frames = np.arange(0, T - self.h36m_motion_input_length - self.h36m_motion_target_length + 1,
                                     self.shift_step)
            self.data_idx.extend(zip([idx] * len(valid_frames), valid_frames.tolist()))
            idx += 1

    def __getitem__(self, index):
        idx, start_frame = self.data_idx[index]
        frame_indexes = np.arange(start_frame, start_frame + self.h36m_motion_input_length + self.h36m_motion_target_length)
        motion = self.h36m_seqs[idx][frame_indexes]
        if self.data_aug and torch.rand(1)[0] > .5:
            motion = motion[torch.LongTensor(list(range(motion.size(0) - 1, -1, -1)))]
        return (motion[:self.h36m_motion_input_length] / 1000).float(), (motion[self.h36m_motion_input_length:] / 1000).float()


class LN(nn.Module):
    def __init__(self, dim, epsilon=1e-5):
        super().__init__()
        self.epsilon = epsilon
        self.alpha = nn.Parameter(torch.ones([1, dim, 1])); self.beta = nn.Parameter(torch.zeros([1, dim, 1]))

    def forward(self, x):
        mean = x.mean(axis=1, keepdim=True)
        var = ((x - mean) ** 2).mean(dim=1, keepdim=True)
        return (x - mean) / (var + self.epsilon).sqrt() * self.alpha + self.beta


class MLPblock(nn.Module):
    def __init__(self, dim, seq):
        super().__init__()
        self.fc0 = nn.Linear(seq, seq)
        nn.init.xavier_uniform_(self.fc0.weight, gain=1e-8); nn.init.constant_(self.fc0.bias, 0)
        self.norm0 = LN(dim)

    def forward(self, x):
        return x + self.norm0(self.fc0(x))


class siMLPe(nn.Module):
    def __init__(self, config):
        super().__init__()
        seq = config.motion_mlp.seq_len
        self.motion_fc_in = nn.Linear(config.motion.dim, config.motion.dim)
        self.motion_mlp = nn.Sequential(*[MLPblock(config.motion_mlp.hidden_dim, seq)
                                          for _ in range(config.motion_mlp.num_layers)])
        self.motion_fc_out = nn.Linear(config.motion.dim, config.motion.dim)
        nn.init.xavier_uniform_(self.motion_fc_out.weight, gain=1e-8); nn.init.constant_(self.motion_fc_out.bias, 0)

    def forward(self, motion_input):
        x = self.motion_fc_in(motion_input).transpose(1, 2)
        x = self.motion_mlp(x).transpose(1, 2)
        return self.motion_fc_out(x)


def get_dct_matrix(N):
    dct_m = np.eye(N)
    for k in np.arange(N):
        for i in np.arange(N):
            w = np.sqrt(2 / N)
            if k == 0:
                w = np.sqrt(1 / N)
            dct_m[k, i] = w * np.cos(np.pi * (i + 1 / 2) * k / N)
    return dct_m, np.linalg.inv(dct_m)


dct_m, idct_m = get_dct_matrix(config.motion.h36m_input_length_dct)
dct_m = torch.tensor(dct_m).float().unsqueeze(0); idct_m = torch.tensor(idct_m).float().unsqueeze(0)


def update_lr_multistep(nb_iter, optimizer):
    current_lr = 1e-5 if nb_iter > 300 else 3e-4
    for param_group in optimizer.param_groups:
        param_group['lr'] = current_lr
    return optimizer, current_lr


def gen_velocity(m):
    return m[:, 1:] - m[:, :-1]


def train_step(h36m_motion_input, h36m_motion_target, model, optimizer, nb_iter):
    h36m_motion_input_ = torch.matmul(dct_m[:, :, :config.motion.h36m_input_length], h36m_motion_input.clone())
    motion_pred = model(h36m_motion_input_)
    motion_pred = torch.matmul(idct_m[:, :config.motion.h36m_input_length, :], motion_pred)
    offset = h36m_motion_input[:, -1:]
    motion_pred = motion_pred[:, :config.motion.h36m_target_length] + offset
    b, n, c = h36m_motion_target.shape
    motion_pred = motion_pred.reshape(b, n, 22, 3).reshape(-1, 3)
    h36m_motion_target = h36m_motion_target.reshape(b, n, 22, 3).reshape(-1, 3)
    loss = torch.mean(torch.norm(motion_pred - h36m_motion_target, 2, 1))
    dmotion_pred = gen_velocity(motion_pred.reshape(b, n, 22, 3))
    dmotion_gt = gen_velocity(h36m_motion_target.reshape(b, n, 22, 3))
    loss = loss + torch.mean(torch.norm((dmotion_pred - dmotion_gt).reshape(-1, 3), 2, 1))
    optimizer.zero_grad(); loss.backward(); optimizer.step()
    optimizer, current_lr = update_lr_multistep(nb_iter, optimizer)
    return loss.item(), optimizer, current_lr


write_synthetic_h36m(os.path.join(os.getcwd(), 'data', 'h3.6m', 'dataset'))   # where the files actually are
f = open('metrics.csv', 'w', newline=''); wr = csv.writer(f); wr.writerow(['iter', 'lr', 'loss']); f.flush()

model = siMLPe(config)
model.train()

config.motion.h36m_target_length = config.motion.h36m_target_length_train
dataset = H36MDataset(config, 'train', config.data_aug)

shuffle = True
sampler = None
dataloader = DataLoader(dataset, batch_size=config.batch_size, num_workers=config.num_workers, drop_last=True,
                        sampler=sampler, shuffle=shuffle, pin_memory=False)

optimizer = torch.optim.Adam(model.parameters(), lr=config.cos_lr_max, weight_decay=config.weight_decay)
print(json.dumps(config, indent=4, sort_keys=True))

nb_iter = 0
avg_loss = 0.
avg_lr = 0.
while (nb_iter + 1) < config.cos_lr_total_iters:
    for (h36m_motion_input, h36m_motion_target) in dataloader:
        loss, optimizer, current_lr = train_step(h36m_motion_input, h36m_motion_target, model, optimizer, nb_iter)
        avg_loss += loss
        avg_lr += current_lr
        if (nb_iter + 1) % config.print_every == 0:
            avg_loss = avg_loss / config.print_every
            avg_lr = avg_lr / config.print_every
            print("Iter {} Summary: ".format(nb_iter + 1))
            print(f"\t lr: {avg_lr} \t Training loss: {avg_loss}", flush=True)
            wr.writerow([nb_iter + 1, avg_lr, round(avg_loss, 6)]); f.flush()
            avg_loss = 0
            avg_lr = 0
        if (nb_iter + 1) == config.cos_lr_total_iters:
            break
        nb_iter += 1
f.close()
