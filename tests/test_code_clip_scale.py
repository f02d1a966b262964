"""Code reader: data held between two limits (``np.clip(x, lo, hi)``, ``torch.clamp``, ``x.clip``) keeps a
followed scale, bounded by the larger limit, so raw pixel-range inputs clipped to 0..255 before the
model are still seen as unnormalised; clipped to 0..1 they are not."""
from conftest import diagnose_json

PIXELS = '''
import numpy as np, torch, torch.nn as nn
def make(n):
    x = np.random.rand(n, 1, 12, 12)
    x = {clip}
    return torch.tensor(x, dtype=torch.float32), torch.tensor(np.random.randint(0, 3, n))
X, Y = make(800)
net = nn.Sequential(nn.Flatten(), nn.Linear(144, 32), nn.ReLU(), nn.Linear(32, 3))
opt = torch.optim.SGD(net.parameters(), lr=0.01)
for ep in range(10):
    for i in range(0, 800, 50):
        xb, yb = X[i:i+50], Y[i:i+50]
        loss = nn.functional.cross_entropy(net(xb), yb)
        opt.zero_grad(); loss.backward(); opt.step()
    print(ep, loss.item())
'''


def _facts(tmp_path, clip):
    p = tmp_path / "train.py"
    p.write_text(PIXELS.format(clip=clip))
    rep = diagnose_json("--code", str(p))
    return {f["fact"]: f["value"] for f in rep["facts"]}, rep


def test_numpy_clip_to_the_pixel_range_keeps_the_raw_scale(tmp_path):
    facts, rep = _facts(tmp_path, "np.clip(x * 250 + 5, 0, 255).astype(np.uint8)")
    assert facts["input_scale"] == 255
    assert rep["root_causes"][0]["id"] == "unnormalized_inputs"


def test_a_method_clip_with_keywords_is_followed_too(tmp_path):
    facts, _ = _facts(tmp_path, "(x * 400).clip(min=0, max=300)")
    assert facts["input_scale"] == 300


def test_clipping_to_the_unit_range_is_not_raw(tmp_path):
    facts, rep = _facts(tmp_path, "np.clip(x * 250 + 5, 0, 255) / 255.0")
    assert facts.get("input_scale", 1) <= 1.5
    assert rep["root_causes"][0]["id"] != "unnormalized_inputs"
