"""traindx diagnose --script / --setup: real child processes on small real scripts.

What a user would notice: the script runs as it would on its own (same arguments, same folder on
sys.path, same results bit for bit), evidence arrives, the run stops at --max-steps, when the
evidence decides, or at --timeout -- and then nothing it started is left running --, a crash
becomes evidence, and a bad path or a syntax error is one line naming the file and line.

Most process-level tests use a recording stand-in for the Monitor (tests/fixtures_runner/
fake_monitor.py, passed to the child as ``monitor="fake_monitor:FakeMonitor"``) so that they test
the runner, not the probes; the bit-for-bit test runs the real Monitor.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from traindx.engine.errors import InputError
from traindx.engine.evidence import Finding
from traindx.probes.runner.supervise import RunResult, classify_crash, run_script

FIXTURES = Path(__file__).parent / "fixtures_runner"
FAKE = "fake_monitor:FakeMonitor"
FAKE_ENV = {"PYTHONPATH": os.pathsep.join([str(FIXTURES), os.environ.get("PYTHONPATH", "")])}


def write(path: Path, source: str) -> Path:
    path.write_text(textwrap.dedent(source))
    return path


def alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie waiting to be reaped is dead)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except FileNotFoundError:
        return False
    except OSError:  # pragma: no cover - no /proc
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat[stat.rfind(b")") + 2:].split()[0] not in (b"Z", b"X")


def wait_dead(pids, seconds=2.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if alive(p)]


def run_fake(path, args=(), **kw) -> RunResult:
    return run_script(path, args, monitor=FAKE, env=FAKE_ENV, **kw)


TRAIN = """\
    import os, sys
    os.environ["OMP_NUM_THREADS"] = "1"            # read when torch is imported
    import torch, torch.nn as nn, torch.nn.functional as F
    from torch.utils.data import DataLoader, TensorDataset
    import helper                                  # lives next to the script

    print("argv", sys.argv[1:])
    print("cwd", os.getcwd())
    print("threads", torch.get_num_threads())
    torch.manual_seed(0)
    X = torch.randn(256, 8); y = (X[:, 0] > 0).long()
    train = DataLoader(TensorDataset(X, y), batch_size=32, shuffle=True)
    val = DataLoader(TensorDataset(X[:64], y[:64]), batch_size=32)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    for epoch in range(int(sys.argv[1])):
        model.train()
        for xb, yb in train:
            opt.zero_grad()
            loss = crit(model(xb), yb)
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            for xb, yb in val:
                F.cross_entropy(model(xb), yb)
        print("epoch", epoch, flush=True)
    print("done", helper.VALUE)
"""


@pytest.fixture(scope="module")
def train_script(tmp_path_factory):
    d = tmp_path_factory.mktemp("train")
    write(d / "helper.py", "VALUE = 42\n")
    return write(d / "train.py", TRAIN)


@pytest.fixture(scope="module")
def normal_run(train_script, tmp_path_factory):
    """One ordinary 3-epoch run (8 steps an epoch), from a different working directory."""
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    old = os.getcwd()
    os.chdir(elsewhere)
    try:
        return run_fake(train_script, ["3", "--flag"]), elsewhere
    finally:
        os.chdir(old)


# --------------------------------------------------------------------------------------------
# an ordinary run

def test_normal_run_finishes_with_findings_and_counted_steps(normal_run):
    r, elsewhere = normal_run
    assert r.stopped_reason == "finished" and r.exit_code == 0 and r.crash is None
    assert r.steps == 24
    assert all(isinstance(f, Finding) for f in r.findings)
    assert r.finding("train_loss").value > 0
    assert r.finding("optimizer").value == "sgd"
    assert r.probe_errors == []
    assert r.wall_s > 0


def test_script_runs_as_python_would_run_it(normal_run):
    r, elsewhere = normal_run
    out = r.stdout_tail.splitlines()
    assert "argv ['3', '--flag']" in out             # the arguments after --
    assert f"cwd {elsewhere}" in out                  # the working directory is unchanged
    assert out[-1] == "done 42"                       # its own folder is on sys.path
    assert "threads 1" in out                         # traindx imported torch no earlier than it
    assert r.stderr_tail == ""


def test_model_optimizer_and_loss_are_found(normal_run):
    r, _ = normal_run
    s = r.summary
    assert s["model"] == "Sequential" and s["model_params"] == 8 * 16 + 16 + 16 * 2 + 2
    assert s["optimizer"] == "SGD"
    assert s["calls"]["bind"] == 1 and s["calls"]["attach"] == 1
    train = [l for l in s["losses"] if l[0] == "train"]
    assert len(train) == 24
    assert {l[2] for l in train} == {"CrossEntropyLoss"}
    assert train[0][3] == [32, 2] and train[0][4] == [32]      # outputs and targets came along


def test_validation_loss_under_no_grad_is_phase_val(normal_run):
    r, _ = normal_run
    val = [l for l in r.summary["losses"] if l[0] == "val"]
    assert len(val) == 3 * 2                          # 2 validation batches an epoch
    assert {l[2] for l in val} == {"cross_entropy"}  # the functional loss, seen without backward
    assert r.finding("val_loss").extra["loss_name"] == "cross_entropy"
    assert set(r.summary["batch_phases"]) == {"train", "val"}


# --------------------------------------------------------------------------------------------
# stopping early

def test_max_steps_stops_at_exactly_that_step(train_script):
    r = run_fake(train_script, ["1000"], max_steps=5)
    assert r.stopped_reason == "max_steps" and r.exit_code == 0
    assert r.steps == 5
    # stopped before the 6th update: that batch's loss may be seen, its step never happens
    assert len([l for l in r.summary["losses"] if l[0] == "train"]) in (5, 6)
    assert "epoch" not in r.stdout_tail               # it never got through an epoch


def test_decide_stops_the_run_when_evidence_decides(train_script):
    seen = []

    def decide(findings, steps):
        assert steps >= 0
        seen.append({f.fact for f in findings})
        return len(seen) >= 2

    # grace: on a loaded machine the interpreter's exit after the stop can take seconds
    r = run_fake(train_script, ["1000"], decide=decide, every=2, grace=30)
    assert r.stopped_reason == "decided" and r.exit_code == 0
    assert len(seen) >= 2 and "train_loss" in seen[0]
    assert 0 < r.steps < 1000 * 8


@pytest.mark.slow
def test_timeout_stops_a_hanging_training_run(tmp_path):
    pidfile = tmp_path / "pids"
    script = write(tmp_path / "hang.py", """\
        import os, subprocess, sys, time
        import torch
        m = torch.nn.Linear(2, 1)
        opt = torch.optim.SGD(m.parameters(), lr=0.1)
        for _ in range(3):
            opt.zero_grad(); m(torch.randn(4, 2)).pow(2).mean().backward(); opt.step()
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)"])
        open(sys.argv[1], "w").write(f"{os.getpid()} {child.pid}")
        print("sleeping", flush=True)
        time.sleep(1000)
    """)
    # the 3 steps (torch imported) must come before the clock runs out, on a loaded machine too (a
    # full-suite run at load 14 on 2 cores took 60 s to start torch and take a step): the same steps
    # without the hang, timed now, size the clock -- five times what they took plus 15 s, at most 90 s
    # -- so that an idle machine does not sit out a fixed minute and a half
    warm = write(tmp_path / "steps.py", "\n".join(script.read_text().splitlines()[:6]) + "\n")
    t0 = time.monotonic()
    assert run_fake(warm, [], timeout=90).steps == 3
    timeout = min(90.0, 5 * (time.monotonic() - t0) + 15)
    t0 = time.monotonic()
    r = run_fake(script, [str(pidfile)], timeout=timeout, grace=1)
    assert time.monotonic() - t0 < timeout + 1 + 60        # stopped at the timeout, not left hanging
    assert r.stopped_reason == "timeout" and r.crash is None
    assert r.steps == 3
    assert r.finding("train_loss") is not None        # findings sent on the way out
    assert r.stdout_tail == "sleeping"
    pids = [int(p) for p in pidfile.read_text().split()]
    assert wait_dead(pids) == []


def test_timeout_kills_the_whole_process_tree(tmp_path):
    """The script ignores SIGTERM, and so does a grandchild that left the process group."""
    pidfile = tmp_path / "pids"
    script = write(tmp_path / "stubborn.py", """\
        import os, signal, subprocess, sys, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        ignore = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(1000)"
        a = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)"])
        b = subprocess.Popen([sys.executable, "-c", ignore], start_new_session=True)
        open(sys.argv[1], "w").write(f"{os.getpid()} {a.pid} {b.pid}")
        while True:
            try:
                time.sleep(1000)
            except BaseException:
                pass
    """)
    # room to start three interpreters on a loaded machine (nothing here imports torch: 0.5 s idle)
    r = run_fake(script, [str(pidfile)], timeout=20, grace=0.5)
    assert r.stopped_reason == "timeout"
    assert r.exit_code == -signal.SIGKILL
    pids = [int(p) for p in pidfile.read_text().split()]
    assert len(pids) == 3
    assert wait_dead(pids) == []


def test_a_daemon_the_script_double_forked_is_stopped_with_the_run(tmp_path):
    """The classic daemon: fork, setsid, fork again, the middle process exits at once -- the
    grandchild was reparented to init before the parent ever saw it, and outlived traindx."""
    pidfile = tmp_path / "pid"
    script = write(tmp_path / "daemonize.py", """\
        import os, sys, time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                open(sys.argv[1], "w").write(str(os.getpid()))
                time.sleep(1000)
            os._exit(0)
        os.wait()
        while not os.path.exists(sys.argv[1]):
            time.sleep(0.01)
        print("step 1 loss 2.0")
    """)
    r = run_fake(script, [str(pidfile)], timeout=60)
    assert r.stopped_reason == "finished"
    assert wait_dead([int(pidfile.read_text())], seconds=5) == []


# --------------------------------------------------------------------------------------------
# crashes are evidence; bad input is an InputError

def test_crash_becomes_shape_error_evidence(tmp_path):
    script = write(tmp_path / "crash.py", """\
        import torch, torch.nn as nn
        model = nn.Linear(10, 5)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for step in range(5):
            x = torch.randn(4, 10 if step < 2 else 7)
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()
    """)
    r = run_fake(script)
    assert r.stopped_reason == "crashed" and r.exit_code == 1
    assert r.steps == 2
    kind, message = r.finding("error_kind"), r.finding("error_message")
    assert kind.value == "shape_error" and kind.source == "probe:crash"
    assert message.value == "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x7 and 10x5)"
    assert message.source == "probe:crash"
    assert r.crash["file"] == str(script.resolve()) and r.crash["line"] == 7
    # the user sees their own traceback, not traindx's frames
    assert "Traceback" in r.stderr_tail and "_child.py" not in r.stderr_tail
    assert r.finding("train_loss") is not None        # evidence from before the crash is kept


def test_cuda_out_of_memory_is_cuda_oom(tmp_path):
    script = write(tmp_path / "oom.py", """\
        def forward():
            raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.90 GiB "
                               "total capacity; 14.20 GiB already allocated)")
        forward()
    """)
    r = run_fake(script)
    assert r.stopped_reason == "crashed"
    assert r.finding("error_kind").value == "cuda_oom"
    assert r.finding("error_message").value.startswith("RuntimeError: CUDA out of memory.")


def test_nonzero_exit_without_traceback_is_a_crash(tmp_path):
    script = write(tmp_path / "usage.py", """\
        import sys
        print("usage: train.py --data DIR", file=sys.stderr)
        sys.exit(2)
    """)
    r = run_fake(script)
    assert r.stopped_reason == "crashed" and r.exit_code == 2
    assert r.finding("error_kind").value == "other_error"
    assert "status 2" in r.finding("error_message").value


def test_syntax_error_is_input_error_naming_file_and_line(tmp_path):
    script = write(tmp_path / "broken.py", "import torch\n\ndef f(:\n    pass\n")
    with pytest.raises(InputError) as e:
        run_script(script)
    assert str(e.value).startswith(f"{script}:3:")
    assert "syntax error" in str(e.value) and "\n" not in str(e.value)


def test_syntax_error_in_an_imported_module_names_that_module(tmp_path):
    write(tmp_path / "helpers.py", "x = (\n")
    script = write(tmp_path / "main.py", "import helpers\n")
    with pytest.raises(InputError) as e:
        run_fake(script)
    assert str(e.value).startswith(f"{tmp_path / 'helpers.py'}:1:")


@pytest.mark.parametrize("name,content,expect", [
    ("missing.py", None, "no such file"),
    ("notes.txt", "just text\n", "not a Python file"),
    ("folder", "dir", "is a directory"),
])
def test_bad_script_path_is_input_error(tmp_path, name, content, expect):
    path = tmp_path / name
    if content == "dir":
        path.mkdir()
    elif content is not None:
        path.write_text(content)
    with pytest.raises(InputError) as e:
        run_script(path)
    assert str(path) in str(e.value) and expect in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("types,message,files,kind", [
    (["OutOfMemoryError", "RuntimeError"], "CUDA out of memory. Tried to allocate", [], "cuda_oom"),
    (["RuntimeError"], "CUDA error: device-side assert triggered", [], "cuda_error"),
    (["RuntimeError"], "Caught RuntimeError in DataLoader worker process 0.\nOriginal Traceback", [],
     "dataloader_error"),
    (["RuntimeError"], "stack expects each tensor to be equal size, but got [3] at entry 0",
     ["/x/site-packages/torch/utils/data/_utils/collate.py"], "dataloader_error"),
    (["RuntimeError"], "The size of tensor a (4) must match the size of tensor b (5)", [], "shape_error"),
    (["RuntimeError"], "Given groups=1, weight of size [8, 3, 3, 3], expected input[2, 1, 8, 8] "
     "to have 3 channels, but got 1 channels instead", [], "shape_error"),
    (["RuntimeError"], "expected scalar type Long but found Float", [], "dtype_error"),
    (["RuntimeError"], "mat1 and mat2 must have the same dtype, but got Double and Float", [],
     "dtype_error"),
    (["ModuleNotFoundError", "ImportError"], "No module named 'timm'", [], "import_error"),
    (["RuntimeError"], "[enforce fail at alloc_cpu.cpp:127] DefaultCPUAllocator: can't allocate "
     "memory", [], "other_error"),
    (["KeyError"], "'label'", [], "other_error"),
])
def test_classify_crash(types, message, files, kind):
    assert classify_crash(types, message, files) == kind


# --------------------------------------------------------------------------------------------
# never change the user's run

CHECKSUM = """\
    import hashlib, random, sys
    import torch, torch.nn as nn
    from torch.utils.data import DataLoader, TensorDataset
    torch.manual_seed(0); random.seed(0)
    X = torch.randn(256, 10); y = (X[:, 0] + 0.5 * X[:, 1] > 0).long()
    train = DataLoader(TensorDataset(X, y), batch_size=16, shuffle=True)
    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Dropout(0.3), nn.Linear(32, 2))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    crit = nn.CrossEntropyLoss()
    for epoch in range(4):
        model.train()
        for xb, yb in train:
            opt.zero_grad()
            crit(model(xb), yb).backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            crit(model(X[:64]), y[:64])
    h = hashlib.sha256()
    for p in model.parameters():
        h.update(p.detach().numpy().tobytes())
    h.update(repr((torch.rand(3).tolist(), random.random())).encode())   # RNG state after the run
    open(sys.argv[1], "w").write(h.hexdigest())
"""


@pytest.mark.slow
def test_results_are_bit_identical_with_and_without_instrumentation(tmp_path):
    pytest.importorskip("traindx.probes.live.monitor")
    script = write(tmp_path / "ck.py", CHECKSUM)
    plain, instrumented = tmp_path / "plain.txt", tmp_path / "instrumented.txt"
    subprocess.run([sys.executable, str(script), str(plain)], check=True, timeout=600)
    r = run_script(script, [str(instrumented)])      # the real Monitor, every cheap probe on
    assert r.stopped_reason == "finished" and r.steps == 4 * 16
    assert r.finding("train_loss") is not None and r.finding("val_loss") is not None
    assert r.probe_errors == []
    assert instrumented.read_text() == plain.read_text()


# --------------------------------------------------------------------------------------------
# --setup MODULE:FUNCTION

FACTORY = """\
    def make():
        import torch, torch.nn as nn
        from torch.utils.data import DataLoader, TensorDataset
        from traindx.probes.runner.setup_call import TrainingSetup
        torch.manual_seed(0)
        X = torch.randn(128, 6); y = (X[:, 0] > 0).long()
        model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 2))
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        return TrainingSetup(model=model, optimizer=opt, loss_fn=nn.CrossEntropyLoss(),
                             train_loader=DataLoader(TensorDataset(X, y), batch_size=32, shuffle=True),
                             val_loader=DataLoader(TensorDataset(X[:64], y[:64]), batch_size=32),
                             num_classes=2)

    def as_dict():
        s = make()
        return {"model": s.model, "optimizer": s.optimizer, "loss_fn": s.loss_fn,
                "train_loader": s.train_loader}

    def not_a_setup():
        return 42

    NOT_CALLABLE = 3
"""


def test_setup_factory_runs_a_short_instrumented_training(tmp_path, monkeypatch):
    from traindx.probes.runner.setup_call import run_setup

    write(tmp_path / "mysetup.py", FACTORY)
    monkeypatch.chdir(tmp_path)
    r = run_setup("mysetup:make", max_steps=10, monitor=FAKE, env=FAKE_ENV)
    assert r.stopped_reason == "finished" and r.exit_code == 0
    assert r.steps == 10
    s = r.summary
    assert s["num_classes"] == 2 and s["model"] == "Sequential" and s["optimizer"] == "SGD"
    phases = [l[0] for l in s["losses"]]
    assert phases.count("train") == 10 and "val" in phases     # a short validation pass
    assert r.finding("val_loss") is not None


@pytest.mark.parametrize("spec,expect", [
    ("mysetup", "expects MODULE:FUNCTION"),
    ("nosuchmodule:make", "module 'nosuchmodule' not found"),
    ("mysetup:missing", "has no attribute 'missing'"),
    ("mysetup:NOT_CALLABLE", "is not callable"),
    ("mysetup:not_a_setup", "returned int; expected a TrainingSetup"),
])
def test_bad_setup_spec_is_input_error(tmp_path, monkeypatch, spec, expect):
    from traindx.probes.runner.setup_call import run_setup

    write(tmp_path / "mysetup.py", FACTORY)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError) as e:
        run_setup(spec, max_steps=3, monitor=FAKE, env=FAKE_ENV)
    assert expect in str(e.value) and "\n" not in str(e.value)


def test_setup_training_leaves_the_users_objects_and_rng_untouched(tmp_path, monkeypatch):
    import torch

    from traindx.probes.runner.setup_call import coerce_setup, instrumented_training

    monkeypatch.syspath_prepend(str(FIXTURES))
    write(tmp_path / "mysetup_inproc.py", FACTORY)
    monkeypatch.syspath_prepend(str(tmp_path))
    from fake_monitor import FakeMonitor
    from mysetup_inproc import as_dict

    setup = coerce_setup(as_dict())
    before = [p.detach().clone() for p in setup.model.parameters()]
    rng = torch.get_rng_state()
    mon = FakeMonitor()
    state = instrumented_training(setup, mon, max_steps=6)
    assert state["steps"] == 6
    assert mon.model is not setup.model and mon.optimizer is not setup.optimizer
    assert all(torch.equal(a, b) for a, b in zip(before, setup.model.parameters()))
    assert all(p.grad is None for p in setup.model.parameters())
    assert len(setup.optimizer.state) == 0
    assert torch.equal(torch.get_rng_state(), rng)
    assert not any(torch.equal(a, b) for a, b in zip(before, mon.model.parameters()))


# --------------------------------------------------------------------------------------------
# the instrumentation itself, installed in this process around a recording monitor

@pytest.fixture
def instrumented(monkeypatch):
    pytest.importorskip("torch")
    from traindx.probes.runner import child as _child

    monkeypatch.syspath_prepend(str(FIXTURES))
    state = _child._State()
    state.split_batch = _child._split_batch
    state.monitor_spec = FAKE
    monkeypatch.setattr(_child, "_S", state)
    _child.install()
    try:
        yield state
    finally:
        _child.uninstall()


def _step(model, opt, loss):
    opt.zero_grad()
    loss.backward()
    opt.step()


def test_each_kind_of_loss_reaches_the_monitor_with_its_phase(instrumented):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    x, y = torch.randn(16, 4), torch.randint(0, 3, (16,))

    _step(model, opt, crit(model(x), y))                                   # 1 module loss
    with torch.no_grad():
        crit(model(x), y)                                                  # 2 validation
    model.eval()
    crit(model(x), y)                                                      # 3 eval mode, no backward
    model.train()
    _step(model, opt, F.cross_entropy(model(x), y) + 0.01 * model[0].weight.pow(2).sum())  # 4
    _step(model, opt, model(x).pow(2).mean())                              # 5 hand-written
    scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
    loss = crit(model(x), y)                                               # 6 scaled by GradScaler
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()

    mon = instrumented.monitor
    got = [(phase, name) for phase, _, name, _, _ in mon.losses]
    assert got == [("train", "CrossEntropyLoss"), ("val", "CrossEntropyLoss"),
                   ("val", "CrossEntropyLoss"), ("train", "cross_entropy"), ("train", "custom"),
                   ("train", "CrossEntropyLoss")]
    assert mon.losses[5][1] == pytest.approx(float(loss.detach()))        # unscaled
    assert mon.losses[0][3] == [16, 3] and mon.losses[0][4] == [16]
    assert instrumented.steps == 4 and mon.model is model and mon.optimizer is opt


def test_a_masked_elementwise_validation_loss_is_no_accuracy_source(instrumented):
    """A detector's validation loss: box terms computed with reduction='none' and multiplied by an
    object mask. Thresholding every element would score cells the loss ignores (a healthy YOLO run
    read as 54% validation accuracy beside 99% training accuracy: Overfitting), so such a loss reaches
    the monitor without outputs; a per-example elementwise loss (one value per row) keeps them."""
    import torch
    import torch.nn.functional as F

    torch.manual_seed(0)
    pred, target = torch.randn(4, 5, 5, 2), torch.zeros(4, 5, 5, 2)
    mask = torch.zeros(4, 5, 5, 1)
    logits, labels = torch.randn(8, 3), torch.randint(0, 3, (8,))
    with torch.no_grad():
        (mask * F.binary_cross_entropy_with_logits(pred, target, reduction="none")).sum()
        F.cross_entropy(logits, labels, reduction="none").mean()
    got = [(name, shape, tshape) for _, _, name, shape, tshape in instrumented.monitor.losses]
    assert got == [("binary_cross_entropy_with_logits", None, [4, 5, 5, 2]), ("cross_entropy", [8, 3], [8])]


def test_the_model_bound_is_the_root_module_that_ran(instrumented):
    import torch
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
            self.head = nn.Linear(4, 2)

        def forward(self, x):
            return self.head(self.body(x))

    trained, other = Net(), Net()
    # the classic bug: the optimizer holds another instance's parameters
    opt = torch.optim.SGD(other.parameters(), lr=0.1)
    _step(trained, opt, trained(torch.randn(8, 4)).sum())
    assert instrumented.monitor.model is trained


def test_uninstall_leaves_torch_as_it_was():
    torch = pytest.importorskip("torch")
    import torch.nn.functional as F
    from torch.nn.modules import module as module_mod
    from torch.nn.modules.loss import _Loss
    from torch.optim import optimizer as optim_mod
    from torch.utils.data import dataloader as dl_mod

    from traindx.probes.runner import child as _child

    def snapshot():
        return (torch.Tensor.backward, F.cross_entropy, F.mse_loss, "__call__" in _Loss.__dict__,
                dl_mod.DataLoader.__iter__, dl_mod._BaseDataLoaderIter.__next__,
                torch.amp.GradScaler.scale, len(optim_mod._global_optimizer_pre_hooks),
                len(optim_mod._global_optimizer_post_hooks), len(module_mod._global_forward_pre_hooks))

    before = snapshot()
    saved = _child._S
    _child._S = _child._State()
    _child._S.monitor_spec = "no_such_module:Monitor"   # instrumentation must survive this
    try:
        _child.install()
        assert snapshot() != before
    finally:
        _child.uninstall()
        _child._S = saved
    assert snapshot() == before


@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")
def test_torchscript_still_compiles_functional_losses(instrumented, tmp_path, monkeypatch):
    import torch

    write(tmp_path / "scripted_loss.py", """\
        import torch
        import torch.nn.functional as F

        @torch.jit.script
        def loss(o: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
            return F.cross_entropy(o, t)
    """)
    monkeypatch.syspath_prepend(str(tmp_path))
    from scripted_loss import loss

    o, t = torch.randn(5, 3), torch.tensor([0, 1, 2, 1, 0])
    assert torch.equal(loss(o, t), torch.nn.functional.cross_entropy(o, t))


PHASES = """
import sys
import torch
import torch.nn as nn

torch.manual_seed(0)
x, y = torch.randn(256, 8), torch.randint(0, 4, (256,))
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 4))
mode = sys.argv[1]
if mode == "phases":
    pre = torch.optim.SGD(model.parameters(), lr=0.05)
    for i in range(40):                                   # pretraining
        pre.zero_grad(); nn.functional.cross_entropy(model(x[i % 8::8]), y[i % 8::8]).backward(); pre.step()
    head = nn.Linear(32, 3)
    net = nn.Sequential(model[0], model[1], head)
    fine = torch.optim.Adam(net.parameters(), lr=1e-7)     # fine-tuning, far too low an LR
    for i in range(60):
        fine.zero_grad(); nn.functional.cross_entropy(net(x[i % 8::8]), y[i % 8::8] % 3).backward(); fine.step()
else:                                                     # two optimizers in turn (GAN-like)
    a = torch.optim.SGD(model[0].parameters(), lr=0.05)
    b = torch.optim.Adam(model[2].parameters(), lr=1e-3)
    for i in range(60):
        for opt in (a, b):
            opt.zero_grad(); nn.functional.cross_entropy(model(x[i % 8::8]), y[i % 8::8]).backward(); opt.step()
"""


def test_a_second_training_phase_is_read_on_its_own(tmp_path):
    script = write(tmp_path / "phases.py", PHASES)
    r = run_script(script, ["phases"], timeout=600)
    assert r.exit_code == 0 and r.stopped_reason == "finished"
    assert [p["phase"] for p in r.phases] == [2] and r.phases[0]["previous_steps"] == 40
    facts = {f.fact: f.value for f in r.findings}
    assert facts["learning_rate"] == pytest.approx(1e-7)      # the fine-tuning optimizer's
    assert facts["optimizer"] == "adam" and facts["num_classes"] == 3


def test_optimizers_stepping_in_turn_stay_one_phase(tmp_path):
    script = write(tmp_path / "turns.py", PHASES)
    r = run_script(script, ["turns"], timeout=600)
    assert r.exit_code == 0 and r.phases == []
    assert {f.fact: f.value for f in r.findings}["optimizer"] == "sgd"      # the first one that stepped


def test_a_validation_and_a_test_loader_are_two_held_out_sets_not_one(monkeypatch):
    """A script that evaluates a validation loader and then a test loader from another distribution
    gets the validation accuracy of the validation set alone, and the test set's as test_accuracy
    (so a validation set that agrees with training while the test set does not can be seen)."""
    torch = pytest.importorskip("torch")
    import torch.nn as nn
    from torch.utils.data import DataLoader, TensorDataset

    from traindx.probes.runner import child as _child

    state = _child._State()
    state.split_batch = _child._split_batch
    monkeypatch.setattr(_child, "_S", state)
    _child.install()
    try:
        torch.manual_seed(0)
        centers = torch.randn(3, 6) * 3

        def blobs(n, relabel=0):
            y = torch.arange(n) % 3
            return TensorDataset(centers[y] + torch.randn(n, 6), (y + relabel) % 3)

        train = DataLoader(blobs(240), batch_size=32, shuffle=True)
        val = DataLoader(blobs(96), batch_size=32)
        test = DataLoader(blobs(90, relabel=1), batch_size=32)   # another labelling: the model fails it
        model = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 3))
        opt = torch.optim.Adam(model.parameters(), lr=1e-2)
        crit = nn.CrossEntropyLoss()
        acc = {}
        for _ in range(6):
            model.train()
            for xb, yb in train:
                _step(model, opt, crit(model(xb), yb))
            model.eval()
            with torch.no_grad():
                for name, loader in (("val", val), ("test", test)):
                    right = 0
                    for xb, yb in loader:
                        out = model(xb)
                        crit(out, yb)
                        right += int((out.argmax(1) == yb).sum())
                    acc[name] = right / len(loader.dataset)
        mon = state.monitor
        mon.detach()
        facts = {f.fact: f.value for f in mon.findings()}
    finally:
        _child.uninstall()
    assert acc["val"] > 0.9 and acc["test"] < acc["val"] - 0.2      # the planted difference is real
    assert facts["val_accuracy"] == pytest.approx(acc["val"], abs=1e-6)
    assert facts["test_accuracy"] == pytest.approx(acc["test"], abs=1e-6)
