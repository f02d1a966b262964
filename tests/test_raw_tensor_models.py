"""A model written as raw tensors the script trains itself (``torch.randn(...).requires_grad_()``
handed to an optimizer, no nn.Module) still has its loss read: an exp written into a hand-written
logistic loss, log(1 + exp(-y z)), overflows once the logits are large, and the code reader names it."""
from conftest import diagnose_json

from traindx.probes.readers.code import analyze_code

RAW = '''
import torch
torch.manual_seed(0)
W = torch.randn(10, 4).requires_grad_()
opt = torch.optim.Adagrad([W], lr=0.05)
x = torch.randn(512, 10)
y = torch.where(torch.rand(512) < 0.5, 1.0, -1.0)
for step in range(200):
    idx = torch.randint(0, 512, (64,))
    z = (x[idx] @ W).sum(1)
    loss = torch.log(1 + torch.exp(-y[idx] * z)).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 20 == 0:
        print(f"step {step} loss {loss.item():.4f}")
'''


def test_an_exp_in_a_raw_tensor_models_loss_is_named(tmp_path):
    p = tmp_path / "ffm.py"
    p.write_text(RAW)
    facts = {f.fact: f for f in analyze_code(p).findings}
    assert facts["unsafe_math"].value == ["exp_overflow"]
    assert "torch.exp" in facts["unsafe_math"].detail
    rep = diagnose_json("--code", str(p))
    assert "numerical_instability" in [c["id"] for c in rep["root_causes"][:3]]


def test_the_same_loss_through_softplus_is_not(tmp_path):
    p = tmp_path / "ffm.py"
    p.write_text(RAW.replace("torch.log(1 + torch.exp(-y[idx] * z))", "torch.nn.functional.softplus(-y[idx] * z)"))
    facts = {f.fact: f for f in analyze_code(p).findings}
    assert not facts.get("unsafe_math") or facts["unsafe_math"].value == []
