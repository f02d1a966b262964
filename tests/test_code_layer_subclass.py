"""A model built from a subclass of a torch layer (``class MaskedLinear(nn.Linear)``, MADE's masked
layers, a causal convolution): ``super().__init__`` gives it the layer's ``weight`` and ``bias``, so a
forward that uses them (``F.linear(x, self.mask * self.weight, self.bias)``) reaches the trainable
parameters. Session 24 (fresh15): such a model was read as no module at all, so every MADE script was
given ``graph_cut`` and a healthy run the cause broken_gradient_flow."""

from traindx.probes.readers.code import analyze_code

SCRIPT = '''import torch
import torch.nn as nn
import torch.nn.functional as F


class MaskedLinear(nn.Linear):
    def __init__(self, n_in, n_out):
        super().__init__(n_in, n_out)
        self.register_buffer("mask", torch.ones(n_out, n_in))

    def forward(self, x):
        return F.linear(x, self.mask * self.weight, self.bias)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(MaskedLinear(16, 64), nn.ReLU(), MaskedLinear(64, 16))

    def forward(self, x):
        return self.net(x)


model = Net()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x = (torch.rand(512, 16) < 0.5).float()
for epoch in range(5):
    for i in range(0, 512, 64):
        xb = x[i:i + 64]
        opt.zero_grad()
        out = model(xb)
        loss = F.binary_cross_entropy_with_logits(OUT, xb)
        loss.backward()
        opt.step()
'''


def _graph_cut(tmp_path, out: str):
    p = tmp_path / "train.py"
    p.write_text(SCRIPT.replace("OUT", out), encoding="utf-8")
    return analyze_code(str(p)).get("graph_cut")


def test_a_layer_subclass_using_its_own_weight_keeps_the_graph(tmp_path):
    f = _graph_cut(tmp_path, "out")
    assert f is not None and f.value is False


def test_a_layer_subclass_model_whose_output_is_detached_cuts_the_graph(tmp_path):
    assert _graph_cut(tmp_path, "out.detach()").value is True
