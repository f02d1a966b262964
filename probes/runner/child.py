"""The child half of ``traindx diagnose --script``: run the user's script under instrumentation.

Started by :mod:`traindx.probes.runner.supervise`, never by hand::

    python -m traindx.probes.runner.child --events FD_OR_PATH [--control FD] [--max-steps N]
        [--every N] [--level cheap] [--monitor MODULE:CLASS] -- script.py ARGS...
    python -m traindx.probes.runner.child --events FD_OR_PATH [...] --setup MODULE:FUNCTION

The script runs as ``__main__`` (``runpy.run_path``) with ``sys.argv = [script, *ARGS]``, its own
folder first on ``sys.path``, the current directory unchanged. Its stdout/stderr are its own.

Instrumentation is installed when the script's ``import torch`` completes (not before: a script
may set ``OMP_NUM_THREADS`` and the like before importing torch), and is kept cheap:

* global optimizer step pre/post hooks: find the optimizer (the first one that steps), count its
  steps, stop at ``--max-steps`` or when the parent asks (raising :class:`StopRun` at the step
  boundary), bind the model on the first step; when another optimizer then steps 20 times in a
  row on its own (fine-tuning after pretraining), the run is read from there as a new phase with a
  fresh monitor (``{"type": "phase"}`` event), while two optimizers stepping in turn (a GAN) stay
  one phase;
* model discovery: a global module forward *pre*-hook during the first iteration only records which
  modules run; at the first optimizer step the root module with the most parameters in that
  optimizer (or, if none, the largest root module that ran -- the "wrong model instance" case) is
  bound to the monitor and the global hook removed;
* ``torch.Tensor.backward``: the loss being back-propagated -> ``monitor.on_loss(phase="train")``;
* loss modules (``nn.modules.loss._Loss.__call__``, a class-level wrapper rather than a global
  forward hook, which would push every module call onto torch's slow path for the whole run) and
  ``F.cross_entropy/nll_loss/mse_loss/l1_loss/binary_cross_entropy(_with_logits)``: the loss with
  its outputs, targets and name; under ``no_grad`` (validation) it is reported at once with
  ``phase="val"``, otherwise it waits for ``backward`` to confirm it is a training loss;
* ``torch.amp.GradScaler.scale``: so a scaled loss is reported unscaled;
* ``torch.nn.utils.clip_grad_norm_`` (a pass-through wrapper, in place from the import of torch on,
  so a script that imports the function by name still reaches the monitor's clip listener);
* DataLoader iterators' ``__next__``: time blocked -> ``monitor.on_data_wait``, the batch ->
  ``monitor.on_batch`` (phase from ``torch.is_grad_enabled()``).

Nothing here draws random numbers or writes ``.grad``; every wrapper calls the original with the
same arguments and returns its result untouched; a fault in the instrumentation is reported as a
``probe_error`` event and never reaches the script.

Events (JSON lines on ``--events``, a pipe fd or a file to append to)::

    {"type": "start", "pid": N}
    {"type": "findings", "step": K, "findings": [Finding.to_dict(), ...],
     "pending": ["lr_decay", ...], "reply": true}   # at the scheduled looks (see next_look) and
                                     # at exit; pending: costly probes still running; reply: the
                                     # child waits for the parent's "go" / "stop ..." line
    {"type": "stopping", "reason": ...}                  # the run ended; last findings follow
    {"type": "probe_error", "message": "..."}
    {"type": "crash", "error_kind": ..., "message": ..., "traceback": ..., "exc_type": ...,
     "file": ..., "line": ..., "syntax": {...} | null}
    {"type": "input_error", "message": ..., "path": ..., "line": ...}        # --setup only
    {"type": "exit", "reason": "finished|max_steps|decided|terminated|crashed|parent_gone",
     "code": N, "steps": K, "summary": {...}}

Control (``--control``, a pipe fd the parent writes): the answer to each look that asks for one,
``go`` or ``stop ...`` (stop at the next optimizer step or DataLoader batch). Looks are paced by
optimizer steps and the child waits for the answer, so a run stops at the same step however busy
the machine is. SIGTERM stops it wherever it is.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import importlib.abc
import inspect
import json
import math
import os
import runpy
import signal
import sys
import threading
import time
import traceback
import weakref

from traindx.probes.runner.supervise import DEFAULT_MONITOR, _proc_table, classify_crash

#: Bounds on work and output, not knowledge: probe faults kept for the report, optimizer steps
#: waited for a module to run before binding to what is known, processes walked when listing the
#: script's descendants.
_MAX_ERRORS = 20
_BIND_ATTEMPTS = 3
_MAX_DESCENDANTS = 10_000

_PROBES_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # traindx/probes
#: Functional losses wrapped in ``torch.nn.functional``.
FUNCTIONAL_LOSSES = ("cross_entropy", "nll_loss", "mse_loss", "l1_loss", "binary_cross_entropy",
                     "binary_cross_entropy_with_logits", "smooth_l1_loss", "huber_loss", "kl_div")
# Looks (findings sent to the parent, which answers "go" or "stop") are paced by optimizer steps,
# never by the clock, so that a script stops at the same step, with the same evidence, on an idle
# machine and beside a CPU-bound process; without optimizer steps, by training activity. The
# schedule, and the steps that start a new training phase, are the knowledge base's ``runner.*``
# parameters (kb/parameters/runner.yaml, a pack's overrides applied: see _pace).
#: Seconds a look waits for the parent's answer before going on (a safety net only: the parent
#: answers in milliseconds, and its own --timeout ends the run).
REPLY_TIMEOUT_S = 120.0
#: Distinct modules / module calls recorded before model discovery gives up on the forward hook.
DISCOVERY_MAX_MODULES = 50_000
DISCOVERY_MAX_CALLS = 2_000_000


class StopRun(BaseException):
    """Raised inside the script to end it early (max_steps, decided, SIGTERM).

    A BaseException, so the script's ``except Exception`` does not swallow it."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


# ============================================================================================
# state and events

class _State:
    def __init__(self):
        self.pid = os.getpid()
        self.events = None
        self.control_fd = None
        self.max_steps = None
        self.every = 10
        self.level = "cheap"
        self.monitor_spec = DEFAULT_MONITOR
        self.params = None          # a knowledge pack's parameter overrides (--params)
        self.pace = None            # the parameter values, overrides applied (see _pace)
        self.monitor = None
        self.optimizer = None
        self.model = None
        self.bound = False
        self.bind_attempts = 0
        self.steps = 0
        self.stop_reason = None
        self.emit_steps = 0
        self.next_look = 10        # the optimizer step of the next look (see next_look)
        self.ticks = 0             # losses, backward passes and batches seen (looks before any step)
        self.next_tick = None      # the activity count of the next look before any step
        self.activity = False
        self.tls = threading.local()
        self.pending = []          # training-loss candidates awaiting backward
        self.backwards = 0         # backward passes begun (a pending loss none followed was skipped)
        self.scaled = None         # (weakref(scaled loss), unscaled loss) from GradScaler.scale
        self.seen = {}             # id -> module, for model discovery (first iteration only)
        self.seen_calls = 0
        self.discovery_handle = None
        self.installed = False
        self.restore = []          # (obj, attr, original) to undo the wrappers
        self.handles = []
        self.probe_errors = set()
        self.pass_loss_fn = False  # the monitor's on_loss takes loss_fn= (the criterion)
        self.pass_synced = False   # its on_data_wait takes synced= (timed after a CUDA sync)
        self.pass_terms = False    # its on_loss takes terms= (a loss summed over one criterion's calls)
        self.pass_composite = False  # its on_loss takes composite= (criteria plus other terms)
        self.loss_terms = {}       # (parts, criterion) -> the terms such a summed loss adds up
        self.iter_loaders = weakref.WeakKeyDictionary()  # DataLoader iterator -> its loader
        self.declared = weakref.WeakSet()  # loaders handed to monitor.on_data_loader
        self.next_calls = 0
        self.split_batch = None     # (inputs, targets) from a batch; set below
        self.other_opt = None       # weakref to another optimizer stepping on its own ...
        self.other_steps = 0        # ... and how many steps in a row it took
        self.phase = 1              # training phases seen (pretraining, then fine-tuning, ...)
        self.phase_start = 0        # optimizer steps before the current phase
        self.earlier_params = {}    # id -> weakref of the parameters earlier phases' models held when bound
        self.phase_params = {}      # ... and those of this phase's model, kept when it is bound
        self.optimizers_made = 0    # torch.optim optimizers constructed by the script
        self.optimizers = weakref.WeakSet()  # ... and the optimizers themselves (weakly)
        self.manual_losses = 0      # losses differentiated in a loop with no torch.optim optimizer
        self.composite_losses = 0   # training losses made of stock criteria and other terms


_S = _State()


class _Events:
    """JSON lines to the parent. A broken pipe means the parent is gone: the run stops."""

    def __init__(self, target: str):
        if target.isdigit():
            fd = int(target)
            os.set_inheritable(fd, False)
            self._f = os.fdopen(fd, "w", encoding="utf-8", buffering=1)
        else:
            self._f = open(target, "a", encoding="utf-8", buffering=1)

    def send(self, obj: dict) -> None:
        if self._f is None:
            return
        try:
            self._f.write(json.dumps(obj, default=_jsonable) + "\n")
            self._f.flush()
        except (OSError, ValueError):
            self._f = None
            if _S.stop_reason is None:
                _S.stop_reason = "parent_gone"

    def close(self) -> None:
        if self._f is not None:
            try:
                self._f.close()
            except OSError:
                pass
            self._f = None


def _jsonable(o):
    try:
        import torch
        if isinstance(o, torch.Tensor):
            return o.item() if o.numel() == 1 else o.detach().cpu().tolist()[:1000]
    except Exception:
        pass
    if hasattr(o, "item") and callable(o.item):
        try:
            return o.item()
        except Exception:
            pass
    if hasattr(o, "tolist"):
        try:
            return o.tolist()
        except Exception:
            pass
    if isinstance(o, (set, frozenset, tuple)):
        return list(o)
    if hasattr(o, "to_dict"):
        try:
            return o.to_dict()
        except Exception:
            pass
    return repr(o)


def _send(obj: dict) -> None:
    if _S.events is not None:
        _S.events.send(obj)


def _probe_error(where: str, exc: BaseException) -> None:
    msg = f"{where}: {type(exc).__name__}: {exc}"
    if msg in _S.probe_errors or len(_S.probe_errors) >= _MAX_ERRORS:
        return
    _S.probe_errors.add(msg)
    _send({"type": "probe_error", "message": msg})


def _mine() -> bool:
    """True in the script's own process (not in a forked DataLoader worker)."""
    return os.getpid() == _S.pid


def _call_monitor(name: str, *args, **kwargs):
    mon = _S.monitor
    if mon is None:
        return None
    try:
        return getattr(mon, name)(*args, **kwargs)
    except Exception as e:  # the monitor's faults never reach the script
        _probe_error(f"monitor.{name}", e)
        return None


def _findings_event(awaiting: bool | None = None) -> dict:
    """A ``findings`` event: every fact the monitor holds now. ``complete`` says the monitor
    answered, so the parent may withdraw a fact it no longer reports (a measurement the run has
    since overtaken); after a monitor fault the parent keeps what it had."""
    found = _call_monitor("findings")
    out, complete = [], found is not None
    for f in found or ():
        try:
            out.append(f.to_dict() if hasattr(f, "to_dict") else dict(f))
        except Exception as e:
            complete = False
            _probe_error("finding", e)
    ev = {"type": "findings", "step": _S.steps, "findings": out, "complete": complete}
    if awaiting is not None:
        ev["await"] = awaiting
    return ev


def _pace():
    """The knowledge base's parameter values with the pack's overrides (``--params``) applied."""
    if _S.pace is None:
        from traindx.engine.parameters import shipped
        _S.pace = {**shipped(), **(_S.params or {})}
    return _S.pace


def next_look(steps: int, every: int, params=None) -> int:
    """The optimizer step of the look after one at ``steps``: ``every`` first, then every
    ``runner.look_gap_early`` steps up to ``runner.look_early_until``, every ``runner.look_gap``
    after, and every eighth of the run so far once that is longer. ``params``: parameter values
    (default: the shipped ones)."""
    if steps < every:
        return every
    from traindx.engine.parameters import resolve
    P = resolve(params)
    gap = P["runner.look_gap_early"] if steps < P["runner.look_early_until"] else P["runner.look_gap"]
    return steps + max(every, gap, steps // 8)


def _emit(force: bool = False) -> None:
    """Send the findings at the scheduled looks (or now, with ``force``) and, at a scheduled look,
    wait for the parent's answer: the run goes on, or stops at its next step."""
    if _S.monitor is None:
        return
    if _S.steps > 0:
        due = _S.steps >= _S.next_look
    else:
        if _S.next_tick is None:
            _S.next_tick = _pace()["runner.look_first_ticks"]
        due = _S.ticks >= _S.next_tick
    if not (force or due):
        return
    if due:
        if _S.steps > 0:
            _S.next_look = next_look(_S.steps, _S.every, _pace())
        else:
            _S.next_tick = 2 * max(_S.ticks, _pace()["runner.look_first_ticks"])
    ev = _findings_event()
    _S.emit_steps, _S.activity = _S.steps, False
    ev["pending"] = list(getattr(_S.monitor, "pending_probes", None) or [])
    ev["reply"] = reply = due and _S.control_fd is not None
    _send(ev)
    if reply:
        _await_reply()


def _await_reply() -> None:
    """Block until the parent answers a look ("go" or "stop ..."). The wait is the parent's time,
    not the script's: it is taken out of the step the monitor times."""
    import select

    fd = _S.control_fd
    t0 = time.perf_counter()
    data = b""
    try:
        while not data.endswith(b"\n"):
            ready, _, _ = select.select([fd], [], [], REPLY_TIMEOUT_S)
            if not ready:
                break
            chunk = os.read(fd, 4096)
            if not chunk:          # EOF: the parent is gone
                _S.control_fd = None
                if _S.stop_reason is None:
                    _S.stop_reason = "parent_gone"
                break
            data += chunk
    except BlockingIOError:
        pass
    except OSError:
        _S.control_fd = None
    if b"stop" in data and _S.stop_reason is None:
        _S.stop_reason = "decided"
    if hasattr(_S.monitor, "exclude_time"):
        _call_monitor("exclude_time", time.perf_counter() - t0)


def _check_control() -> None:
    fd = _S.control_fd
    if fd is None:
        return
    try:
        data = os.read(fd, 4096)
    except BlockingIOError:
        return
    except OSError:
        data = b""
    if not data:  # EOF: the parent closed its end (it is gone)
        _S.control_fd = None
        if _S.stop_reason is None:
            _S.stop_reason = "parent_gone"
    elif b"stop" in data and _S.stop_reason is None:
        _S.stop_reason = "decided"


def _maybe_stop() -> None:
    _check_control()
    if _S.stop_reason is not None:
        raise StopRun(_S.stop_reason)


def _on_sigterm(signum, frame):
    if not _mine():  # a forked worker inherited this handler: die the default way
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    if _S.stop_reason is None:
        _S.stop_reason = "terminated"
    raise StopRun(_S.stop_reason)


# ============================================================================================
# batches

def _split_batch(batch):
    if isinstance(batch, (tuple, list)):
        if len(batch) >= 2:
            return batch[0], batch[1]
        return (batch[0] if batch else None), None
    if isinstance(batch, dict):
        x = next((batch[k] for k in ("input", "inputs", "x", "image", "images", "pixel_values",
                                      "input_ids", "features", "data") if k in batch), None)
        y = next((batch[k] for k in ("label", "labels", "target", "targets", "y") if k in batch),
                 None)
        return x, y
    return batch, None


_S.split_batch = _split_batch


# ============================================================================================
# instrumentation (installed when the script's `import torch` completes)

class _TorchImportWatcher(importlib.abc.MetaPathFinder):
    """Calls ``on_import`` right after ``torch`` has been imported (by anyone), then leaves."""

    def __init__(self, on_import):
        self.on_import = on_import
        self.busy = False

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch" or self.busy:
            return None
        self.busy = True
        try:
            spec = None
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(fullname, path, target)
                if spec is not None:
                    break
        finally:
            self.busy = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _LoaderProxy(spec.loader, self)
        return spec

    def loaded(self, module) -> None:
        try:
            sys.meta_path.remove(self)
        except ValueError:
            pass
        self.on_import()


class _LoaderProxy:
    def __init__(self, loader, watcher):
        self._loader = loader
        self._watcher = watcher

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        # leave no trace: the module sees its real loader
        module.__loader__ = self._loader
        if getattr(module, "__spec__", None) is not None:
            module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        self._watcher.loaded(module)

    def __getattr__(self, name):
        return getattr(self._loader, name)


def _compiling() -> bool:
    try:
        import torch
        return torch.compiler.is_compiling()
    except Exception:
        return False


def _depth() -> int:
    return getattr(_S.tls, "depth", 0)


def install() -> None:
    """Install every wrapper and global hook, and create the monitor. Idempotent."""
    if _S.installed:
        return
    _S.installed = True
    try:
        _install()
    except Exception as e:
        _probe_error("install", e)


def _patch(obj, attr, new):
    _S.restore.append((obj, attr, obj.__dict__[attr] if attr in obj.__dict__ else None))
    setattr(obj, attr, new)


def _install() -> None:
    import torch
    from torch.nn.modules import module as module_mod
    from torch.optim import optimizer as optim_mod

    try:
        from traindx.probes.live.timing import split_batch
        _S.split_batch = split_batch
    except Exception:
        pass
    _S.monitor = _make_monitor()

    _S.handles.append(optim_mod.register_optimizer_step_pre_hook(_pre_step))
    _S.handles.append(optim_mod.register_optimizer_step_post_hook(_post_step))
    _S.discovery_handle = module_mod.register_module_forward_pre_hook(_seen_module)
    _patch_backward(torch)
    _patch_autograd_grad(torch)
    _patch_optimizer_init(optim_mod)
    _patch_loss_modules(torch)
    _patch_functional_losses()
    _patch_grad_scaler(torch)
    _patch_dataloader(torch)
    # clip_grad_norm_ wrapped now, when torch is imported: a script that binds it by name (`from
    # torch.nn.utils import clip_grad_norm_`) before the monitor attaches still calls the wrapper
    from traindx.probes.live.updates import install_clip_listener
    install_clip_listener(_clip_seen)


def _clip_seen(total, max_norm) -> None:
    """The runner's own clip listener: keeps the wrapper in place for the whole run (the monitor's
    listener does the reading)."""


def _patch_backward(torch) -> None:
    """Tensor.backward: the monitor sees the loss being differentiated."""
    orig_backward = torch.Tensor.backward

    @functools.wraps(orig_backward)
    def backward(self, *args, **kwargs):
        # a torch-function mode active at the call (the script's own, or a loss tape's) dispatches
        # Tensor.backward through the mode back to this attribute: the nested call is the same
        # backward, not a second loss
        if getattr(_S.tls, "in_backward", False):
            return orig_backward(self, *args, **kwargs)
        if _mine() and not _compiling():
            try:
                _on_backward(self)
            except Exception as e:
                _probe_error("backward", e)
        _S.tls.in_backward = True
        try:
            return orig_backward(self, *args, **kwargs)
        finally:
            _S.tls.in_backward = False

    _patch(torch.Tensor, "backward", backward)


def _patch_autograd_grad(torch) -> None:
    """torch.autograd.grad in a loop with no torch.optim optimizer (a hand-written update,
    ``p -= lr * dp``): the scalar being differentiated is the training loss, as with backward."""
    orig_grad = torch.autograd.grad

    @functools.wraps(orig_grad)
    def grad(outputs, *args, **kwargs):
        if not _S.optimizers_made and _mine() and not _compiling():
            t = outputs[0] if isinstance(outputs, (tuple, list)) and len(outputs) == 1 else outputs
            if isinstance(t, torch.Tensor):
                try:
                    _on_backward(t)
                except Exception as e:
                    _probe_error("autograd.grad", e)
        return orig_grad(outputs, *args, **kwargs)

    _patch(torch.autograd, "grad", grad)


def _patch_optimizer_init(optim_mod) -> None:
    """Count the torch.optim optimizers the script makes: a loop without one updates its
    parameters by hand, and its steps are counted from the losses it differentiates."""
    orig_init = optim_mod.Optimizer.__init__

    @functools.wraps(orig_init)
    def __init__(self, *args, **kwargs):
        out = orig_init(self, *args, **kwargs)
        if _mine():
            _S.optimizers_made += 1
            try:
                _S.optimizers.add(self)
            except TypeError:      # an optimizer class that cannot be weakly referenced
                pass
        return out

    _patch(optim_mod.Optimizer, "__init__", __init__)


def _manual_step() -> None:
    """A loss differentiated in a loop with no torch.optim optimizer: the loss before it has had
    its hand-written update by now, so that was a training step. Counted, looked at and stopped
    like an optimizer step."""
    if getattr(_S.monitor, "busy", False):
        return
    _S.manual_losses += 1
    if _S.manual_losses == 1:
        return
    _flush_pending()
    _maybe_stop()
    if _S.max_steps is not None and _S.steps >= _S.max_steps:
        _S.stop_reason = "max_steps"
        raise StopRun("max_steps")
    _call_monitor("manual_step")
    _S.steps += 1


def _patch_loss_modules(torch) -> None:
    """Loss modules (nn.CrossEntropyLoss, ...): the outermost call's inputs and result are recorded."""
    from torch.nn.modules.loss import _Loss
    orig_call = torch.nn.Module.__call__

    def loss_call(self, *args, **kwargs):
        if _depth() or not _mine() or _compiling():
            return orig_call(self, *args, **kwargs)
        _S.tls.depth = _depth() + 1
        try:
            result = orig_call(self, *args, **kwargs)
        finally:
            _S.tls.depth -= 1
        _record_loss(result, args, kwargs, type(self).__name__, self)
        return result

    loss_call.__name__ = loss_call.__qualname__ = "__call__"
    _patch(_Loss, "__call__", loss_call)


def _patch_functional_losses() -> None:
    import torch.nn.functional as F
    for name in FUNCTIONAL_LOSSES:
        orig = getattr(F, name, None)
        if orig is not None:
            _patch(F, name, _functional_wrapper(name, orig))


def _patch_grad_scaler(torch) -> None:
    """GradScaler.scale: remember which scaled tensor stands for which loss."""
    try:
        from torch.amp.grad_scaler import GradScaler
        orig_scale = GradScaler.scale

        @functools.wraps(orig_scale)
        def scale(self, outputs):
            out = orig_scale(self, outputs)
            if _mine() and isinstance(outputs, torch.Tensor) and isinstance(out, torch.Tensor) \
                    and out is not outputs:
                _S.scaled = (weakref.ref(out), outputs)
            return out

        _patch(GradScaler, "scale", scale)
    except Exception as e:
        _probe_error("GradScaler", e)


def _patch_dataloader(torch) -> None:
    """DataLoader iteration: which loader each iterator belongs to, the wait for each batch, and
    the batch itself for the monitor."""
    from torch.utils.data import dataloader as dl_mod
    loader_cls = dl_mod.DataLoader
    orig_iter = loader_cls.__iter__

    @functools.wraps(orig_iter)
    def __iter__(self):
        it = orig_iter(self)
        if _mine():
            try:
                _S.iter_loaders[it] = weakref.ref(self)
            except TypeError:
                pass
        return it

    _patch(loader_cls, "__iter__", __iter__)

    base_iter = dl_mod._BaseDataLoaderIter
    orig_next = base_iter.__next__
    cuda_ok = torch.cuda.is_available()

    @functools.wraps(orig_next)
    def __next__(self):
        if not _mine():
            return orig_next(self)
        _flush_pending()
        _maybe_stop()
        synced = None
        if cuda_ok and _S.pass_synced and getattr(_S.monitor, "on_cuda", False):
            synced = _S.next_calls % 10 == 0
            if synced:
                torch.cuda.synchronize()
        _S.next_calls += 1
        t0 = time.perf_counter()
        batch = orig_next(self)
        waited = time.perf_counter() - t0
        try:
            _S.activity = True
            _S.ticks += 1
            phase = "train" if torch.is_grad_enabled() else "val"
            ref = _S.iter_loaders.get(self)
            loader = ref() if ref is not None else None
            _declare_loader(self, phase)
            if synced is None:
                _call_monitor("on_data_wait", waited)
            else:
                _call_monitor("on_data_wait", waited, synced=synced)
            x, y = _S.split_batch(batch)
            if phase != "train" and loader is not None and hasattr(_S.monitor, "on_eval_loader"):
                # which held-out set: a script may evaluate on a validation and a test loader
                _call_monitor("on_eval_loader", loader)
            _call_monitor("on_batch", x, y, phase=phase)
            _emit()
        except Exception as e:
            _probe_error("dataloader", e)
        return batch

    _patch(base_iter, "__next__", __next__)


def _declare_loader(it, phase: str) -> None:
    """Hand a loader to ``monitor.on_data_loader`` once, with the phase of its first batch
    (dataset sizes, shuffling, the train/val overlap probe)."""
    ref = _S.iter_loaders.get(it)
    loader = ref() if ref is not None else None
    if loader is None or loader in _S.declared or _S.monitor is None \
            or not hasattr(_S.monitor, "on_data_loader"):
        return
    _S.declared.add(loader)
    _call_monitor("on_data_loader", loader, phase)


def uninstall() -> None:
    """Undo every wrapper and hook (used after the script ends and by tests)."""
    for h in _S.handles:
        h.remove()
    _S.handles.clear()
    _drop_discovery()
    for obj, attr, original in reversed(_S.restore):
        if original is None:
            try:
                delattr(obj, attr)
            except AttributeError:
                pass
        else:
            setattr(obj, attr, original)
    _S.restore.clear()
    from traindx.probes.live.updates import uninstall_clip_listener
    uninstall_clip_listener(_clip_seen)
    _S.installed = False


def _make_monitor(**kwargs):
    spec = _S.monitor_spec
    modname, _, clsname = spec.partition(":")
    try:
        cls = getattr(importlib.import_module(modname), clsname or "Monitor")
        if _S.params and _accepts(cls, "params"):
            from traindx.engine.parameters import shipped
            kwargs["params"] = {**shipped(), **_S.params}
        if _accepts(cls, "experiments"):
            kwargs = {**kwargs, "experiments": bool(getattr(_S, "experiments", False))}
        monitor = cls(level=_S.level, **kwargs)
    except Exception as e:
        _probe_error(f"monitor {spec}", e)
        return None
    # optional extensions of the Monitor API, used when the monitor has them
    _S.pass_loss_fn = _accepts(getattr(monitor, "on_loss", None), "loss_fn")
    _S.pass_synced = _accepts(getattr(monitor, "on_data_wait", None), "synced")
    _S.pass_terms = _accepts(getattr(monitor, "on_loss", None), "terms")
    _S.pass_composite = _accepts(getattr(monitor, "on_loss", None), "composite")
    return monitor


def _accepts(fn, name: str) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return name in params


def _functional_wrapper(name, orig):
    @functools.wraps(orig)
    def wrapper(*args, **kwargs):
        if _depth() or not _mine() or _compiling():
            return orig(*args, **kwargs)
        _S.tls.depth = _depth() + 1
        try:
            result = orig(*args, **kwargs)
        finally:
            _S.tls.depth -= 1
        _record_loss(result, args, kwargs, name, orig)
        return result

    # TorchScript compiles the original, as it does for torch's own _script_if_tracing wrappers
    setattr(wrapper, "__script_if_tracing_wrapper", True)
    setattr(wrapper, "__original_fn", orig)
    return wrapper


# -- losses -------------------------------------------------------------------------------

class _Pending:
    """A loss computed with grad enabled, waiting for backward to show it is a training loss."""

    __slots__ = ("ref", "strong", "value", "outputs", "targets", "name", "training", "fn", "bwd")

    def __init__(self, loss, outputs, targets, name, training, fn):
        self.ref = weakref.ref(loss)
        # In train mode the loss's graph lives until backward anyway; holding the tensor lets a
        # composite loss be matched to its parts. In eval mode (a validation pass without
        # no_grad) nothing is held that would keep its graph alive.
        self.strong = loss if training is not False else None
        self.value = loss.detach()
        self.outputs = outputs
        self.targets = targets
        self.name = name
        self.training = training
        self.fn = fn
        self.bwd = _S.backwards    # no backward since: a loss the script skipped (see _flush_pending)


def _loss_kwargs(fn) -> dict:
    return {"loss_fn": fn} if (_S.pass_loss_fn and fn is not None) else {}


def _loss_args(args, kwargs):
    import torch
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    outputs = args[0] if args else kwargs.get("input")
    targets = args[1] if len(args) > 1 else kwargs.get("target")
    if len(tensors) > 2 or not isinstance(outputs, torch.Tensor):
        return None, None          # (x1, x2, y), CTC, ...: not an (outputs, targets) loss
    if not isinstance(targets, torch.Tensor):
        targets = None
    return outputs.detach(), (targets.detach() if targets is not None else None)


def _record_loss(result, args, kwargs, name, fn=None) -> None:
    try:
        import torch
        if not isinstance(result, torch.Tensor) or result.numel() == 0:
            return
        outputs, targets = _loss_args(args, kwargs)
        if torch.is_grad_enabled():
            model = _S.model
            training = getattr(model, "training", None) if model is not None else None
            if result.numel() == 1:
                _S.pending.append(_Pending(result, outputs, targets, name, training, fn))
                del _S.pending[:-8]
            return
        value = result.detach()
        if value.numel() != 1:
            value = value.float().mean()
            if result.dim() > 1:
                # an elementwise loss (reduction='none') with several values per example: the
                # script weights or masks them afterwards (a detector's box terms count only where
                # an object is), so which outputs count is unknown and no accuracy is read from them
                outputs = None
        _S.activity = True
        _S.ticks += 1
        _call_monitor("on_loss", value, phase="val", outputs=outputs, targets=targets,
                      loss_name=name, **_loss_kwargs(fn))
    except Exception as e:
        _probe_error("loss", e)


def _flush_pending() -> None:
    """Losses computed with grad enabled that were never back-propagated: in eval mode they are
    validation losses (a validation loop without no_grad); in train mode a NaN/Inf one is a training
    loss the script skipped because it was not finite (``if not torch.isfinite(loss): continue``), and
    goes to the monitor as ``phase="skipped"`` (read only when no backward pass at all followed it, so a
    side loss computed for logging beside the one back-propagated costs no device sync); the others are
    dropped."""
    if not _S.pending:
        return
    pending, _S.pending = _S.pending, []
    for p in pending:
        if p.training is False:
            _call_monitor("on_loss", p.value, phase="val", outputs=p.outputs, targets=p.targets,
                          loss_name=p.name, **_loss_kwargs(p.fn))
        elif p.training and p.bwd == _S.backwards and _nonfinite(p.value):
            _call_monitor("on_loss", p.value, phase="skipped", outputs=p.outputs, targets=p.targets,
                          loss_name=p.name, **_loss_kwargs(p.fn))


def _nonfinite(value) -> bool:
    """Whether a (detached, one-element) loss is NaN/Inf; read only for a train-mode loss that no
    backward pass took, which a run reaches only when it skips batches."""
    try:
        return not bool(value.isfinite().all())
    except Exception:  # pragma: no cover - an odd tensor subclass: say nothing
        return False


def _on_backward(t) -> None:
    """``t.backward()`` is about to run: ``t`` (or, for a GradScaler-scaled loss, the loss before
    scaling) is the training loss. It goes to the monitor with its graph, before backward, so the
    monitor can hook its ``grad_fn``."""
    if t.numel() != 1:
        return
    _S.backwards += 1
    if not _S.optimizers_made:
        _manual_step()
    base = t
    if _S.scaled is not None:
        ref, unscaled = _S.scaled
        if ref() is t:
            base = unscaled
        _S.scaled = None
    pending, _S.pending = _S.pending, []
    match = next((p for p in pending if p.ref() is base), None)
    _S.activity = True
    _S.ticks += 1
    if match is not None:
        # the others were not part of this loss: in eval mode they were validation losses
        _S.pending = [p for p in pending if p is not match]
        _flush_pending()
        _call_monitor("on_loss", base, phase="train", outputs=match.outputs,
                      targets=match.targets, loss_name=match.name, **_loss_kwargs(match.fn))
        _emit()
        return
    parts = _parts_of(base, pending)
    _S.pending = [p for p in pending if p not in parts]
    _flush_pending()
    if parts:      # a composite loss (criterion + penalty, several criteria): report the total
        _note_loss_parts(base, parts)
        first = parts[0]
        terms = _summed_terms(base, parts)
        extra = {"terms": terms} if terms is not None and _S.pass_terms else {}
        if _S.pass_composite:
            extra["composite"] = True       # the criterion's outputs and targets are not the whole loss
        _call_monitor("on_loss", base, phase="train", outputs=first.outputs,
                      targets=first.targets, loss_name=first.name, **extra)
    else:          # a hand-written loss: no stock criterion went into it
        _call_monitor("on_loss", base, phase="train", loss_name="custom")
    _emit()


#: autograd nodes visited looking for the criteria a composite loss is made of
PARTS_MAX_NODES = 256
#: composite losses whose total and criteria go to the monitor: the first PARTS_FIRST, then every
#: PARTS_EVERY-th (a bound on work: a few detached scalars per sample, no device sync)
PARTS_FIRST, PARTS_EVERY = 10, 50


def _note_loss_parts(base, parts) -> None:
    """A composite loss: its total and its lowest stock criterion, sampled, for probe:loss_weights
    (a total below zero while every criterion stays at or above zero is the script's own terms)."""
    _S.composite_losses += 1
    n = _S.composite_losses
    if (n > PARTS_FIRST and n % PARTS_EVERY) or not hasattr(_S.monitor, "note_loss_parts"):
        return
    try:
        import torch

        _call_monitor("note_loss_parts", base.detach().float().reshape(()), _part_values(torch, parts).min())
    except Exception as e:
        _probe_error("loss parts", e)


def _part_values(torch, parts):
    """The detached values of a composite loss's criteria, as one 1-D tensor (no device sync)."""
    return torch.stack([p.value.detach().float().reshape(()) for p in parts])


def _summed_terms(base, parts):
    """A loss that adds up several calls of one stock criterion (``loss += criterion(out, y[:, t])``
    over a sequence's time steps, the heads of a multi-head model): how many such terms it holds, as
    the total over the mean of the parts, so the monitor reads the loss per term against chance.
    None when the parts are not all one named criterion. Read on the first PARTS_FIRST losses of each
    shape (parts, criterion) and reused after (a device sync each; a script's loss keeps its shape)."""
    name = parts[0].name
    if len(parts) < 2 or name in (None, "custom") or any(p.name != name for p in parts):
        return None
    key = (len(parts), name)
    seen = _S.loss_terms.get(key)
    if seen is not None and seen[1] >= PARTS_FIRST:
        return seen[0]
    try:
        import torch

        mean, total = float(_part_values(torch, parts).mean()), float(base.detach().float())
    except Exception as e:
        _probe_error("loss terms", e)
        return None
    terms = total / mean if mean > 0 and total > 0 and math.isfinite(total / mean) else None
    if terms is not None:
        _S.loss_terms[key] = (terms, (seen[1] if seen else 0) + 1)
    return terms


def _parts_of(loss, pending) -> list:
    """The pending criteria whose outputs feed ``loss`` within a few autograd nodes, in order."""
    wanted = {}
    for p in pending:
        t = p.strong if p.strong is not None else p.ref()
        fn = getattr(t, "grad_fn", None)
        if fn is not None:
            wanted[id(fn)] = (p, fn)          # fn held here, so its identity is stable
    found = set()
    queue, seen = [loss.grad_fn], set()
    while queue and len(seen) < PARTS_MAX_NODES and len(found) < len(wanted):
        fn = queue.pop(0)
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        if id(fn) in wanted:
            found.add(id(fn))
            continue
        queue.extend(nxt for nxt, _ in fn.next_functions)
    return [p for p in pending if id(getattr(p.strong if p.strong is not None else p.ref(),
                                                  "grad_fn", None)) in found]


# -- optimizer steps and model discovery -----------------------------------------------------

def _seen_module(module, args):
    if not _mine():
        return None
    _S.seen_calls += 1
    if id(module) not in _S.seen:
        _S.seen[id(module)] = module
    if len(_S.seen) > DISCOVERY_MAX_MODULES or _S.seen_calls > DISCOVERY_MAX_CALLS:
        _drop_discovery(keep_seen=True)
    return None


def _drop_discovery(keep_seen: bool = False) -> None:
    if _S.discovery_handle is not None:
        _S.discovery_handle.remove()
        _S.discovery_handle = None
    if not keep_seen:
        _S.seen = {}


def _pre_step(optimizer, args, kwargs):
    if not _mine():
        return None
    if _S.optimizer is None:
        _S.optimizer = optimizer
    if optimizer is not _S.optimizer:
        if getattr(_S.monitor, "busy", False):
            return None    # the monitor's own copies training (the overfit-one-batch probe)
        if _remade(_S.optimizer, optimizer):
            # the same optimizer made anew (a trainer that re-creates it, and its schedule, every
            # epoch): the same training with its moments reset, read on as one run
            _S.optimizer = optimizer
            _call_monitor("bind", optimizer=optimizer)
        # another optimizer: a second model trained alongside (a GAN's discriminator steps in
        # turn with the generator) or a new phase (fine-tuning after pretraining): the latter
        # steps on its own, runner.phase_steps times in a row, and the run is then read from it
        other = _S.other_opt() if _S.other_opt is not None else None
        if other is optimizer:
            _S.other_steps += 1
        else:
            _S.other_opt, _S.other_steps = weakref.ref(optimizer), 1
        if _S.other_steps < _pace()["runner.phase_steps"]:
            return None
        _new_phase(optimizer)
    _S.other_steps = 0
    _flush_pending()
    _maybe_stop()
    if _S.max_steps is not None and _S.steps >= _S.max_steps:
        _S.stop_reason = "max_steps"
        raise StopRun("max_steps")
    if not _S.bound:
        try:
            _bind()
        except Exception as e:
            _probe_error("discovery", e)
            _S.bound = True
            _drop_discovery()
    return None


def _remade(old, new) -> bool:
    """``new`` is ``old`` made again: the same class over the same parameters, group by group, with
    the same constructor settings, or with only a lower LR (a step decay written as a new optimizer,
    ``optimizer = Adam(net.parameters(), lr=lrate / 10)`` at a milestone epoch, as AtlasNet and many
    older trainers do: the same training with its moments reset and its LR cut). A new phase
    (fine-tuning after pretraining) changes what is trained or how: other parameters, another
    optimizer, other settings, or a higher LR."""
    if old is None or type(old) is not type(new):
        return False
    try:
        ids = [[id(p) for p in g["params"]] for g in old.param_groups]
        if ids != [[id(p) for p in g["params"]] for g in new.param_groups]:
            return False
        if old.defaults == new.defaults:
            return True
        rest = {k: v for k, v in new.defaults.items() if k != "lr"}
        return rest == {k: v for k, v in old.defaults.items() if k != "lr"} and \
            float(new.defaults["lr"]) < float(old.defaults["lr"])
    except Exception:
        return False


def _post_step(optimizer, args, kwargs):
    if not _mine() or optimizer is not _S.optimizer:
        return None
    _S.steps += 1
    try:
        _emit()
    except Exception as e:
        _probe_error("emit", e)
    return None


def _new_phase(optimizer) -> None:
    """Read the run from here on as a new training phase: a fresh monitor bound to the model this
    optimizer trains (found as on the first step); what the earlier phase measured is dropped."""
    from torch.nn.modules import module as module_mod

    _call_monitor("detach")
    # what existed when the earlier phase began training: a layer built since (a new task's head) has
    # not been trained by this run
    _S.earlier_params.update(_S.phase_params)
    _S.phase_params = {}
    _S.monitor = _make_monitor()
    _S.optimizer, _S.model, _S.bound, _S.bind_attempts = optimizer, None, False, 0
    _S.other_opt, _S.other_steps = None, 0
    _S.pending = []
    _S.declared = weakref.WeakSet()
    _S.seen, _S.seen_calls = {}, 0
    if _S.discovery_handle is None:
        _S.discovery_handle = module_mod.register_module_forward_pre_hook(_seen_module)
    _S.phase += 1
    previous, _S.phase_start = _S.steps - _S.phase_start, _S.steps
    _send({"type": "phase", "phase": _S.phase, "step": _S.steps, "previous_steps": previous})


def _bind() -> None:
    """Find the model trained with the first optimizer and hand both to the monitor."""
    from torch.nn.modules.loss import _Loss

    opt = _S.optimizer
    in_opt = {id(p) for g in opt.param_groups for p in g["params"]}
    _S.bind_attempts += 1
    modules = [m for m in _S.seen.values() if not isinstance(m, _Loss)]
    if not modules and _S.discovery_handle is not None and _S.bind_attempts < _BIND_ATTEMPTS:
        return  # nothing ran through a module yet; try again at the next step
    inner = set()
    for m in modules:
        for sub in m.modules():
            if sub is not m:
                inner.add(id(sub))
    roots = [m for m in modules if id(m) not in inner]
    model = None
    if roots:
        def key(m):
            params = list(m.parameters())
            return (sum(p.numel() for p in params if id(p) in in_opt),
                    sum(p.numel() for p in params))
        model = max(roots, key=key)
    if model is None:
        model = _module_holding(in_opt)
    _drop_discovery()
    _S.model = model
    _S.bound = True
    _call_monitor("bind", model, opt)
    if model is not None:
        _S.phase_params = {id(p): weakref.ref(p) for p in model.parameters()}
        _S.phase_params.update({id(p): weakref.ref(p) for g in opt.param_groups for p in g["params"]})
    if _S.earlier_params and _S.monitor is not None:
        try:
            _S.monitor.earlier_params = dict(_S.earlier_params)
        except Exception as e:   # a monitor of another kind may refuse new attributes
            _probe_error("earlier params", e)
    _call_monitor("attach")
    others = [m for m in roots if m is not model]
    if others and hasattr(_S.monitor, "watch_forwards"):
        _call_monitor("watch_forwards", others)
        if hasattr(_S.monitor, "note_optimizers"):
            _call_monitor("note_optimizers", _S.optimizers)


def _module_holding(param_ids):
    """Fallback when no module was seen running: the root module that holds the optimizer's
    parameters, found among live objects."""
    import gc

    import torch

    holders = [o for o in gc.get_objects() if isinstance(o, torch.nn.Module)
               and any(id(p) in param_ids for p in o.parameters(recurse=False))]
    if not holders:
        return None
    candidates = [o for o in gc.get_objects() if isinstance(o, torch.nn.Module)
                  and any(id(p) in param_ids for p in o.parameters())]
    inner = {id(s) for c in candidates for s in c.modules() if s is not c}
    roots = [c for c in candidates if id(c) not in inner]
    return max(roots, key=lambda m: sum(p.numel() for p in m.parameters()), default=None)


# ============================================================================================
# main

def _error_kinds():
    """A pack's ``console.error_kinds`` (``--params``), compiled; ``None``: the shipped table."""
    table = (_S.params or {}).get("console.error_kinds")
    if not table:
        return None
    from traindx.probes.readers.words import compile_error_kinds
    return compile_error_kinds(table)


def _crash_event(exc: BaseException) -> tuple[dict, str]:
    """The crash event for the parent and the traceback text (the script's own frames only)."""
    te = traceback.TracebackException.from_exception(exc)
    _strip_own_frames(te)
    text = "".join(te.format())
    only = "".join(traceback.format_exception_only(type(exc), exc)).strip().splitlines()
    message = only[-1].strip() if only else type(exc).__name__
    frames = [f for f in traceback.extract_tb(exc.__traceback__)]
    files = [f.filename for f in frames]
    user = [f for f in frames if not _own_file(f.filename) and not _library_file(f.filename)]
    innermost = user[-1] if user else (frames[-1] if frames else None)
    names = [c.__name__ for c in type(exc).__mro__]
    event = {"type": "crash", "exc_type": type(exc).__name__,
             "error_kind": classify_crash(names, str(exc), files, _error_kinds()), "message": message,
             "traceback": text[-20000:],
             "file": innermost.filename if innermost else None,
             "line": innermost.lineno if innermost else None, "syntax": None}
    if isinstance(exc, SyntaxError):
        event["syntax"] = {"msg": exc.msg, "file": exc.filename, "line": exc.lineno,
                           "col": exc.offset}
        event["file"], event["line"] = exc.filename, exc.lineno
    return event, text


def _own_file(filename: str) -> bool:
    f = os.path.abspath(filename) if filename and not filename.startswith("<") else filename or ""
    return f.startswith(_PROBES_DIR + os.sep) or os.path.basename(f) == "runpy.py" \
        or f.startswith("<frozen runpy")


_LIBRARY_DIRS = tuple({os.path.join(p, "lib") + os.sep for p in (sys.prefix, sys.base_prefix,
                                                                    sys.exec_prefix)})


def _library_file(filename: str) -> bool:
    """Installed code (torch, the stdlib), as opposed to the user's own files."""
    f = filename or ""
    return f.startswith("<") or "site-packages" in f or "dist-packages" in f \
        or f.startswith(_LIBRARY_DIRS)


def _strip_own_frames(te) -> None:
    seen = set()
    while te is not None and id(te) not in seen:
        seen.add(id(te))
        stack = list(te.stack)
        i = 0
        while i < len(stack) and _own_file(stack[i].filename):
            i += 1
        if 0 < i < len(stack):
            te.stack = traceback.StackSummary.from_list(stack[i:])
        te = te.__cause__ or te.__context__


def _stop_in_chain(exc: BaseException):
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, StopRun):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def _parse(argv):
    if "--" in argv:
        i = argv.index("--")
        own, rest = argv[:i], argv[i + 1:]
    else:
        own, rest = argv, []
    p = argparse.ArgumentParser(prog="python -m traindx.probes.runner.child")
    p.add_argument("--events", required=True)
    p.add_argument("--control", type=int)
    p.add_argument("--max-steps", type=int)
    p.add_argument("--every", type=int, default=10)
    p.add_argument("--level", default="cheap")
    p.add_argument("--monitor", default=DEFAULT_MONITOR)
    p.add_argument("--setup")
    p.add_argument("--params", help="JSON: parameter overrides (a knowledge pack's) for the monitor")
    p.add_argument("--experiments", action="store_true",
                   help="keep recent batches and, at the end, run the experiments the parent asks for")
    opts = p.parse_args(own)
    if not opts.setup and not rest:
        p.error("a script is required after --")
    return opts, rest


def _run_script(path: str, args) -> None:
    sys.argv = [path, *args]
    script_dir = os.path.dirname(os.path.abspath(path))
    if sys.path and sys.path[0] in ("", os.getcwd()):
        sys.path[0] = script_dir
    else:
        sys.path.insert(0, script_dir)
    if "torch" in sys.modules:
        install()
    else:
        sys.meta_path.insert(0, _TorchImportWatcher(install))
    runpy.run_path(path, run_name="__main__")


def _run_setup(spec: str) -> None:
    from traindx.engine.errors import InputError
    from traindx.probes.runner import setup_call as setup_mod

    def on_step(step: int) -> None:
        _S.steps = step
        _emit()
        _maybe_stop()

    try:
        training = setup_mod.load_setup(spec)
        _S.monitor = _make_monitor(num_classes=training.num_classes)
        setup_mod.instrumented_training(training, _S.monitor, max_steps=_S.max_steps or 200,
                                        call=_call_monitor, on_step=on_step,
                                        check_stop=_maybe_stop)
    except InputError as e:
        _send({"type": "input_error", "message": e.message, "path": e.path, "line": e.line,
               "col": e.col, "hint": e.hint})
        raise SystemExit(2) from None


def main(argv=None) -> int:
    opts, rest = _parse(sys.argv[1:] if argv is None else argv)
    _S.events = _Events(opts.events)
    if opts.control is not None:
        os.set_inheritable(opts.control, False)
        os.set_blocking(opts.control, False)
        _S.control_fd = opts.control
    _S.max_steps = opts.max_steps
    _S.every = max(1, opts.every)
    _S.next_look = _S.every
    _S.level = opts.level
    _S.monitor_spec = opts.monitor
    _S.params = json.loads(opts.params) if opts.params else None
    _S.experiments = bool(opts.experiments)
    signal.signal(signal.SIGTERM, _on_sigterm)
    _adopt_orphans()
    _send({"type": "start", "pid": os.getpid()})

    code, reason = 0, "finished"
    try:
        if opts.setup:
            _run_setup(opts.setup)
        else:
            _run_script(rest[0], rest[1:])
    except SystemExit as e:
        stop = _stop_in_chain(e)
        if stop is not None:
            reason = stop.reason
        elif e.code is None or isinstance(e.code, int):
            code = e.code or 0
        else:
            print(e.code, file=sys.stderr)
            code = 1
    except BaseException as e:  # noqa: BLE001 - the script's crash is the evidence
        stop = _stop_in_chain(e)
        if stop is not None:
            reason = stop.reason
        else:
            event, text = _crash_event(e)
            sys.stderr.write(text)
            _send(event)
            code, reason = 1, "crashed"
    finally:
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
        except ValueError:
            pass
    _finish(code, reason)
    return code


#: at the end of the run, seconds the child waits for the parent's answer to a look
AWAIT_S = 30.0


def _control_line(deadline: float):
    """The next line the parent writes on the control pipe (``stop`` lines skipped), or None at EOF
    or the deadline."""
    import select
    buf = getattr(_S, "control_buf", b"")
    while True:
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            if line.strip() and not line.startswith(b"stop"):
                _S.control_buf = buf
                return line.decode("utf-8", "replace")
        left = deadline - time.monotonic()
        if left <= 0 or _S.control_fd is None:
            _S.control_buf = buf
            return None
        r, _, _ = select.select([_S.control_fd], [], [], left)
        if not r:
            continue
        try:
            data = os.read(_S.control_fd, 65536)
        except BlockingIOError:
            continue
        except OSError:
            data = b""
        if not data:
            _S.control_fd = None
            _S.control_buf = buf
            return None
        buf += data


def _final_experiments() -> None:
    """The run is over: while the parent answers ``experiment {spec}`` (the engine's choice,
    ``traindx.engine.differential``), run it on copies and send the findings again; ``done``, EOF or
    silence ends it."""
    while True:
        line = _control_line(time.monotonic() + AWAIT_S)
        if line is None or not line.startswith("experiment "):
            return
        try:
            spec = json.loads(line[len("experiment "):])
        except ValueError:
            return
        _call_monitor("request_experiment", spec)
        _call_monitor("run_experiments")
        _send(_findings_event(awaiting=True))


def _finish(code: int, reason: str) -> None:
    # the parent gives a run it asked to stop a short grace to reach a step; from here on the
    # last findings are being made, and cutting them short would change the diagnosis
    _send({"type": "stopping", "reason": reason})
    try:
        _flush_pending()
        if _S.monitor is not None:
            awaiting = bool(getattr(_S, "experiments", False)) and _S.control_fd is not None \
                and getattr(_S.monitor, "request_experiment", None) is not None
            _send(_findings_event(awaiting=awaiting))
            if awaiting:
                _final_experiments()
        summary = _call_monitor("summary")
        _call_monitor("detach")
    except BaseException as e:  # noqa: BLE001
        _probe_error("finish", e)
        summary = None
    _send({"type": "exit", "reason": reason, "code": code, "steps": _S.steps,
           "summary": summary if isinstance(summary, dict) else None, "descendants": _descendants()})
    if _S.events is not None:
        _S.events.close()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass


#: prctl(2) option: orphaned descendants are reparented to this process, not to init
_PR_SET_CHILD_SUBREAPER = 36


def _adopt_orphans() -> None:
    """Make the script's process the reaper of its orphaned descendants (Linux): a daemon started
    by double-forking (``os.system("tensorboard ... &")``, a setsid + fork) then stays below it,
    where :func:`_descendants` and the parent's looks find it and stop it with the run; without
    this it went to init and outlived traindx. Nothing else about the script changes."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):   # noqa: BLE001 - best effort: the process-group stop still applies
        pass


def _descendants() -> list[list[int]]:
    """[pid, start time] of every live process the script started, directly or below: sent with
    the exit event, so that the parent can stop a daemon that left the process group (setsid)
    even when it was started after the parent's last look at the process tree."""
    try:
        table = _proc_table()
        children: dict[int, list[int]] = {}
        for pid, (ppid, _pg, _start, state) in table.items():
            if state not in "ZX":
                children.setdefault(ppid, []).append(pid)
        out, stack = [], [os.getpid()]
        while stack and len(out) < _MAX_DESCENDANTS:
            for c in children.get(stack.pop(), ()):
                out.append([c, table[c][2]])
                stack.append(c)
        return out
    except Exception:   # noqa: BLE001 - a best effort: the parent's own looks still apply
        return []


if __name__ == "__main__":
    raise SystemExit(main())
