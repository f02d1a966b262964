"""A hand-written loss, captured as a replayable function of the model's outputs.

The copies the costly probes train (experiments, the LR-decay test) need the run's loss as a function
``loss(outputs, batch)``. A stock criterion is one (``F.cross_entropy``, ``nn.MSELoss()``); a loss the
script writes itself (``(model(xt, t) - eps).pow(2).mean()``, ``(warp(src, disp) - tgt).abs().mean()``,
a focal loss in a helper function) is not, so until now no copy could be trained on such a run.

:class:`TapeRecorder` records it while the run computes it: from the end of a training forward of the
watched model to the loss the monitor is given, a torch-function mode writes down every torch call
that takes the model's outputs (or something computed from them, or one of the model's parameters),
with its other tensors kept as constants (detached references: the batch's targets, the noise a
diffusion step drew). :class:`LossTape` replays those calls on a copy's outputs, with the copy's own
parameters: the same differentiable function of the outputs and the batch.

The user's run is unchanged: the mode calls every function exactly as it was called and returns its
result; nothing is drawn from any RNG; the mode is popped before the loss's backward (and on every
exit path, :meth:`TapeRecorder.close`); the forward hook is inert on copies.
"""

from __future__ import annotations

#: How deep into nested outputs (tuples, lists, dicts, dataclasses) the tape looks for tensors: the
#: shape of model outputs, a bound on work, not knowledge.
_NEST_DEPTH = 3

#: the fewest tensors of the model's outputs a tape keeps apart (more than this: not replayable)
_MAX_OUTPUTS = 16


class _Slot:
    __slots__ = ("k",)

    def __init__(self, k):
        self.k = k


class _Const:
    __slots__ = ("t",)

    def __init__(self, t):
        self.t = t


class _Param:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


def flat_tensors(obj, depth=0) -> list:
    """The tensors of a model's output (tensor, tuple/list, dict values in order), depth-first."""
    import torch

    if torch.is_tensor(obj):
        return [obj]
    out = []
    if depth < _NEST_DEPTH and isinstance(obj, (list, tuple)):
        for o in obj:
            out.extend(flat_tensors(o, depth + 1))
    elif depth < _NEST_DEPTH and isinstance(obj, dict):
        for o in obj.values():
            out.extend(flat_tensors(o, depth + 1))
    elif depth < _NEST_DEPTH and hasattr(obj, "__dataclass_fields__"):
        for name in obj.__dataclass_fields__:
            out.extend(flat_tensors(getattr(obj, name, None), depth + 1))
    return out


class LossTape:
    """The loss of one training batch as a replayable function of the model's outputs: ``ops`` in
    order (function, argument templates, output slots), the shapes of the outputs it starts from, and
    the slot holding the loss. Stands where a stock loss has its targets: ``replay(outputs, model)``."""

    __slots__ = ("ops", "out_shapes", "result", "nbytes", "targets")

    def __init__(self, ops, out_shapes, result, nbytes, targets=None):
        self.targets = targets           # the targets the run named with this loss, if any
        self.ops = ops
        self.out_shapes = out_shapes
        self.result = result
        self.nbytes = nbytes

    def bound(self, model) -> BoundTape:
        """This tape with ``model``'s parameters standing for the run's (a copy's, for its loss)."""
        return BoundTape(self, model)

    def replay(self, outputs, model=None):
        flat = flat_tensors(outputs)
        if len(flat) != len(self.out_shapes) or any(tuple(t.shape) != s for t, s in zip(flat, self.out_shapes)):
            raise ValueError("the copy's outputs differ from those the run's loss was computed from")
        vals = dict(enumerate(flat))
        params = {}

        def mat(o):
            c = type(o)
            if c is _Slot:
                return vals[o.k]
            if c is _Const:
                return o.t
            if c is _Param:
                if o.name not in params:
                    params[o.name] = model.get_parameter(o.name)
                return params[o.name]
            if c is list or c is tuple:
                return c(mat(x) for x in o)
            if c is dict:
                return {k: mat(v) for k, v in o.items()}
            return o

        for func, args, kwargs, outs in self.ops:
            res = func(*mat(args), **mat(kwargs))
            if type(outs) is int:
                vals[outs] = res
            else:
                for i, k in outs:
                    vals[k] = res[i]
        return vals[self.result]


class BoundTape:
    """A tape and the model whose parameters it replays with (what :func:`replay_loss` is given)."""

    __slots__ = ("tape", "model")

    def __init__(self, tape, model):
        self.tape = tape
        self.model = model


def replay_loss(outputs, tape):
    """The loss function of a run whose kept batches hold tapes: ``loss_fn(outputs, targets)``."""
    if type(tape) is BoundTape:
        return tape.tape.replay(outputs, tape.model)
    return tape.replay(outputs)


def holds_tapes(batches) -> bool:
    """Whether the kept batches (``(args, kwargs, targets, ...)``) carry tapes for targets."""
    return any(type(b[2]) is LossTape for b in batches)


class TapeRecorder:
    """Records the hand-written loss of each training step of ``model`` (see the module doc).

    ``start`` (the model's forward hook: a training forward with gradients on) opens a tape and pushes
    the mode; ``finish(loss)`` (the monitor, given the training loss before backward) pops it and
    returns the :class:`LossTape` when ``loss`` was computed from exactly that one forward within
    ``max_ops`` recorded calls, else None. ``close`` pops the mode and removes the hook."""

    def __init__(self, model, max_ops: int):
        import torch

        self.model = model
        self.max_ops = int(max_ops)
        self._mode = None
        self._handle = None
        self._params = {}
        self._fwds = 0
        self._reset()
        try:
            self._params = {id(p): n for n, p in model.named_parameters()}
        except Exception:
            self._params = {}
        from traindx.probes.live.hooks import CopyInert

        self._torch = torch
        self._handle = model.register_forward_hook(CopyInert(self._forward))

    def _reset(self):
        self.slots: dict[int, int] = {}      # id(tensor) -> slot
        self.held: list = []                 # the tensors behind those ids, held while recording
        self.ops: list = []
        self.out_shapes = None
        self.nbytes = 0
        self.broken = False
        self.next = 0

    # ------------------------------------------------------------------ the window
    def _forward(self, module, args, output):
        torch = self._torch
        self._pop()
        if not (torch.is_grad_enabled() and module.training):
            return None
        self._fwds += 1
        self._reset()
        flat = flat_tensors(output)
        if not flat or len(flat) > _MAX_OUTPUTS:
            return None
        for t in flat:
            self._assign(t)
        self.out_shapes = [tuple(t.shape) for t in flat]
        self._push()
        return None

    def _push(self):
        m = _mode_class()(self)
        m.__enter__()
        self._mode = m

    def _pop(self):
        """Pop the mode if it is the innermost one (a mode the script pushed after it stays; ours is
        then left inert and popped when that one is gone or at close)."""
        m = self._mode
        if m is None:
            return
        C = self._torch._C
        n = C._len_torch_function_stack()
        if n and C._get_function_stack_at(n - 1) is m:
            C._pop_torch_function_stack()
            self._mode = None
        else:
            self.broken = True

    def close(self):
        self._pop()
        if self._mode is not None:       # not innermost: take it out wherever it is
            C = self._torch._C
            kept = []
            while C._len_torch_function_stack():
                top = C._pop_torch_function_stack()
                if top is self._mode:
                    break
                kept.append(top)
            for t in reversed(kept):
                C._push_on_torch_function_stack(t)
            self._mode = None
        if self._handle is not None:
            self._handle.remove()
            self._handle = None
        self._reset()

    # ------------------------------------------------------------------ recording
    def _assign(self, t):
        k = self.next
        self.next = k + 1
        self.slots[id(t)] = k
        self.held.append(t)
        return k

    def _template(self, o, depth=0):
        torch = self._torch
        if isinstance(o, torch.Tensor):
            k = self.slots.get(id(o))
            if k is not None:
                return _Slot(k), True
            name = self._params.get(id(o))
            if name is not None:
                return _Param(name), True
            c = o.detach()
            self.nbytes += c.numel() * c.element_size()
            return _Const(c), False
        if depth < _NEST_DEPTH and isinstance(o, (list, tuple)):
            parts = [self._template(x, depth + 1) for x in o]
            if not any(type(p) in (_Slot, _Const, _Param) or p is not x for (p, _), x in zip(parts, o)):
                return o, False          # no tensor inside (a shape, a list of dims): as it was
            return (tuple if type(o) is not list else list)(p for p, _ in parts), any(h for _, h in parts)
        if depth < _NEST_DEPTH and type(o) is dict:
            parts = {k: self._template(v, depth + 1) for k, v in o.items()}
            return {k: p for k, (p, _) in parts.items()}, any(h for _, h in parts.values())
        return o, False

    def _touches(self, o, depth=0) -> bool:
        torch = self._torch
        if isinstance(o, torch.Tensor):
            return id(o) in self.slots or id(o) in self._params
        if depth < _NEST_DEPTH and isinstance(o, (list, tuple)):
            return any(self._touches(x, depth + 1) for x in o)
        if depth < _NEST_DEPTH and type(o) is dict:
            return any(self._touches(x, depth + 1) for x in o.values())
        return False

    def _record(self, func, args, kwargs, out):
        if self.out_shapes is None or not (self._touches(args) or self._touches(kwargs)):
            return
        torch = self._torch
        if isinstance(out, torch.Tensor):
            outs = None
        elif isinstance(out, (list, tuple)) and any(isinstance(x, torch.Tensor) for x in out):
            outs = [(i, x) for i, x in enumerate(out) if isinstance(x, torch.Tensor)]
        else:
            return                   # .item(), .shape, .backward(): nothing a later call takes
        if len(self.ops) >= self.max_ops:
            self.broken = True
            return
        a, _ = self._template(args)
        kw, _ = self._template(kwargs)
        if outs is None:
            self.ops.append((func, a, kw, self._assign(out)))
        else:
            self.ops.append((func, a, kw, [(i, self._assign(x)) for i, x in outs]))

    # ------------------------------------------------------------------ the loss
    def finish(self, loss, targets=None):
        """The tape of ``loss`` (the training loss, before its backward), or None. Always pops the
        mode and forgets what was held. ``targets``: those the run named with the loss (kept on the
        tape for a loss function given explicitly)."""
        self._pop()
        fwds, self._fwds = self._fwds, 0
        try:
            k = self.slots.get(id(loss))
            if self.broken or fwds != 1 or k is None or self.out_shapes is None:
                return None
            ops = _needed(self.ops, k)
            return LossTape(ops, list(self.out_shapes), k, self.nbytes, targets)
        finally:
            self._reset()


_MODE = []


def _mode_class():
    """The torch-function mode class (built once, torch imported lazily): it calls every function
    as called and returns its result, recording the call on its recorder."""
    if not _MODE:
        from torch.overrides import TorchFunctionMode

        class _Mode(TorchFunctionMode):
            def __init__(self, rec):
                super().__init__()
                self.rec = rec

            def __torch_function__(self, func, types, args=(), kwargs=None):
                kwargs = kwargs or {}
                out = func(*args, **kwargs)
                rec = self.rec
                if not rec.broken:
                    try:
                        rec._record(func, args, kwargs, out)
                    except Exception:
                        rec.broken = True
                return out

        _MODE.append(_Mode)
    return _MODE[0]


def _needed(ops, result):
    """The ops ``result`` depends on, in order (a metric computed beside the loss is dropped)."""
    need = {result}
    keep = []
    for op in reversed(ops):
        func, args, kwargs, outs = op
        made = {outs} if type(outs) is int else {k for _, k in outs}
        if made & need:
            keep.append(op)
            need |= _slots_in(args) | _slots_in(kwargs)
    keep.reverse()
    return keep


def _slots_in(o) -> set:
    if type(o) is _Slot:
        return {o.k}
    if isinstance(o, (list, tuple)):
        s = set()
        for x in o:
            s |= _slots_in(x)
        return s
    if type(o) is dict:
        s = set()
        for x in o.values():
            s |= _slots_in(x)
        return s
    return set()


#: the torch calls (by name) whose result is a row of log-probabilities over the last axis
_LOG_PROBS = frozenset({"log_softmax"})
_SOFTMAX = frozenset({"softmax"})
_MUL = frozenset({"mul", "__mul__", "__rmul__", "multiply", "mul_"})
#: the largest value a 0/1 mask or a one-hot row holds: a column of whole numbers reaching past it
#: counts classes (a definition, not a tuned cut)
_MASK_MAX = 1


def _name(func) -> str:
    return getattr(func, "__name__", "") or ""


def class_ids_weigh_log_probs(tape) -> str | None:
    """What a hand-written soft-target cross-entropy (``-(y * log_softmax(z)).sum(-1)``) computed when
    ``y`` holds class indices, not one-hot rows: the tape multiplies log-probabilities over C classes
    by a constant of one column whose values are whole numbers 0..C-1 reaching 2 or more (an index, not
    a 0/1 mask or a weight), so each example's index scales the log-probabilities of every class and
    the loss is minimised by flat outputs. The detail, or None. Reads the tape only (no tensor is
    computed but the constant's min/max)."""
    import torch

    if tape is None or not tape.out_shapes or len(tape.out_shapes[0]) < 2:
        return None
    width = tape.out_shapes[0][-1]          # an index past a mask's 1 needs 3 classes or more (below)
    logp, soft = set(), set()
    for func, args, _kw, outs in tape.ops:
        if type(outs) is not int:
            continue
        n = _name(func)
        slots = [a.k for a in args if type(a) is _Slot] if isinstance(args, (list, tuple)) else []
        if n in _LOG_PROBS:
            logp.add(outs)
        elif n in _SOFTMAX:
            soft.add(outs)
        elif n == "log" and any(k in soft for k in slots):
            logp.add(outs)
        elif n in _MUL and any(k in logp for k in slots):
            for a in args:
                if type(a) is not _Const:
                    continue
                c = a.t
                if c.dim() < 2 or c.shape[-1] != 1 or c.numel() < 2 or c.is_complex():
                    continue
                with torch.no_grad():
                    f = c.float()
                    lo, hi = float(f.min()), float(f.max())
                    whole = bool((f == f.round()).all())
                if whole and lo >= 0 and _MASK_MAX < hi <= width - 1:
                    return (f"the hand-written loss multiplies the log-probabilities of all {width} classes by "
                            f"one column of class indices ({int(lo)}..{int(hi)}), not one-hot rows: each "
                            f"example's index scales every class's log-probability")
    return None
