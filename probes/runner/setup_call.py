"""``traindx diagnose --setup MODULE:FUNCTION``: diagnose from objects instead of a script.

The user writes a factory that builds what their training uses and returns it::

    # mysetup.py
    def make():
        model = Net()
        return TrainingSetup(model=model,
                             optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
                             loss_fn=nn.CrossEntropyLoss(),
                             train_loader=train_loader, val_loader=val_loader, num_classes=10)

and ``traindx diagnose --setup mysetup:make`` runs traindx's own short, instrumented training on
*deep copies* of the model, optimizer, loss and scheduler (the loaders are iterated, not copied),
with a short validation pass every quarter of the run, and returns the monitor's findings.

The factory is imported and called in a child process (``python -m traindx.probes.runner.child
--setup SPEC``), so a timeout can stop it and a crash or OOM in it cannot take traindx down; the
current directory is on ``sys.path`` there, as ``python -c "import mysetup"`` would have it.
"""

from __future__ import annotations

import contextlib
import copy
import importlib
import importlib.util
import os
import re
import sys
import time
import warnings
from dataclasses import dataclass, fields
from typing import Any
from collections.abc import Callable

from traindx.engine.errors import InputError

#: A setup function returns at least the first this-many fields of TrainingSetup (model, optimizer,
#: loss and train loader; the rest are optional): the call's contract, not knowledge.
_REQUIRED = 4

__all__ = ["TrainingSetup", "run_setup", "load_setup", "coerce_setup", "instrumented_training"]

_SPEC = re.compile(r"^(?P<module>[A-Za-z_][\w.]*|.+\.py):(?P<func>[A-Za-z_]\w*(\.[A-Za-z_]\w*)*)$")


@dataclass
class TrainingSetup:
    """What a ``--setup`` factory returns: the pieces of a training run.

    Attributes:
        model: the ``torch.nn.Module`` to train (already on its device).
        optimizer: a ``torch.optim.Optimizer`` over (some of) the model's parameters.
        loss_fn: ``loss_fn(outputs, targets) -> scalar tensor`` -- an ``nn.Module`` loss, a
            ``torch.nn.functional`` loss or any callable. For batches without targets (a bare
            tensor) it is called as ``loss_fn(outputs, inputs)`` (autoencoders).
        train_loader: an iterable of batches -- ``(inputs, targets, ...)``, a dict with the usual
            keys (``input``/``x``/``input_ids``..., ``label``/``target``/``y``...) or a bare tensor.
            ``model(inputs)`` is called for a tensor, ``model(*inputs)`` for a tuple/list and
            ``model(**inputs)`` for a dict.
        val_loader: the same for validation (optional; without it there is no val evidence).
        num_classes: the number of classes, for classification (optional; inferred otherwise).
        scheduler: an LR scheduler over ``optimizer`` (optional), stepped per ``scheduler_interval``.
        device: where batches are moved; ``None`` means the device of the model's parameters.
        scheduler_interval: ``"epoch"`` (default) or ``"step"``: when the scheduler steps.

    A factory may instead return a dict with these keys, or a tuple in this order
    (``model, optimizer, loss_fn, train_loader[, val_loader, num_classes, scheduler, device]``).
    """

    model: Any
    optimizer: Any
    loss_fn: Callable
    train_loader: Any
    val_loader: Any = None
    num_classes: int | None = None
    scheduler: Any = None
    device: Any = None
    scheduler_interval: str = "epoch"


# --------------------------------------------------------------------------------------------
# parent side

def run_setup(spec: str, *, max_steps: int = 200, timeout: float | None = None,
              decide=None, env: dict | None = None, every: int = 10, level: str = "cheap",
              monitor: str | None = None, grace: float | None = None, params=None):
    """Import ``MODULE:FUNCTION``, call it, train deep copies of what it returns for
    ``max_steps`` optimizer steps (with a short validation pass) under a monitor, and return a
    :class:`~traindx.probes.runner.supervise.RunResult` (``stopped_reason`` ``"finished"`` when the steps
    ran, ``"timeout"``, ``"decided"`` or ``"crashed"``).

    ``MODULE`` is a dotted module name importable from the current directory, or a path to a
    ``.py`` file. A bad spec (no colon, module not found, no such function, a return value that
    is not a training setup) raises :class:`InputError`; an exception raised *by* the user's code
    is a crash, reported as evidence like a crashing script.
    """
    from traindx.probes.runner import supervise as runner

    parse_spec(spec)
    if max_steps is None or max_steps < 1:
        raise InputError(f"--max-steps must be >= 1 for --setup, got {max_steps}")
    child_args = ["--every", str(int(every)), "--level", level,
                  "--monitor", monitor or runner.DEFAULT_MONITOR,
                  "--max-steps", str(int(max_steps)), *runner.params_args(params), "--setup", spec]
    return runner.run_child(child_args, timeout=timeout, decide=decide, env=env,
                            grace=runner.DEFAULT_GRACE_S if grace is None else grace)


def parse_spec(spec: str) -> tuple[str, str]:
    """``(module, function)`` from ``"MODULE:FUNCTION"``, or :class:`InputError`."""
    m = _SPEC.match(spec or "")
    if not m:
        raise InputError(f"--setup expects MODULE:FUNCTION, got {spec!r}",
                         hint="e.g. --setup mysetup:make, where mysetup.py defines make()")
    return m.group("module"), m.group("func")


# --------------------------------------------------------------------------------------------
# child side: loading

def load_setup(spec: str) -> TrainingSetup:
    """Import the factory, call it and check what it returns. Input errors (the spec does not name
    a callable, the result is not a setup) raise :class:`InputError`; anything the user's module or
    factory raises propagates unchanged (it is a crash of the user's code)."""
    modname, funcname = parse_spec(spec)
    module = _import(modname)
    obj: Any = module
    for part in funcname.split("."):
        if not hasattr(obj, part):
            raise InputError(f"{modname} has no attribute {funcname!r}",
                             path=getattr(module, "__file__", None),
                             hint=f"define def {funcname}(): ... that returns a TrainingSetup")
        obj = getattr(obj, part)
    if not callable(obj):
        raise InputError(f"{modname}.{funcname} is not callable", path=getattr(module, "__file__", None))
    return coerce_setup(obj(), where=f"{modname}:{funcname}")


def _import(modname: str):
    if modname.endswith(".py"):
        path = os.path.abspath(modname)
        if not os.path.isfile(path):
            raise InputError("no such file", path=modname)
        name = os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        sys.path.insert(0, os.path.dirname(path))
        try:
            spec.loader.exec_module(module)
        except SyntaxError as e:
            raise InputError(f"syntax error: {e.msg}", path=e.filename, line=e.lineno,
                             col=e.offset) from None
        return module
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)
    try:
        return importlib.import_module(modname)
    except ModuleNotFoundError as e:
        if e.name and (modname == e.name or modname.startswith(e.name + ".")):
            raise InputError(f"module {modname!r} not found (looked in {cwd} and on sys.path)",
                             hint="run traindx from the folder that holds it, "
                                  "or pass path/to/file.py:FUNCTION") from None
        raise
    except SyntaxError as e:
        raise InputError(f"syntax error: {e.msg}", path=e.filename, line=e.lineno,
                         col=e.offset) from None


def coerce_setup(result: Any, where: str = "the factory") -> TrainingSetup:
    """A :class:`TrainingSetup` from a factory's return value (setup, dict or tuple), checked."""
    names = [f.name for f in fields(TrainingSetup)]
    if isinstance(result, TrainingSetup):
        setup = result
    elif isinstance(result, dict):
        unknown = sorted(set(result) - set(names))
        if unknown:
            raise InputError(f"{where} returned a dict with unknown keys {unknown}",
                             hint=f"keys: {', '.join(names)}")
        missing = [n for n in names[:_REQUIRED] if n not in result]
        if missing:
            raise InputError(f"{where} returned a dict without {missing}")
        setup = TrainingSetup(**result)
    elif isinstance(result, (tuple, list)) and _REQUIRED <= len(result) <= len(names):
        setup = TrainingSetup(*result)
    else:
        raise InputError(f"{where} returned {type(result).__name__}; expected a TrainingSetup",
                         hint="return TrainingSetup(model, optimizer, loss_fn, train_loader, ...), "
                              "a dict with those keys, or a tuple in that order")
    _check_types(setup, where)
    return setup


def _check_types(setup: TrainingSetup, where: str) -> None:
    import torch

    if not isinstance(setup.model, torch.nn.Module):
        raise InputError(f"{where}: model is {type(setup.model).__name__}, not a torch.nn.Module")
    if not isinstance(setup.optimizer, torch.optim.Optimizer):
        raise InputError(f"{where}: optimizer is {type(setup.optimizer).__name__}, "
                         "not a torch.optim.Optimizer")
    if not callable(setup.loss_fn):
        raise InputError(f"{where}: loss_fn is not callable")
    for name in ("train_loader", "val_loader"):
        loader = getattr(setup, name)
        if (loader is not None or name == "train_loader") and not hasattr(loader, "__iter__"):
            raise InputError(f"{where}: {name} is {type(loader).__name__}, not iterable")
    if setup.scheduler_interval not in ("epoch", "step"):
        raise InputError(f"{where}: scheduler_interval must be 'epoch' or 'step', "
                         f"got {setup.scheduler_interval!r}")


# --------------------------------------------------------------------------------------------
# child side: the short training run

def _loss_name(loss_fn) -> str:
    import torch

    if isinstance(loss_fn, torch.nn.Module):
        return type(loss_fn).__name__
    if getattr(loss_fn, "__module__", "") == "torch.nn.functional":
        return loss_fn.__name__
    return "custom"


def _accepts(fn, name: str) -> bool:
    import inspect

    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def _to(obj, device):
    import torch

    if isinstance(obj, torch.Tensor):
        return obj.to(device)
    if isinstance(obj, dict):
        return {k: _to(v, device) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)) and not hasattr(obj, "_fields"):
        return type(obj)(_to(v, device) for v in obj)
    return obj


def _forward(model, inputs):
    if isinstance(inputs, dict):
        return model(**inputs)
    if isinstance(inputs, (list, tuple)):
        return model(*inputs)
    return model(inputs)


def _detached(x):
    import torch
    return x.detach() if isinstance(x, torch.Tensor) else x


def _split(batch):
    try:
        from traindx.probes.live.timing import split_batch
    except Exception:  # pragma: no cover - timing.py is part of the package
        from traindx.probes.runner.child import _split_batch as split_batch
    return split_batch(batch)


@contextlib.contextmanager
def _rng_preserved():
    try:
        from traindx.probes.live.data import preserved_rng
    except Exception:  # pragma: no cover
        import torch
        ctx = torch.random.fork_rng()
    else:
        ctx = preserved_rng()
    with ctx:
        yield


def instrumented_training(setup: TrainingSetup, monitor=None, *, max_steps: int = 200,
                          call: Callable | None = None, on_step: Callable[[int], None] | None = None,
                          check_stop: Callable[[], None] | None = None, val_every: int | None = None,
                          val_batches: int = 10) -> dict:
    """Train deep copies of ``setup``'s model/optimizer/loss/scheduler for ``max_steps`` optimizer
    steps (cycling through ``train_loader``), validating on up to ``val_batches`` batches of
    ``val_loader`` every ``val_every`` steps (default: a quarter of the run) and at the end.

    ``monitor`` (the :class:`~traindx.probes.live.monitor.Monitor` API) is bound to the copies,
    attached for the run and detached after it; ``call(name, *args, **kwargs)`` replaces direct
    calls to it (the child routes them through its error guard). ``on_step(step)`` runs after
    every optimizer step and ``check_stop()`` before every batch; either may raise to stop.
    The user's objects and the torch/numpy/random RNG states are left as they were.
    Returns ``{"steps": ..., "epochs": ..., "val_passes": ...}``.
    """
    if call is None:
        def call(name, *args, **kwargs):
            if monitor is not None:
                return getattr(monitor, name)(*args, **kwargs)
            return None

    run = _InstrumentedRun(setup, monitor, call, check_stop, val_batches)
    val_every = val_every or max(1, max_steps // 4)
    with _rng_preserved():
        call("bind", run.model, run.optimizer)
        if hasattr(monitor, "on_data_loader"):
            call("on_data_loader", setup.train_loader, "train")
            if setup.val_loader is not None:
                call("on_data_loader", setup.val_loader, "val")
        call("attach")
        try:                       # the monitor is detached on every exit path
            run.model.train()
            while run.state["steps"] < max_steps:
                run.epoch(max_steps, val_every, on_step)
            if run.state["steps"] % val_every != 0:
                run.validate()
        finally:
            call("detach")
    return run.state


class _InstrumentedRun:
    """The deep copies :func:`instrumented_training` trains, and one method per part of a step."""

    def __init__(self, setup: TrainingSetup, monitor, call: Callable, check_stop, val_batches: int):
        self.setup, self.call, self.check_stop, self.val_batches = setup, call, check_stop, val_batches
        self.model, self.optimizer, self.loss_fn, self.scheduler = copy.deepcopy(
            (setup.model, setup.optimizer, setup.loss_fn, setup.scheduler))
        device = setup.device
        if device is None:
            first = next(iter(self.model.parameters()), None)
            device = first.device if first is not None else "cpu"
        self.device = device
        self.loss_name = _loss_name(self.loss_fn)
        # optional extensions of the Monitor API, used when the monitor has them
        self.loss_kw = {"loss_fn": self.loss_fn} if _accepts(getattr(monitor, "on_loss", None), "loss_fn") else {}
        self.state = {"steps": 0, "epochs": 0, "val_passes": 0}
        self.last_val: list[float] = []
        self.train_loss = float("nan")

    def prepare(self, batch, phase):
        inputs, targets = _split(batch)
        inputs, targets = _to(inputs, self.device), _to(targets, self.device)
        self.call("on_batch", inputs, targets, phase=phase)
        return inputs, targets

    def compute_loss(self, inputs, targets):
        outputs = _forward(self.model, inputs)
        return outputs, self.loss_fn(outputs, targets if targets is not None else inputs)

    def report_loss(self, loss, outputs, targets, phase: str):
        self.call("on_loss", loss, phase=phase, outputs=_detached(outputs),
                  targets=_detached(targets), loss_name=self.loss_name, **self.loss_kw)

    def validate(self):
        import torch
        if self.setup.val_loader is None:
            return
        model = self.model
        was_training = model.training
        model.eval()
        losses = []
        with torch.no_grad():
            for i, batch in enumerate(self.setup.val_loader):
                if i >= self.val_batches:
                    break
                if self.check_stop:
                    self.check_stop()
                inputs, targets = self.prepare(batch, "val")
                outputs, loss = self.compute_loss(inputs, targets)
                losses.append(float(loss.detach().float().mean()))
                self.report_loss(loss.detach(), outputs, targets, "val")
        model.train(was_training)
        self.state["val_passes"] += 1
        if losses:
            self.last_val[:] = [sum(losses) / len(losses)]

    def step_scheduler(self):
        scheduler = self.scheduler
        if scheduler is None:
            return
        with warnings.catch_warnings():
            # the deep-copied optimizer no longer carries the scheduler's step-tracking wrapper
            warnings.filterwarnings("ignore", message=".*optimizer.step\\(\\)` has been overridden")
            warnings.filterwarnings("ignore", message=".*lr_scheduler.step\\(\\)` before")
            if type(scheduler).__name__ == "ReduceLROnPlateau":
                scheduler.step(self.last_val[0] if self.last_val else self.train_loss)
            else:
                scheduler.step()

    def train_step(self, batch):
        inputs, targets = self.prepare(batch, "train")
        self.optimizer.zero_grad(set_to_none=True)
        outputs, loss = self.compute_loss(inputs, targets)
        # the loss with its graph, before backward (the monitor may hook its grad_fn)
        self.report_loss(loss, outputs, targets, "train")
        loss.backward()
        self.optimizer.step()
        self.train_loss = float(loss.detach().float())
        self.state["steps"] += 1

    def epoch(self, max_steps: int, val_every: int, on_step):
        """One pass over train_loader (or what is left of max_steps)."""
        state, setup = self.state, self.setup
        got_batch = False
        it = iter(setup.train_loader)
        while state["steps"] < max_steps:
            if self.check_stop:
                self.check_stop()
            t0 = time.perf_counter()
            try:
                batch = next(it)
            except StopIteration:
                break
            self.call("on_data_wait", time.perf_counter() - t0)
            got_batch = True
            self.train_step(batch)
            if setup.scheduler_interval == "step":
                self.step_scheduler()
            if on_step:
                on_step(state["steps"])
            if state["steps"] % val_every == 0:
                self.validate()
        if not got_batch:
            raise InputError("train_loader yielded no batches")
        state["epochs"] += 1
        if setup.scheduler_interval == "epoch" and state["steps"] < max_steps:
            self.step_scheduler()
