"""Finished runs read from their console output and script together: one test per class of miss
found on the tuned finished-run splits (session 8), each on a run written here.

- a print style naming only the split ("tr 1.37 | va 1.79") must still give the loss curves;
- a code smell that does not act (a frozen teacher's eval mode, a module with nothing that depends on
  the mode) must not name a cause on a healthy run;
- a log whose curve "looks fine" only because the first record averaged a blow-up must not read as
  a converged, healthy run;
- an unsafe-math smell (exp of a log-variance) on a run whose loss stays finite names nothing;
- a plateau that a mechanism in the code explains does not go to the catch-all missing LR decay;
- a base LR a decaying schedule lowered before the first print is no conflict with the log;
- elimination alone (every other cause argued away) names no cause;
- a per-step loss that cycles with the position in the epoch is read from the log (the epoch
  averages hide it), and shuffled noise or learning within an epoch is not.
Torch-free: the code reader never runs a script.
"""
import textwrap


from conftest import diagnose_json

from traindx.engine.frontends import gather
from traindx.probes.readers.code import analyze_code


def _diagnose(*args):
    return diagnose_json(*args)


def _log_facts(path):
    return {f.fact: f.value for f in gather.read_log(str(path)).findings}


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


# ----------------------------------------------------------------- a split named alone
def test_a_split_named_alone_is_that_splits_loss(tmp_path):
    lines = ["booting, 12k params"]
    tr = [1.9, 1.4, 1.1, 0.92, 0.81, 0.74, 0.70]
    va = [1.7, 1.3, 1.05, 0.95, 0.88, 0.84, 0.82]
    for i, (t, v) in enumerate(zip(tr, va), 1):
        lines.append(f"[{i}/7] tr={t:.3f} va={v:.3f} top1={40 + 5 * i:.1f}% (3.1s)")
    log = _write(tmp_path, "out.txt", "\n".join(lines) + "\n")
    facts = _log_facts(log)
    assert facts["initial_loss"] == 1.9
    assert 0.69 <= facts["train_loss"] <= 0.75      # the last few records
    assert 0.81 <= facts["val_loss"] <= 0.85
    assert facts["loss_trend"] in ("decreasing", "plateaued")


# ----------------------------------------------------------------- a code smell that does not act
TEACHER_SCRIPT = textwrap.dedent("""\
    import torch, torch.nn as nn, torch.nn.functional as F
    from torch.utils.data import DataLoader, TensorDataset
    x, y = torch.randn(512, 20), torch.randint(0, 4, (512,))
    xv, yv = torch.randn(128, 20), torch.randint(0, 4, (128,))
    loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
    big = nn.Sequential(nn.Linear(20, 128), nn.ReLU(), nn.Linear(128, 4))
    big_opt = torch.optim.SGD(big.parameters(), lr=0.05)
    for _ in range(3):
        for xb, yb in loader:
            big_opt.zero_grad()
            F.cross_entropy(big(xb), yb).backward()
            big_opt.step()
        with torch.no_grad():
            print("big acc", (big(xv).argmax(1) == yv).float().mean().item())
    big.eval()
    small = nn.Sequential(nn.Linear(20, 16), nn.ReLU(), nn.Dropout(0.2), nn.Linear(16, 4))
    opt = torch.optim.Adam(small.parameters(), lr=1e-3)
    def step_loss(xb, yb):
        with torch.no_grad():
            soft = F.softmax(big(xb) / 2.0, -1)
        out = small(xb)
        return F.kl_div(F.log_softmax(out / 2.0, -1), soft, reduction="batchmean") + F.cross_entropy(out, yb)
    for epoch in range(8):
        small.train()
        for xb, yb in loader:
            opt.zero_grad()
            loss = step_loss(xb, yb)
            loss.backward()
            opt.step()
        small.eval()
        with torch.no_grad():
            vl = F.cross_entropy(small(xv), yv).item()
        print(f"epoch {epoch} loss {loss.item():.4f} val_loss {vl:.4f}")
    """)


def test_a_frozen_teacher_in_eval_mode_is_no_train_eval_mismatch(tmp_path):
    """The teacher is trained first and then run, frozen, under no_grad in eval mode inside the
    student's step; its own validation ran in train mode but it has no dropout or BatchNorm. The
    student switches modes correctly. No mode finding may accuse the run."""
    script = _write(tmp_path, "kd.py", TEACHER_SCRIPT)
    f = {x.fact: x.value for x in analyze_code(str(script)).findings}
    assert f.get("model_mode_in_training") == "train"
    assert f.get("model_mode_in_validation") == "eval"


def test_validation_in_train_mode_of_a_module_with_dropout_is_still_found(tmp_path):
    src = TEACHER_SCRIPT.replace("    small.eval()\n", "")
    assert src != TEACHER_SCRIPT
    script = _write(tmp_path, "kd.py", src)
    f = {x.fact: x.value for x in analyze_code(str(script)).findings}
    assert f.get("model_mode_in_validation") == "train"


# ----------------------------------------------------------------- a blow-up averaged into the first record
def _keras(tmp_path, train, val):
    lines = []
    for i, (t, v) in enumerate(zip(train, val), 1):
        lines += [f"Epoch {i}/{len(train)}",
                  f"40/40 [==============================] - 1s 9ms/step - loss: {t:.4f} - val_loss: {v:.4f}"]
    return _write(tmp_path, "keras.out", "\n".join(lines) + "\n")


def test_a_loss_frozen_since_a_blown_up_first_record_is_not_learning(tmp_path):
    train = [912.4] + [0.3127 + (0.0003 if i % 2 else 0.0) for i in range(9)]
    val = [0.3051] * 10
    log = _keras(tmp_path, train, val)
    f = _log_facts(log)
    assert f["loss_frozen"] is True
    rep = _diagnose("--log", str(log))
    assert rep["status"] != "healthy"
    assert rep["symptom"]["id"] == "not_learning"


def test_a_converged_loss_that_still_moves_stays_healthy(tmp_path):
    train = [2.1, 0.9, 0.52, 0.33, 0.22, 0.15, 0.11, 0.09, 0.085, 0.082]
    val = [1.9, 0.85, 0.5, 0.34, 0.25, 0.19, 0.16, 0.15, 0.148, 0.147]
    log = _keras(tmp_path, train, val)
    assert _log_facts(log)["loss_frozen"] is False
    assert _diagnose("--log", str(log))["status"] == "healthy"


# ----------------------------------------------------------------- a code smell that did not act
def test_an_exp_that_could_overflow_names_nothing_on_a_run_whose_loss_stays_finite(tmp_path):
    script = _write(tmp_path, "vae.py", textwrap.dedent("""\
        import torch, torch.nn as nn
        from torch.utils.data import DataLoader, TensorDataset
        x = torch.rand(600, 30)
        loader = DataLoader(TensorDataset(x), batch_size=40, shuffle=True)
        enc, dec = nn.Linear(30, 8), nn.Sequential(nn.Linear(4, 30), nn.Sigmoid())
        opt = torch.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=1e-3)
        for epoch in range(10):
            for (xb,) in loader:
                mu, logvar = enc(xb).chunk(2, -1)
                z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
                rec = nn.functional.binary_cross_entropy(dec(z), xb, reduction="sum") / len(xb)
                kl = -0.5 * torch.mean(torch.sum(1 + logvar - mu ** 2 - logvar.exp(), -1))
                loss = rec + kl
                opt.zero_grad()
                loss.backward()
                opt.step()
            print(f"epoch {epoch} loss {loss.item():.3f}")
        """))
    vals = [21.3, 20.6, 20.5, 20.45, 20.41, 20.40, 20.38, 20.37, 20.37, 20.36]
    log = _write(tmp_path, "vae.log", "".join(f"epoch {i} loss {v:.3f}\n" for i, v in enumerate(vals)))
    rep = _diagnose("--code", str(script), "--log", str(log))
    ranked = {c["id"]: c["confidence"] for c in rep["root_causes"]}
    assert ranked.get("numerical_instability", 0) < 0.1
    assert rep["status"] != "diagnosed" or rep["root_causes"][0]["id"] != "numerical_instability"


# ----------------------------------------------------------------- a plateau the code explains
def test_heavy_coupled_weight_decay_explains_a_plateau_before_a_missing_decay(tmp_path):
    script = _write(tmp_path, "train.py", textwrap.dedent("""\
        import torch, torch.nn as nn
        from torch.utils.data import DataLoader, TensorDataset
        x, y = torch.randn(800, 12), torch.randint(0, 3, (800,))
        loader = DataLoader(TensorDataset(x, y), batch_size=50, shuffle=True)
        net = nn.Sequential(nn.Linear(12, 48), nn.ReLU(), nn.Linear(48, 3))
        opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=0.25)
        lossf = nn.CrossEntropyLoss()
        for ep in range(14):
            for xb, yb in loader:
                opt.zero_grad()
                l = lossf(net(xb), yb)
                l.backward()
                opt.step()
            print(f"ep {ep} train_loss {l.item():.4f} lr 0.05")
        """))
    train = [1.09, 0.98, 0.93, 0.91, 0.905, 0.903, 0.904, 0.902, 0.903, 0.904, 0.902, 0.903, 0.904, 0.903]
    log = _write(tmp_path, "run.log", "".join(f"ep {i} train_loss {t:.4f} lr 0.05\n" for i, t in enumerate(train)))
    rep = _diagnose("--code", str(script), "--log", str(log))
    assert rep["symptom"]["id"] == "plateau"
    ranked = [c["id"] for c in rep["root_causes"]]
    assert ranked.index("excessive_regularization") < ranked.index("missing_lr_decay")


# ----------------------------------------------------------------- conflicts between the sources
def _lr_script(tmp_path, lr, sched):
    return _write(tmp_path, "train.py", textwrap.dedent(f"""\
        import torch, torch.nn as nn
        from torch.utils.data import DataLoader, TensorDataset
        x, y = torch.randn(400, 6), torch.randint(0, 2, (400,))
        loader = DataLoader(TensorDataset(x, y), batch_size=40, shuffle=True)
        net = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2))
        opt = torch.optim.SGD(net.parameters(), lr={lr})
        {sched}
        for ep in range(6):
            for xb, yb in loader:
                opt.zero_grad()
                loss = nn.functional.cross_entropy(net(xb), yb)
                loss.backward()
                opt.step()
            sched.step() if 'sched' in dir() else None
            print(f"ep {{ep}} loss {{loss.item():.4f}} lr {{opt.param_groups[0]['lr']:.2e}}")
        """))


def test_a_decaying_schedule_lowering_the_lr_before_the_first_print_is_no_conflict(tmp_path):
    script = _lr_script(tmp_path, 0.2, "sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.3)")
    lrs = [0.06 * 0.3 ** i for i in range(6)]
    losses = [0.69, 0.6, 0.55, 0.53, 0.52, 0.52]
    log = _write(tmp_path, "run.log", "".join(f"ep {i} loss {l:.4f} lr {r:.2e}\n"
                                               for i, (l, r) in enumerate(zip(losses, lrs))))
    rep = _diagnose("--code", str(script), "--log", str(log))
    assert not [c for c in rep["conflicts"] if c["fact"] == "learning_rate"]


def test_a_constant_lr_in_the_log_far_from_the_scripts_is_a_conflict(tmp_path):
    script = _lr_script(tmp_path, 0.001, "")
    losses = [0.69, 0.6, 0.55, 0.53, 0.52, 0.52]
    log = _write(tmp_path, "run.log", "".join(f"ep {i} loss {l:.4f} lr 1.00e-01\n"
                                               for i, l in enumerate(losses)))
    rep = _diagnose("--code", str(script), "--log", str(log))
    assert [c for c in rep["conflicts"] if c["fact"] == "learning_rate"]


# ----------------------------------------------------------------- elimination alone names nothing
def test_a_floor_under_a_constant_lr_with_validation_at_its_best_names_no_cause(tmp_path):
    """Clean code (Adam at 1e-3, shuffled, zero_grad, nothing frozen) and a loss that fell and
    levelled off with validation beside it: a run at its label-noise floor looks exactly like one an
    LR decay would help, and nothing supports the missing decay beyond the constant LR. No cause is
    named; since session 16 (finish12) the run reads healthy, its validation loss ending within its own
    noise of its best (``val_at_best``), where it used to be left undecided with the decay ranked first."""
    script = _write(tmp_path, "train.py", textwrap.dedent("""\
        import torch, torch.nn as nn
        from torch.utils.data import DataLoader, TensorDataset
        x, y = torch.randn(900, 10), torch.randint(0, 3, (900,))
        loader = DataLoader(TensorDataset(x, y), batch_size=30, shuffle=True)
        net = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 3))
        opt = torch.optim.Adam(net.parameters(), lr=1e-3)
        for ep in range(15):
            for xb, yb in loader:
                opt.zero_grad()
                loss = nn.functional.cross_entropy(net(xb), yb)
                loss.backward()
                opt.step()
        """))
    train = [1.08, 0.86, 0.74, 0.69, 0.665, 0.652, 0.648, 0.650, 0.645, 0.647, 0.646, 0.649, 0.644, 0.646, 0.645]
    val = [1.0, 0.80, 0.71, 0.68, 0.668, 0.661, 0.659, 0.660, 0.658, 0.659, 0.661, 0.659, 0.66, 0.659, 0.66]
    log = _write(tmp_path, "run.log", "".join(f"epoch {i} | train_loss {t:.4f} | val_loss {v:.4f} | lr 1.0e-03\n"
                                               for i, (t, v) in enumerate(zip(train, val))))
    rep = _diagnose("--code", str(script), "--log", str(log))
    assert rep["status"] == "healthy"
    assert all(c["confidence"] < 0.5 for c in rep["root_causes"])


# ----------------------------------------------------------------- a curve fact the epoch averages hide
def _iter_log(tmp_path, per_step, n_epochs=7, per_epoch=8):
    lines = ["data: 4000 rows, 5 classes"]
    for ep in range(1, n_epochs + 1):
        for it in range(1, per_epoch + 1):
            lines.append(f"ep {ep:02d} it {it * 10}/{per_epoch * 10} | loss {per_step(ep, it):.4f}")
        lines.append(f"ep {ep:02d} finished | val_loss {1.5 * 0.85 ** ep:.4f}")
    return _write(tmp_path, "iters.log", "\n".join(lines) + "\n")


def test_a_loss_that_cycles_with_the_position_in_the_epoch_is_read_as_periodic(tmp_path):
    """Class-sorted data without shuffling: within every epoch the loss climbs as the batches move
    from one class to the next, and drops back when the epoch starts again — while the epoch
    averages fall smoothly."""
    import math
    log = _iter_log(tmp_path, lambda ep, it: 1.4 * 0.9 ** ep * (1 + 0.35 * math.sin(it / 8 * 2 * math.pi)))
    facts = _log_facts(log)
    assert facts.get("oscillation_pattern") == "periodic"
    rep = _diagnose("--log", str(log))
    assert rep["symptom"]["id"] == "instability"


def test_shuffled_batch_noise_and_learning_within_an_epoch_are_not_a_cycle(tmp_path):
    import random
    rng = random.Random(3)
    noisy = _iter_log(tmp_path, lambda ep, it: 1.4 * 0.9 ** (ep + it / 8) * (1 + 0.3 * (rng.random() - 0.5)))
    assert _log_facts(noisy).get("oscillation_pattern") is None
    smooth = _iter_log(tmp_path, lambda ep, it: 1.6 * 0.8 ** (ep + it / 8))
    assert _log_facts(smooth).get("oscillation_pattern") is None


def _running_mean_log(tmp_path, n_epochs=8, per_epoch=40, seed=5):
    """A progress bar's postfix: each epoch prints the running mean of its batch losses so far
    (``running_loss / (i + 1)``), which restarts from one batch when the next epoch begins."""
    import random
    rng = random.Random(seed)
    means = {}
    for ep in range(1, n_epochs + 1):
        tot = 0.0
        for it in range(1, per_epoch + 1):
            tot += 2.5 * 0.75 ** (ep - 1 + it / per_epoch) * (1 + 0.8 * (rng.random() - 0.5))
            means[ep, it] = tot / it
    return _iter_log(tmp_path, lambda ep, it: means[ep, it], n_epochs, per_epoch)


def test_an_epochs_running_mean_is_not_read_as_a_cycle_with_the_epoch(tmp_path):
    """Its restart each epoch is a saw-tooth with the position in the epoch, but the batches are
    shuffled: a healthy run, not the instability of data in a fixed order (fails before session 45)."""
    log = _running_mean_log(tmp_path)
    assert _log_facts(log).get("oscillation_pattern") is None
    rep = _diagnose("--log", str(log))
    assert (rep["symptom"] or {}).get("id") != "instability"


def test_a_per_batch_cycle_with_many_batches_per_epoch_is_still_periodic(tmp_path):
    import math
    log = _iter_log(tmp_path, lambda ep, it: 1.4 * 0.9 ** ep * (1 + 0.35 * math.sin(it / 40 * 2 * math.pi)),
                    per_epoch=40)
    assert _log_facts(log).get("oscillation_pattern") == "periodic"
