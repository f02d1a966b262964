# LiDAR semantic segmentation in miniature (Cylinder3D-style): each scan is voxelised into a
# cylindrical grid, a small 3-D sparse-conv stand-in predicts per-voxel classes, weighted CE.
# As in the reference train script, the model's forward takes the configured batch size
# (train_batch_size = 6) to reshape its dense output, while the last batch of the epoch only holds
# the remaining scans. Adam 1e-3, 80 training scans, 20 classes.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_num_threads(1)
g = torch.Generator().manual_seed(71)

n_cls, R, A, Z = 20, 12, 16, 4
def scan():
    lab = torch.randint(0, n_cls, (R, A, Z), generator=g)
    lab[:, :, 0] = torch.randint(0, 3, (1,), generator=g)               # ground classes
    feat = F.one_hot(lab, n_cls).float().permute(3, 0, 1, 2)[:8] + 0.5 * torch.randn(8, R, A, Z, generator=g)
    return feat, lab
data = [scan() for _ in range(80)]

class Cylinder3D(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv3d(8, 32, 3, padding=1), nn.ReLU(), nn.Conv3d(32, 32, 3, padding=1), nn.ReLU(),
                                 nn.Conv3d(32, n_cls, 1))
    def forward(self, pt_fea, grid_ind, batch_size):
        x = torch.stack(pt_fea)
        out = self.net(x)
        dense = out.new_zeros(batch_size, n_cls, R, A, Z)                 # spconv-style dense(batch_size)
        dense[:out.size(0)] = out
        return dense[:, :, grid_ind[0], grid_ind[1], grid_ind[2]]

train_batch_size = 6
my_model = Cylinder3D()
optimizer = torch.optim.Adam(my_model.parameters(), lr=1e-3)
grid = (torch.arange(R).repeat_interleave(A * Z), torch.arange(A).repeat_interleave(Z).repeat(R), torch.arange(Z).repeat(R * A))
global_iter = 0
for epoch in range(2):
    for i_iter in range(0, len(data), train_batch_size):
        batch = data[i_iter:i_iter + train_batch_size]
        train_pt_fea_ten = [b[0] for b in batch]
        point_label_tensor = torch.stack([b[1][grid[0], grid[1], grid[2]] for b in batch])
        outputs = my_model(train_pt_fea_ten, grid, train_batch_size)
        loss = F.cross_entropy(outputs, point_label_tensor)
        optimizer.zero_grad(); loss.backward(); optimizer.step()
        global_iter += 1
        if global_iter % 4 == 0:
            print('epoch %d iter %5d, loss: %.3f' % (epoch, global_iter, loss.item()))
