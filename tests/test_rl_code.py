"""A training script that rolls out a policy in an environment of its own is reinforcement learning,
out of traindx's scope, however its variables are named: the transition a ``step(action)`` hands
back (observation, reward, end flag) is the mark. A supervised script whose optimizer steps with a
closure is not."""
from conftest import diagnose_json

RL_SCRIPT = '''
import torch, torch.nn as nn

class Track:
    def reset(self):
        self.x = 0.0; self.t = 0
        return torch.tensor([self.x])
    def step(self, a):
        self.x += 0.01 * (a - 1); self.t += 1
        return torch.tensor([self.x]), -1.0, self.t >= 50

sim = Track()
net = nn.Sequential(nn.Linear(1, 16), nn.ReLU(), nn.Linear(16, 3))
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
for it in range(20):
    s = sim.reset(); lps, rs = [], []
    fin = False
    while not fin:
        d = torch.distributions.Categorical(logits=net(s))
        a = d.sample(); lps.append(d.log_prob(a))
        s, r, fin = sim.step(a.item())
        rs.append(r)
    g = torch.tensor(rs).flip(0).cumsum(0).flip(0)
    loss = -(torch.stack(lps) * (g - g.mean())).sum()
    opt.zero_grad(); loss.backward(); opt.step()
    print(f"it {it} loss {loss.item():.3f}")
'''

SUPERVISED = '''
import torch, torch.nn as nn
x = torch.randn(256, 4); y = x.sum(1, keepdim=True)
net = nn.Linear(4, 1)
opt = torch.optim.LBFGS(net.parameters())
def closure():
    opt.zero_grad(); l = ((net(x) - y) ** 2).mean(); l.backward(); return l
for i in range(30):
    loss = opt.step(closure)
    a, b, c = loss.item(), i, 0
    print(f"step {i} loss {loss.item():.4f}")
'''


def test_a_rollout_with_its_own_environment_is_deferred_as_rl(tmp_path):
    p = tmp_path / "pg.py"
    p.write_text(RL_SCRIPT)
    rep = diagnose_json("--code", str(p))
    assert rep["status"] == "out_of_scope"
    assert (rep.get("deferral") or {}).get("id") == "rl_training"
    assert not rep["root_causes"]


def test_an_optimizer_step_with_a_closure_is_not_an_environment(tmp_path):
    p = tmp_path / "fit.py"
    p.write_text(SUPERVISED)
    rep = diagnose_json("--code", str(p))
    assert (rep.get("deferral") or {}).get("id") != "rl_training"


EPISODES = "".join(f"Episode: {e} | Ep_r: {1.5 + (e % 7) * 0.4:.2f} | steps: {15 + e % 6}\n"
                   for e in range(0, 200, 5))


def test_an_rl_scripts_console_without_a_supervised_metric_keeps_the_codes_deferral(tmp_path):
    """A finished RL run brought as its script plus what it printed: the console shows episode counters
    and an abbreviated reward, no loss. The code already says the run trains an agent, so the log is
    what such a run prints: the diagnosis defers as RL (exit 0) instead of refusing the log and
    losing the code's evidence. The same log alone is still bad input: one line naming it, exit 2."""
    from click.testing import CliRunner

    from traindx.engine.frontends.cli import main
    code, log = tmp_path / "pg.py", tmp_path / "console.log"
    code.write_text(RL_SCRIPT)
    log.write_text("Collecting experience...\n" + EPISODES)
    rep = diagnose_json("--code", str(code), "--log", str(log))
    assert rep["status"] == "out_of_scope"
    assert (rep.get("deferral") or {}).get("id") == "rl_training"
    assert any("console.log" in c and "no training metrics" in c for c in rep["caveats"])
    res = CliRunner().invoke(main, ["diagnose", "--log", str(log), "--non-interactive", "--format", "json"])
    assert res.exit_code == 2
    err = res.stderr if hasattr(res, "stderr") else res.output
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert len(lines) == 1 and str(log) in lines[0] and "no training metrics" in lines[0]
