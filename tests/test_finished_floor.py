"""Finished runs whose curves read healthy beside their scripts: a loss levelled at the floor of its
data under a held LR with validation settled beside it, a block's last layer started at zero, and
layers frozen at their random initialisation (torch-free: the code reader never runs the script)."""
import math
import textwrap

from conftest import diagnose_json


def _console(path, lr_at):
    """A per-step console log: a loss that falls from ~0.9 to a noisy floor of ~0.47 by step 100
    and stays there to step 400, the LR printed with it, and a validation loss every 50 steps
    whose best is the last."""
    lines = []
    for s in range(1, 401):
        wobble = 0.04 * math.sin(s * 1.7) + 0.02 * math.cos(s * 0.37)
        loss = 0.47 + 0.45 * math.exp(-s / 25) + wobble
        if s % 10 == 0:
            lines.append(f"step {s} loss {loss:.4f} lr {lr_at(s):.3e}")
        if s % 50 == 0:
            lines.append(f"eval step {s} val_loss {0.48 + 0.4 * math.exp(-s / 25) - 0.00002 * s:.4f}")
    path.write_text("\n".join(lines) + "\n")
    return path


SCRIPT = textwrap.dedent("""\
    import torch, torch.nn as nn
    x = torch.randn(4000, 2)
    model = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 2))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(400):
        opt.zero_grad()
        noise = torch.randn_like(x[:128])
        loss = ((model(x[:128] + noise) - noise) ** 2).mean()
        loss.backward()
        opt.step()
    """)


def test_a_loss_at_its_floor_under_a_held_lr_with_validation_at_its_best_is_healthy(tmp_path):
    """A denoising loss that lost half its value and levelled off at its noise floor, the LR held
    at 1e-3 throughout and validation at its best at the end: the run converged, not a plateau."""
    log = _console(tmp_path / "console.log", lambda s: 1e-3)
    code = tmp_path / "train.py"
    code.write_text(SCRIPT)
    rep = diagnose_json("--code", str(code), "--log", str(log))
    assert rep["status"] == "healthy", (rep["status"], rep.get("symptom"))


def test_the_same_floor_after_the_lr_collapsed_stays_a_plateau(tmp_path):
    """The same curve under an LR a schedule drove to ~0 by step 80 is no floor of the data: the
    run stopped learning because its LR did (a plateau)."""
    log = _console(tmp_path / "console.log", lambda s: 1e-3 if s < 80 else 1e-11)
    rep = diagnose_json("--log", str(log))
    assert rep["symptom"]["id"] == "plateau"


COUPLING = textwrap.dedent("""\
    import torch, torch.nn as nn

    class Coupling(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 4))
            nn.init.zeros_(self.net[-1].weight)
            nn.init.zeros_(self.net[-1].bias)

        def forward(self, x):
            s, t = self.net(x).chunk(2, dim=1)
            return x * torch.exp(torch.tanh(s)) + t

    model = Coupling()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(4000, 2)
    for step in range(400):
        opt.zero_grad()
        loss = model(x[:128]).pow(2).mean()
        loss.backward()
        opt.step()
    """)


def test_a_block_whose_last_layer_starts_at_zero_is_no_bad_initialization(tmp_path):
    """Zeroing the last layer of a coupling network (the identity start of RealNVP/Glow) breaks
    no symmetry: with a healthy log the run reads healthy, no bad_initialization over it."""
    log = _console(tmp_path / "console.log", lambda s: 1e-3)
    code = tmp_path / "train.py"
    code.write_text(COUPLING)
    rep = diagnose_json("--code", str(code), "--log", str(log))
    assert rep["status"] == "healthy"
    assert all(c["id"] != "bad_initialization" or c["confidence"] < 0.5 for c in rep["root_causes"])


FROZEN = textwrap.dedent("""\
    import torch, torch.nn as nn
    x = torch.randn(4000, 2)
    model = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))
    # train the head first; the rest of the network stays fixed
    for name, p in model.named_parameters():
        if not name.startswith("4."):
            p.requires_grad = False
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(400):
        opt.zero_grad()
        noise = torch.randn_like(x[:128])
        loss = ((model(x[:128] + noise) - noise) ** 2).mean()
        loss.backward()
        opt.step()
    """)


def test_layers_frozen_at_their_random_init_name_frozen_parameters(tmp_path):
    """Every layer but the head frozen before any training, no weights loaded, never unfrozen: the
    body stays random and the loss levels off early on the head alone — frozen_parameters."""
    train = [0.95 - 0.3 * (1 - math.exp(-i / 3)) + 0.002 * math.sin(i) for i in range(40)]
    log = tmp_path / "console.log"
    log.write_text("".join(f"Epoch {i + 1}/40 - loss: {t:.4f} - val_loss: {t + 0.01:.4f}\n"
                           for i, t in enumerate(train)))
    code = tmp_path / "train.py"
    code.write_text(FROZEN)
    rep = diagnose_json("--code", str(code), "--log", str(log))
    assert rep["status"] == "diagnosed" and rep["root_causes"][0]["id"] == "frozen_parameters"


def test_per_batch_swings_that_grow_while_validation_keeps_improving_are_healthy(tmp_path):
    """Batch-8 losses spread more as the model grows confident on some batches (swings that grow
    while the mean falls), but every epoch's validation loss is lower than the last: the swings
    cost nothing held out — healthy, not instability."""
    lines = []
    for e in range(1, 7):
        for k in range(1, 6):
            t = e - 1 + k / 5
            mean = 1.15 - 0.13 * t
            swing = (0.02 + 0.05 * t) * (1 if (e * 5 + k) % 3 == 0 else -0.8 if (e * 5 + k) % 3 == 1 else 0.3)
            lines.append(f"{{'loss': {mean + swing:.4f}, 'learning_rate': 0.0005, 'epoch': {t:.1f}}}")
        lines.append(f"{{'epoch': {e}, 'train_loss': {1.15 - 0.11 * (e - 0.5):.4f}, "
                     f"'train_acc': {0.35 + 0.08 * e:.4f}, 'val_loss': {1.05 - 0.1 * e:.4f}, "
                     f"'val_acc': {0.40 + 0.075 * e:.4f}}}")
    log = tmp_path / "console.log"
    log.write_text("\n".join(lines) + "\n")
    rep = diagnose_json("--log", str(log))
    assert rep["status"] == "healthy", (rep["status"], rep.get("symptom"))


SORTED = textwrap.dedent("""\
    import torch, torch.nn as nn
    from torch.utils.data import DataLoader, TensorDataset
    x, y = torch.randn(2000, 16), torch.randint(0, 5, (2000,))
    order = torch.argsort(y)
    x, y = x[order], y[order]
    loader = DataLoader(TensorDataset(x, y), batch_size=50, shuffle=False)
    model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 5))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(8):
        for xb, yb in loader:
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
    """)


def test_class_sorted_batches_never_shuffled_explain_a_loss_at_chance(tmp_path):
    """Rows sorted by label and never shuffled: each block of batches pulls the model to its class,
    so the epoch's mean loss stays at chance (ln 5) — not learning, from unshuffled data."""
    log = tmp_path / "console.log"
    log.write_text("".join(f"epoch {e} train_loss {1.612 - 0.001 * (e % 3):.4f} val_loss {1.63 + 0.002 * (e % 2):.4f} "
                           f"val_acc {0.2 + 0.004 * (e % 2):.3f}\n" for e in range(1, 9)))
    code = tmp_path / "train.py"
    code.write_text(SORTED)
    rep = diagnose_json("--code", str(code), "--log", str(log))
    assert rep["symptom"]["id"] == "not_learning"
    assert rep["status"] == "diagnosed" and rep["root_causes"][0]["id"] == "unshuffled_data"
