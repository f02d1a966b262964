"""A regression target left on its raw scale (prices in dollars): an MSE that starts in the billions
and crawls. From the finished run's console output and its script, the target's scale is the cause
named (unnormalized_inputs); the same script on a standardised target, with a loss near 1 that
crawls just as slowly, gets no such reading."""
import math

from conftest import diagnose_code_and_log, facts_by_id, top_cause

HOUSES = '''
import torch, torch.nn as nn
x = torch.randn(2000, 8)
price = 260000 + 60000 * x[:, :1] + 20000 * torch.randn(2000, 1)
net = nn.Sequential(nn.Linear(8, 30), nn.ReLU(), nn.Linear(30, 1))
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
mse = nn.MSELoss()
for epoch in range(300):
    for i in range(0, 2000, 32):
        opt.zero_grad(); loss = mse(net(x[i:i + 32]), price[i:i + 32]); loss.backward(); opt.step()
    if epoch % 25 == 24 or epoch == 0:
        print(f"Epoch {epoch + 1}/300 - loss: {loss.item():.4e}")
'''


def _log(level: float) -> str:
    # the loss creeps down by about 13% over the run, as a dollar-scale fit does at Adam's step size
    epochs = [1] + list(range(25, 301, 25))
    return "".join(f"Epoch {e}/300 - loss: {level * (1 - 0.13 * math.sqrt(e / 300)):.4e}\n" for e in epochs)


def test_an_mse_in_the_billions_that_crawls_is_a_raw_scale_target(tmp_path):
    rep = diagnose_code_and_log(tmp_path, HOUSES, _log(7.585e10))
    assert top_cause(rep) == "unnormalized_inputs"
    assert facts_by_id(rep)["loss_function"]["value"] == "mse"


def test_the_same_crawl_near_unit_scale_is_not_blamed_on_the_target(tmp_path):
    rep = diagnose_code_and_log(tmp_path, HOUSES.replace("260000 + 60000", "0.2 + 1.0").replace("20000 *", "0.3 *"),
                                _log(1.35))
    assert top_cause(rep) != "unnormalized_inputs"
