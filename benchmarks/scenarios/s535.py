# synsense/sinabs issue "[Bug]RuntimeError: Trying to backward through the graph a second time, but the saved
# intermediate results have already been freed." in miniature: the BPTT tutorial of sinabs (docs/tutorials/bptt.ipynb:
# MNIST rows as Poisson spike trains, 28 time steps x 28 channels, an ANN 28-128-128-256-256-10 with ReLUs trained
# first with Adam and CrossEntropyLoss, batch 64, drop_last, then converted with from_model() into a spiking network of
# integrate-and-fire layers that is trained through time: optimizer.zero_grad(); model.reset_states(); out =
# model.spiking_model(img); out.sum(1); loss.backward(); optimizer.step()). As in sinabs before the fix, the neuron
# layers keep their membrane potential in a registered buffer that forward() replaces by the new, graph-attached state
# (self.v_mem = state["v_mem"]), and StatefulLayer.reset_states() resets it in place with buffer.zero_(); the zeroed
# buffer stays attached to the previous batch's graph, so the second loss.backward() of the spiking stage runs into the
# freed graph and raises "RuntimeError: Trying to backward through the graph a second time ..." (exit 1). Synthetic
# 28 x 28 "digits" (10 stroke prototypes with jitter and noise) replace MNIST, 1280 training images, three ANN epochs.
# metrics.csv has the per-batch loss of both stages.
import csv, sys
import numpy as np
import torch, torch.nn as nn

torch.manual_seed(0); np.random.seed(0); torch.set_num_threads(1)
BATCH_SIZE = 64

rs = np.random.RandomState(0)
protos = np.zeros((10, 28, 28), np.float32)
for c in range(10):
    for _ in range(3):                                      # three random strokes per class
        y0, x0, y1, x1 = rs.randint(4, 24, 4)
        for s in np.linspace(0, 1, 40):
            protos[c, int(y0 + s * (y1 - y0)), int(x0 + s * (x1 - x0))] = 1.0
class MNIST_Dataset(torch.utils.data.Dataset):
    def __init__(self, n, seed):
        r = np.random.RandomState(seed); self.targets = r.randint(0, 10, n)
        imgs = [np.roll(protos[t], (r.randint(-1, 2), r.randint(-1, 2)), (0, 1)) for t in self.targets]
        self.data = np.clip(np.stack(imgs) * r.uniform(0.7, 1.0, (n, 1, 1)) + r.uniform(0, 0.15, (n, 28, 28)), 0, 1).astype(np.float32)
    def __len__(self): return len(self.targets)
    def __getitem__(self, index):
        img = torch.from_numpy(self.data[index])
        spikes = (torch.rand(size=img.shape) < img).float()  # default is by row, output is [time, channels] = [28, 28]
        return spikes, int(self.targets[index])
dataset = MNIST_Dataset(1280, 1)
dataloader = torch.utils.data.DataLoader(dataset, batch_size=BATCH_SIZE, drop_last=True, shuffle=True)

ann = nn.Sequential(nn.Linear(28, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 256), nn.ReLU(),
                    nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10), nn.ReLU())

class SingleSpike(torch.autograd.Function):
    @staticmethod
    def forward(ctx, v_mem, threshold):
        ctx.save_for_backward(v_mem); ctx.threshold = threshold
        return (v_mem >= threshold).float()
    @staticmethod
    def backward(ctx, grad_output):                          # MultiGaussian-like surrogate gradient
        (v_mem,) = ctx.saved_tensors
        return grad_output * torch.exp(-0.5 * ((v_mem - ctx.threshold) / 0.5) ** 2) / (0.5 * np.sqrt(2 * np.pi)), None

class StatefulLayer(nn.Module):
    def __init__(self, state_names):
        super().__init__()
        for state_name in state_names:
            self.register_buffer(state_name, torch.zeros((0)))
    def is_state_initialised(self):
        return all(b.shape != torch.Size([0]) for b in self.buffers())
    def state_has_shape(self, shape):
        return all(b.shape == shape for b in self.buffers())
    def init_state_with_shape(self, shape):
        for name, buffer in self.named_buffers():
            self.register_buffer(name, torch.zeros(shape, device=buffer.device))
        self.reset_states()
    def reset_states(self, randomize=False):
        if self.is_state_initialised():
            for buffer in self.buffers():
                if randomize:
                    torch.nn.init.uniform_(buffer)
                else:
                    buffer.zero_()

class IAFSqueeze(StatefulLayer):
    """Integrate-and-fire layer on squeezed (batch*time, channels) input, membrane subtract on spiking."""
    def __init__(self, batch_size, threshold=1.0):
        super().__init__(state_names=['v_mem'])
        self.batch_size, self.threshold = batch_size, threshold
    def forward(self, input_data):
        x = input_data.reshape(self.batch_size, -1, *input_data.shape[1:])
        if not self.is_state_initialised() or not self.state_has_shape((self.batch_size, *x.shape[2:])):
            self.init_state_with_shape((self.batch_size, *x.shape[2:]))
        v_mem = self.v_mem; spikes = []
        for t in range(x.shape[1]):
            v_mem = v_mem + x[:, t]
            s = SingleSpike.apply(v_mem, self.threshold)
            v_mem = v_mem - s * self.threshold
            spikes.append(s)
        self.v_mem = v_mem                                    # state["v_mem"] back into the buffer
        return torch.stack(spikes, 1).reshape(input_data.shape)

class Network(nn.Module):
    def __init__(self, analog_model, spiking_model):
        super().__init__(); self.analog_model, self.spiking_model = analog_model, spiking_model
    def reset_states(self):
        for m in self.spiking_model.modules():
            if isinstance(m, StatefulLayer): m.reset_states()

def from_model(model, batch_size):
    layers = [IAFSqueeze(batch_size) if isinstance(m, nn.ReLU) else m for m in model]
    import copy
    return Network(model, nn.Sequential(*[copy.deepcopy(l) if isinstance(l, nn.Linear) else l for l in layers]))

f = open('metrics.csv', 'w', newline=''); w = csv.writer(f); w.writerow(['stage', 'epoch', 'batch', 'loss']); f.flush()
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(ann.parameters())
for epoch in range(3):
    for i, (img, target) in enumerate(dataloader):
        optimizer.zero_grad()
        target = target.unsqueeze(1).repeat([1, 28]); img = img.reshape([-1, 28]); target = target.reshape([-1])
        out = ann(img)
        loss = criterion(out, target)
        loss.backward(); optimizer.step()
        w.writerow(['ann', epoch, i, round(loss.item(), 5)]); f.flush()
        print('ANN epoch %d: %d/%d loss=%.4f' % (epoch, i + 1, len(dataloader), loss.item()))

model = from_model(ann, batch_size=BATCH_SIZE)
model = model.train()
for img in dataloader:
    print(img[0].shape)
    break
optimizer = torch.optim.Adam(model.parameters())
for epoch in range(5):
    for i, (img, target) in enumerate(dataloader):
        optimizer.zero_grad()
        model.reset_states()
        img = img.reshape((-1, 28))  # merging time and batch dimensions
        out = model.spiking_model(img)
        out = out.reshape((BATCH_SIZE, 28, 10))  # restoring original dimensions
        out = out.sum(1)  # the output of the network is summed over the 28 time steps (rows)
        loss = criterion(out, target)
        loss.backward()
        optimizer.step()
        w.writerow(['snn', epoch, i, round(loss.item(), 5)]); f.flush()
        print('SNN epoch %d: %d/%d loss=%.4f' % (epoch, i + 1, len(dataloader), loss.item()))
f.close()
