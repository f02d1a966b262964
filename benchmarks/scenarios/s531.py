# Teoge/DMPR-PS issue "Exception in train.py - Can't pickle local object
# 'train_detector.<locals>.<lambda>" in miniature: train.py of DMPR-PS (directional marking-point
# detector for parking slots) builds its DataLoader with num_workers=args.data_loading_workers
# (config.py default 32) and collate_fn=lambda x: list(zip(*x)) defined inside train_detector().
# On Windows, the poster's system as the maintainer suspects, DataLoader workers are started with
# the "spawn" method, which has to pickle the collate_fn; a lambda defined inside a function cannot
# be pickled, so the first iteration of the loader fails before any training step.
# The script sets the spawn start method explicitly so that the Windows behaviour shows on Linux.
# Synthetic 128 x 128 "parking lot" pictures with marking points replace the ps2.0 images, a small
# detector (stride 8, 16 x 16 x 6 output map as in config.py) replaces DirectionalPointDetector,
# 4 workers instead of 32, no visdom.
import argparse
import csv
import math
import random
from collections import namedtuple

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0); np.random.seed(0); random.seed(0); torch.set_num_threads(1)

INPUT_IMAGE_SIZE = 128
NUM_FEATURE_MAP_CHANNEL = 6
FEATURE_MAP_SIZE = 16
MarkingPoint = namedtuple('MarkingPoint', ['x', 'y', 'direction', 'shape'])


class ParkingSlotDataset(Dataset):
    """Synthetic stand-in for data.ParkingSlotDataset: grey asphalt with white marking lines."""

    def __init__(self, n=240, seed=0):
        rs = np.random.RandomState(seed)
        self.samples = []
        yy, xx = np.mgrid[:INPUT_IMAGE_SIZE, :INPUT_IMAGE_SIZE].astype(np.float32) / INPUT_IMAGE_SIZE
        for _ in range(n):
            img = 0.35 + 0.05 * rs.randn(3, INPUT_IMAGE_SIZE, INPUT_IMAGE_SIZE).astype(np.float32)
            pts = []
            for _ in range(rs.randint(1, 4)):
                x, y = rs.uniform(0.1, 0.9, 2)
                d = rs.uniform(-math.pi, math.pi)
                shape = float(rs.randint(0, 2))
                t = np.clip((xx - x) * math.cos(d) + (yy - y) * math.sin(d), 0, 0.15)
                dist = np.sqrt((xx - x - t * math.cos(d)) ** 2 + (yy - y - t * math.sin(d)) ** 2)
                img += (dist < 0.012).astype(np.float32) * 0.55
                pts.append(MarkingPoint(x, y, d, shape))
            self.samples.append((torch.from_numpy(np.clip(img, 0, 1)), pts))

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        return self.samples[i]


class DirectionalPointDetector(nn.Module):
    def __init__(self, input_channel_size, depth_factor, output_channel_size):
        super().__init__()
        d = depth_factor
        self.net = nn.Sequential(
            nn.Conv2d(input_channel_size, d, 3, 2, 1), nn.BatchNorm2d(d), nn.LeakyReLU(0.1),
            nn.Conv2d(d, 2 * d, 3, 2, 1), nn.BatchNorm2d(2 * d), nn.LeakyReLU(0.1),
            nn.Conv2d(2 * d, 4 * d, 3, 2, 1), nn.BatchNorm2d(4 * d), nn.LeakyReLU(0.1),
            nn.Conv2d(4 * d, 4 * d, 3, 1, 1), nn.BatchNorm2d(4 * d), nn.LeakyReLU(0.1),
            nn.Conv2d(4 * d, output_channel_size, 1))

    def forward(self, x):
        prediction = self.net(x)
        point_pred, angle_pred = torch.split(prediction, 4, dim=1)
        point_pred = torch.sigmoid(point_pred)
        angle_pred = torch.tanh(angle_pred)
        return torch.cat((point_pred, angle_pred), dim=1)


def generate_objective(marking_points_batch, device):
    batch_size = len(marking_points_batch)
    objective = torch.zeros(batch_size, NUM_FEATURE_MAP_CHANNEL, FEATURE_MAP_SIZE, FEATURE_MAP_SIZE, device=device)
    gradient = torch.zeros_like(objective)
    gradient[:, 0].fill_(1.)
    for batch_idx, marking_points in enumerate(marking_points_batch):
        for marking_point in marking_points:
            col = math.floor(marking_point.x * FEATURE_MAP_SIZE)
            row = math.floor(marking_point.y * FEATURE_MAP_SIZE)
            objective[batch_idx, 0, row, col] = 1.
            objective[batch_idx, 1, row, col] = marking_point.shape
            objective[batch_idx, 2, row, col] = marking_point.x * 16 - col
            objective[batch_idx, 3, row, col] = marking_point.y * 16 - row
            objective[batch_idx, 4, row, col] = math.cos(marking_point.direction)
            objective[batch_idx, 5, row, col] = math.sin(marking_point.direction)
            gradient[batch_idx, 1:6, row, col].fill_(1.)
    return objective, gradient


def train_detector(args):
    device = torch.device('cpu')
    torch.set_grad_enabled(True)
    dp_detector = DirectionalPointDetector(3, args.depth_factor, NUM_FEATURE_MAP_CHANNEL).to(device)
    dp_detector.train()
    optimizer = torch.optim.Adam(dp_detector.parameters(), lr=args.lr)
    f = open('metrics.csv', 'w', newline='')
    wr = csv.writer(f)
    wr.writerow(['epoch', 'iter', 'train_loss'])
    f.flush()
    data_loader = DataLoader(ParkingSlotDataset(),
                             batch_size=args.batch_size, shuffle=True,
                             num_workers=args.data_loading_workers,
                             collate_fn=lambda x: list(zip(*x)))
    for epoch_idx in range(args.num_epochs):
        for iter_idx, (images, marking_points) in enumerate(data_loader):
            images = torch.stack(images).to(device)
            optimizer.zero_grad()
            prediction = dp_detector(images)
            objective, gradient = generate_objective(marking_points, device)
            loss = (prediction - objective) ** 2
            loss.backward(gradient)
            optimizer.step()
            train_loss = torch.sum(loss * gradient).item() / loss.size(0)
            print('epoch: %d, iter: %d, train_loss: %.6f' % (epoch_idx, iter_idx, train_loss), flush=True)
            wr.writerow([epoch_idx, iter_idx, round(train_loss, 6)]); f.flush()
    f.close()


if __name__ == '__main__':
    torch.multiprocessing.set_start_method('spawn')  # the only start method on Windows
    parser = argparse.ArgumentParser()
    parser.add_argument('--batch_size', type=int, default=24)
    parser.add_argument('--data_loading_workers', type=int, default=4)
    parser.add_argument('--num_epochs', type=int, default=20)
    parser.add_argument('--lr', type=float, default=1e-4)
    parser.add_argument('--depth_factor', type=int, default=16)
    train_detector(parser.parse_args([]))
