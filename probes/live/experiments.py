"""Experiments on copies (costly: only when the engine asks, at most a few per run).

Source (kb/sources.yaml): ``probe:experiment``; the experiments are declared in
``kb/experiments.yaml`` and chosen by ``traindx.engine.differential``.

:func:`run_experiment` makes two copies of the model and its optimizer (``overfit.clean_copy`` /
``copy_optimizer``: no hooks, optimizer state deep-copied), changes one thing on the *treated* copy
(one intervention of the closed vocabulary in :data:`INTERVENTIONS`), and trains both for the same
number of steps on the run's own recent batches, the *control* copy as the user's run trains (its
gradient clipping, its accumulation of gradients, its autocast). Both are scored on held-out recent
batches that neither trained on, in eval mode without gradients, before and at the last
checkpoints. The measurement is declared in the knowledge base:

* ``heldout_gain``: the relative fall of the held-out loss that the treatment bought over the
  control, paired per held-out batch: ``gain = mean(c_i - t_i) / mean(c_i)`` and ``z = mean(d) /
  se(d)``. It confirms only when ``gain >= confirm_gain`` *and* ``z >= confirm_z``: a gain inside
  the batch-to-batch noise is what the data allows, not a cause (a run at its noise floor where a
  lower LR shaves a little more loss is healthy). ``gain < refute_gain`` refutes. The report also
  gives the held-out batches' own relative spread under the unchanged copy (``spread``: stdev over
  mean of the per-batch losses), the yardstick a reader compares the gain with.
* ``finite``: the treated copy stays finite where the control goes NaN/Inf confirms; both finite,
  or both non-finite, refutes.
* ``progress_ratio``: how far the treated copy's held-out loss fell from its own start against how
  far the unchanged copy's fell: ``treated_drop >= confirm_ratio * control_drop`` (and at least
  ``min_drop``, the paired gain ``confirm_z`` standard errors above noise) confirms; a fall below
  ``min_drop`` or within ``refute_ratio`` times the control's refutes. A loss held back by a too
  small LR, frozen weights or parameters the optimizer never sees moves in proportion to the fix.
* ``oscillation_ratio``: the treated copy's mean absolute step-to-step change of the training loss
  over the control's; ``<= confirm_ratio`` confirms, ``>= refute_ratio`` refutes.

Nothing of the user's run changes: copies only; the torch/numpy/random RNG states saved and restored
(``data.preserved_rng``); the user's batches only read (a treated copy that transforms inputs makes
new tensors); no hook is registered on the user's model.
"""

from __future__ import annotations

import functools
import math
import statistics

from traindx.engine.parameters import resolve
from traindx.probes.live.data import preserved_rng, rng_rewind, tensors_in
from traindx.probes.live.loss_tape import LossTape, replay_loss
from traindx.probes.live.overfit import batch_loss, clean_copy, copy_optimizer, output_mismatch

#: the closed vocabulary of interventions (kb schema ``kb-experiments``)
INTERVENTIONS = ("lr_scale", "restore_peak_lr", "unfreeze", "add_missing_params_to_optimizer",
                 "zero_grad_every_step", "shuffle_batches", "standardize_inputs", "drop_output_squash",
                 "train_mode", "clip_grad_norm", "remove_clipping", "upcast", "fp32_instead_of_fp16",
                 "larger_batch_by_accumulation", "remove_regularization", "leaky_relu", "reinit",
                 "sanitize_inputs")
class NotApplicable(Exception):
    """The intervention does not apply to this model/run (no frozen parameter to unfreeze, ...)."""


class _Plan:
    """How one copy trains: the model, its optimizer and the knobs of the loop."""

    def __init__(self, model, optimizer, autocast):
        self.model = model
        self.optimizer = optimizer
        self.autocast = autocast
        self.zero_grad = True
        self.clip = None            # max_norm
        self.accumulate = 1         # batches per optimizer step
        self.training = model.training
        self.params = resolve(None)   # the knowledge base's values (set by _train_both_copies)
        self.out_fn = None          # outputs -> outputs before the loss
        self.in_fn = None           # batch -> batch
        self.train_batches = None   # a different order/mix of the training batches
        self.held_batches = None


# ------------------------------------------------------------------ batches
def _is_batch_tensor(t, n):
    import torch
    return torch.is_tensor(t) and t.dim() >= 1 and t.shape[0] == n


def _batch_len(batch):
    args, kwargs, targets, _ = batch
    import torch
    if torch.is_tensor(targets) and targets.dim() >= 1:
        return int(targets.shape[0])
    return None


def _map_inputs(batch, fn):
    """The batch with ``fn`` applied to every floating tensor among the model's inputs."""
    import torch
    args, kwargs, targets, out_shape = batch

    def m(o):
        if torch.is_tensor(o):
            return fn(o) if o.is_floating_point() else o
        if isinstance(o, (list, tuple)):
            return type(o)(m(x) for x in o)
        if isinstance(o, dict):
            return {k: m(v) for k, v in o.items()}
        return o
    return (m(tuple(args)), m(dict(kwargs or {})), targets, out_shape)


def _columns(batches):
    """The examples of ``batches`` as columns (one tensor per positional input, and the targets), in
    stream order; None when a batch holds something other than per-example tensors of one layout."""
    import torch
    sizes = [_batch_len(b) for b in batches]
    if any(s is None for s in sizes) or not batches:
        return None
    for (args, kwargs, targets, _), n in zip(batches, sizes):
        if kwargs or not args or not all(_is_batch_tensor(a, n) for a in args):
            return None
        if any(tuple(a.shape[1:]) != tuple(batches[0][0][i].shape[1:]) for i, a in enumerate(args)) \
                or tuple(targets.shape[1:]) != tuple(batches[0][2].shape[1:]) or len(args) != len(batches[0][0]):
            return None
    n_args = len(batches[0][0])
    cols = [torch.cat([b[0][i] for b in batches]) for i in range(n_args)]
    return cols, torch.cat([b[2] for b in batches]), sizes


def _chunks(cols, tcol, idx, size, out_shape):
    """Batches of ``size`` examples (the last one may be smaller) taken at ``idx``, in that order."""
    out = []
    for start in range(0, len(idx), size):
        sl = idx[start:start + size]
        n = len(sl)
        shape = None
        if out_shape is not None and len(out_shape) >= 1:
            shape = (n, *tuple(out_shape)[1:])
        out.append((tuple(c[sl.to(c.device)] for c in cols), {}, tcol[sl.to(tcol.device)], shape))
    return out


def _mix(batches, seed):
    """The examples of ``batches`` shuffled across them (same batch sizes); None when a batch holds
    something other than per-example tensors."""
    import torch
    got = _columns(batches)
    if got is None:
        return None
    cols, tcol, sizes = got
    g = torch.Generator(device="cpu").manual_seed(seed)
    perm = torch.randperm(tcol.shape[0], generator=g)
    out, start = [], 0
    for b, n in zip(batches, sizes):
        shape = b[3] if b[3] is not None and len(b[3]) >= 1 and b[3][0] == n else None
        out += _chunks(cols, tcol, perm[start:start + n], n, shape)
        start += n
    return out


def _order_split(batches, n_held: int, seed: int):
    """For the shuffle experiment: the kept batches' examples split at random into a held-out share
    (``n_held`` batches' worth, drawn from the whole window, so the held-out set mixes every part of
    the stream) and the rest, which both copies train on -- the unchanged copy in the run's own order,
    the treated one shuffled. No copy ever trains on a held-out example: a copy that did would fit
    them by memory, whatever the order. Returns (training batches in stream order, held-out batches)
    or None (the batches cannot be split into examples)."""
    import torch
    got = _columns(batches)
    if got is None:
        return None
    cols, tcol, sizes = got
    size = max(sizes)
    n = tcol.shape[0]
    k = min(n - 1, max(1, round(n * n_held / len(batches))))
    g = torch.Generator(device="cpu").manual_seed(seed)
    perm = torch.randperm(n, generator=g)
    # the held-out batches each mix the whole window (so their paired differences are alike), while
    # the training examples keep the stream's order
    held_idx, train_idx = perm[:k], perm[k:].sort().values
    shape = batches[0][3]
    return _chunks(cols, tcol, train_idx, size, shape), _chunks(cols, tcol, held_idx, size, shape)


def _group_defaults(optimizer):
    g = optimizer.param_groups[0]
    return {k: v for k, v in g.items() if k != "params"}


def _add_params(plan, params):
    params = [p for p in params]
    if not params:
        raise NotApplicable("no parameter to add")
    plan.optimizer.add_param_group({**_group_defaults(plan.optimizer), "params": params})


# Each intervention is one function (plan, iv, ctx, train, held) that changes the plan (the copy the
# experiment trains) or raises NotApplicable; _INTERVENTIONS maps the KB's `kind` to it.
def _lr_scale(plan: _Plan, iv: dict, ctx: dict, train, held):
    if not any(g.get("lr") for g in plan.optimizer.param_groups):
        raise NotApplicable("the LR is 0: no multiple of it changes anything")
    for g in plan.optimizer.param_groups:
        if isinstance(g.get("lr"), (int, float)):
            g["lr"] = g["lr"] * float(iv.get("factor", 10))


def _restore_peak_lr(plan: _Plan, iv: dict, ctx: dict, train, held):
    opt = plan.optimizer
    peak = ctx.get("peak_lr")
    lr = opt.param_groups[0].get("lr")
    below = plan.params["experiments.restore_below_peak"]
    if not peak or not isinstance(lr, (int, float)) or lr >= below * peak:
        share = "half" if below == 0.5 else f"{below:g} of"
        raise NotApplicable(f"the LR has not fallen below {share} its peak")
    for g in opt.param_groups:
        if isinstance(g.get("lr"), (int, float)) and g["lr"] > 0:
            g["lr"] = g["lr"] * peak / lr
        elif g.get("lr") == 0:      # the schedule set it to 0 (a StepLR with gamma=0): nothing to scale
            g["lr"] = g.get("initial_lr") or peak


def _params_in_optimizer(opt) -> set:
    return {id(p) for g in opt.param_groups for p in g["params"]}


def _unfreeze(plan: _Plan, iv: dict, ctx: dict, train, held):
    frozen = [p for p in plan.model.parameters() if not p.requires_grad and p.is_floating_point()]
    if not frozen:
        raise NotApplicable("no frozen parameter")
    for p in frozen:
        p.requires_grad_(True)
    in_opt = _params_in_optimizer(plan.optimizer)
    rest = [p for p in frozen if id(p) not in in_opt]
    if rest:
        _add_params(plan, rest)


def _add_missing_params(plan: _Plan, iv: dict, ctx: dict, train, held):
    in_opt = _params_in_optimizer(plan.optimizer)
    _add_params(plan, [p for p in plan.model.parameters() if p.requires_grad and id(p) not in in_opt])


def _zero_grad_every_step(plan: _Plan, iv: dict, ctx: dict, train, held):
    if not ctx.get("accumulates"):
        raise NotApplicable("the run's gradients do not accumulate")
    plan.zero_grad = True        # the control accumulates (see _control)


def _shuffle_batches(plan: _Plan, iv: dict, ctx: dict, train, held):
    # ``train`` holds the examples both copies train on, in the run's order (see _order_split)
    mixed = _mix(train, seed=int(iv.get("seed", 0)))
    if mixed is None:
        raise NotApplicable("the batches cannot be split into examples")
    plan.train_batches = mixed


def _standardize_inputs(plan: _Plan, iv: dict, ctx: dict, train, held):
    import torch
    xs = [t for b in train for t in tensors_in([list(b[0])]) if t.is_floating_point() and t.dim() >= 2][:len(train)]
    if not xs or any(x.shape[1:] != xs[0].shape[1:] for x in xs):
        raise NotApplicable("no floating inputs with features")
    with torch.no_grad():
        allx = torch.cat([x.detach().float() for x in xs])
        dims = [0] + list(range(2, allx.dim()))     # per feature (per channel for images)
        mean = allx.mean(dim=dims, keepdim=True)[0:1]
        std = allx.std(dim=dims, keepdim=True)[0:1].clamp_min(1e-6)
    shape = xs[0].shape[1:]

    def fn(t, mean=mean, std=std, shape=shape):
        if t.dim() >= 2 and t.shape[1:] == shape:
            return ((t.float() - mean.to(t.device)) / std.to(t.device)).to(t.dtype)
        return t
    plan.in_fn = fn


def _drop_output_squash(plan: _Plan, iv: dict, ctx: dict, train, held):
    tol = float(plan.params["output_squash.sum_tolerance"])
    plan.out_fn = lambda out: _unsquash(out, tol)


def _train_mode(plan: _Plan, iv: dict, ctx: dict, train, held):
    if ctx.get("training", plan.model.training):
        raise NotApplicable("the run already trains in train mode")
    plan.training = True


def _clip_grad_norm(plan: _Plan, iv: dict, ctx: dict, train, held):
    plan.clip = float(iv.get("max_norm", 1.0))


def _remove_clipping(plan: _Plan, iv: dict, ctx: dict, train, held):
    if not ctx.get("clip_max"):
        raise NotApplicable("the run does not clip")
    plan.clip = None


def _upcast(plan: _Plan, iv: dict, ctx: dict, train, held):
    import torch
    model, opt = plan.model, plan.optimizer
    half = any(p.dtype in (torch.float16, torch.bfloat16) for p in model.parameters())
    if not plan.autocast and not half:
        raise NotApplicable("the run trains in fp32")
    plan.autocast = None
    if half:
        model.float()
        for st in opt.state.values():
            for k, v in list(st.items()):
                if torch.is_tensor(v) and v.is_floating_point():
                    st[k] = v.float()
        plan.in_fn = lambda t: t.float()


def _larger_batch_by_accumulation(plan: _Plan, iv: dict, ctx: dict, train, held):
    plan.accumulate = int(iv.get("batches", 4))


def _remove_regularization(plan: _Plan, iv: dict, ctx: dict, train, held):
    import torch
    found = False
    for g in plan.optimizer.param_groups:
        if g.get("weight_decay"):
            g["weight_decay"] = 0.0
            found = True
    for m in plan.model.modules():
        if isinstance(m, torch.nn.modules.dropout._DropoutNd) and m.p > 0:
            m.p = 0.0
            found = True
    if not found:
        raise NotApplicable("no weight decay or dropout")


def _leaky_relu(plan: _Plan, iv: dict, ctx: dict, train, held):
    import torch
    n = 0
    for parent in plan.model.modules():
        for name, child in list(parent.named_children()):
            if type(child) is torch.nn.ReLU:
                setattr(parent, name, torch.nn.LeakyReLU(0.01))
                n += 1
    if not n:
        raise NotApplicable("no nn.ReLU module")


def _reinit(plan: _Plan, iv: dict, ctx: dict, train, held):
    import torch
    n = 0
    with torch.no_grad():
        for m in plan.model.modules():
            if hasattr(m, "reset_parameters") and any(True for _ in m.parameters(recurse=False)):
                m.reset_parameters()
                n += 1
    if not n:
        raise NotApplicable("no layer with reset_parameters")
    for st in plan.optimizer.state.values():
        st.clear()


def _sanitize_inputs(plan: _Plan, iv: dict, ctx: dict, train, held):
    import torch
    plan.in_fn = lambda t: torch.nan_to_num(t, nan=0.0, posinf=0.0, neginf=0.0)


_INTERVENTIONS = {
    "lr_scale": _lr_scale,
    "restore_peak_lr": _restore_peak_lr,
    "unfreeze": _unfreeze,
    "add_missing_params_to_optimizer": _add_missing_params,
    "zero_grad_every_step": _zero_grad_every_step,
    "shuffle_batches": _shuffle_batches,
    "standardize_inputs": _standardize_inputs,
    "drop_output_squash": _drop_output_squash,
    "train_mode": _train_mode,
    "clip_grad_norm": _clip_grad_norm,
    "remove_clipping": _remove_clipping,
    "upcast": _upcast,
    "fp32_instead_of_fp16": _upcast,
    "larger_batch_by_accumulation": _larger_batch_by_accumulation,
    "remove_regularization": _remove_regularization,
    "leaky_relu": _leaky_relu,
    "reinit": _reinit,
    "sanitize_inputs": _sanitize_inputs,
}


def _apply(plan: _Plan, iv: dict, ctx: dict, train, held):
    """Apply one intervention of the KB (its `kind`) to the experiment's plan."""
    fn = _INTERVENTIONS.get(iv["kind"])
    if fn is None:
        raise ValueError(f"unknown intervention {iv['kind']!r}")
    fn(plan, iv, ctx, train, held)



def _unsquash(out, tol):
    """Undo a softmax/sigmoid already applied to ``out``: log of probabilities that sum to 1 (within
    ``tol``, ``output_squash.sum_tolerance``), else the logit of values in [0, 1]; anything else
    passes unchanged."""
    import torch
    if not torch.is_tensor(out) or not out.is_floating_point() or out.numel() == 0:
        return out
    with torch.no_grad():
        lo, hi = float(out.min()), float(out.max())
        sums_to_one = out.dim() >= 2 and bool(((out.sum(dim=-1) - 1).abs() < tol).all())
    if lo < 0 or hi > 1:
        return out
    if sums_to_one:
        return torch.log(out.clamp_min(1e-12))
    p = out.clamp(1e-6, 1 - 1e-6)
    return torch.log(p) - torch.log1p(-p)


def _control(plan: _Plan, ctx: dict, iv_kind: str):
    """The unchanged copy trains as the user's run does."""
    plan.clip = ctx.get("clip_max")
    if ctx.get("accumulates") and iv_kind == "zero_grad_every_step":
        plan.zero_grad = False


# ------------------------------------------------------------------ training and scoring
def _loss(plan, batch):
    if plan.in_fn is not None:
        batch = _map_inputs(batch, plan.in_fn)
    args, kwargs, targets, out_shape = batch
    fn = plan.loss_fn
    if type(targets) is LossTape and fn is replay_loss:
        targets = targets.bound(plan.model)     # a hand-written loss, with this copy's parameters
    if plan.out_fn is not None:
        inner, of = fn, plan.out_fn
        fn = lambda o, t: inner(of(o), t)  # noqa: E731
    return batch_loss(plan.model, fn, args, kwargs, targets, out_shape, plan.autocast)


def _score(plan, held) -> list[float]:
    import torch
    model = plan.model
    was = model.training
    model.eval()
    try:
        with torch.no_grad():
            return [float(_loss(plan, b).detach().float()) for b in held]
    finally:
        model.train(was)


def _train(plan, train, held, steps, checkpoints):
    import torch
    model, opt = plan.model, plan.optimizer
    model.train(plan.training)
    losses, scores, finite = [], [], True
    params = [p for g in opt.param_groups for p in g["params"]]
    i = 0
    opt.zero_grad(set_to_none=True)
    for step in range(steps):
        if plan.zero_grad:
            opt.zero_grad(set_to_none=True)
        for _ in range(plan.accumulate):
            b = train[i % len(train)]
            i += 1
            loss = _loss(plan, b)
            v = float(loss.detach().float())
            if not math.isfinite(v):
                finite = False
                break
            (loss / plan.accumulate).backward()
            losses.append(v)
        if not finite:
            break
        if plan.clip:
            torch.nn.utils.clip_grad_norm_(params, plan.clip)
        opt.step()
        if step + 1 in checkpoints:
            s = _score(plan, held)
            if not all(math.isfinite(x) for x in s):
                finite = False
                break
            scores.append(s)
    return {"losses": losses, "scores": scores, "finite": finite, "steps_done": step + 1 if steps else 0}


def _swing(losses, min_losses):
    """Mean step-to-step change relative to the mean level; NaN under ``min_losses`` losses."""
    if len(losses) < min_losses:
        return math.nan
    m = statistics.fmean(abs(x) for x in losses) or 1e-12
    return statistics.fmean(abs(b - a) for a, b in zip(losses, losses[1:])) / m


def _mean_per_batch(scores):
    if not scores:
        return None
    return [statistics.fmean(s[j] for s in scores) for j in range(len(scores[0]))]


def decide(measure: dict, r: dict) -> str:
    """The outcome (confirms / refutes / inconclusive) of a measurement ``r`` under ``measure``."""
    metric = measure["metric"]
    if r.get("no_effect") and measure.get("if_unchanged", "inconclusive") == "inconclusive":
        return "inconclusive"
    if metric == "finite":
        t, c = r["treated_finite"], r["control_finite"]
        if t and not c:
            return "confirms"
        if t and c and r.get("from_start"):
            return "inconclusive"       # restarted from the first weights, the blow-up did not come back
        if t == c:
            return "refutes" if t else "inconclusive"
        return "refutes"
    if metric == "oscillation_ratio":
        ratio = r.get("swing_ratio")
        if ratio is None or not math.isfinite(ratio):
            return "inconclusive"
        if ratio <= measure["confirm_ratio"]:
            return "confirms"
        return "refutes" if ratio >= measure["refute_ratio"] else "inconclusive"
    if not r["treated_finite"] and r["control_finite"]:
        return "refutes"
    if metric == "progress_ratio":
        td, cd, z = r.get("treated_drop"), r.get("control_drop"), r.get("z")
        if td is None or cd is None:
            return "confirms" if (r["treated_finite"] and not r["control_finite"]) else "inconclusive"
        base = max(cd, 0.0)
        if td < measure.get("min_drop", 0.0) or td <= measure["refute_ratio"] * base:
            return "refutes"
        if td >= measure["confirm_ratio"] * base and (z is None or z >= measure.get("confirm_z", 0)):
            return "confirms"
        return "inconclusive"
    # heldout_gain
    gain, z = r.get("gain"), r.get("z")
    if gain is None or not math.isfinite(gain):
        return "confirms" if (r["treated_finite"] and not r["control_finite"]) else "inconclusive"
    spread = r.get("trajectory_spread")
    if gain >= measure["confirm_gain"] and (z is None or z >= measure.get("confirm_z", 0)) \
            and (spread is None or gain >= measure.get("trajectory_factor", 0) * spread):
        return "confirms"
    if gain < measure["refute_gain"]:
        return "refutes"
    return "inconclusive"


def run_experiment(model, optimizer, batches, loss_fn, spec: dict, *, context: dict | None = None,
                   autocast: tuple | None = None, params=None) -> dict:
    """Run experiment ``spec`` (``traindx.engine.differential.spec``: id, intervention, steps,
    measure) on copies of ``model``/``optimizer`` fed ``batches`` (recent training batches, each
    ``(args, kwargs, targets, out_shape)``, oldest first; the last quarter held out).
    ``context``: what the run does that the control must copy (``clip_max``, ``accumulates``,
    ``peak_lr``, ``training``). Returns plain data: ``outcome`` (confirms / refutes / inconclusive),
    the measured numbers and a one-line ``detail``; or ``{"outcome": None, "skipped": reason}``."""
    ctx = dict(context or {})
    iv = dict(spec["intervention"])
    out = {"id": spec["id"], "intervention": iv, "steps": int(spec["steps"]), "outcome": None}
    P = resolve(params)
    batches = list(batches)
    n_eval = max(int(P["experiments.min_held_out_batches"]), len(batches) // 4)
    train, held = batches[:-n_eval], batches[-n_eval:]
    if len(train) < P["experiments.min_train_batches"]:
        return {**out, "skipped": f"only {len(batches)} recent batches kept"}
    # one pass over the kept batches, never cycled: repeated passes fit those few batches and reward
    # the copy that moves least (a lower LR would look better on any run); accumulation uses several
    # batches a step
    per_step = int(iv.get("batches", 1)) if iv["kind"] == "larger_batch_by_accumulation" else 1
    steps = max(1, min(int(spec["steps"]), len(train) // per_step))
    out["steps"] = steps
    ran = _train_both_copies(model, optimizer, loss_fn, autocast, ctx, iv, train, held, steps,
                             _checkpoints(steps, int(P["experiments.checkpoints"])), P)
    if isinstance(ran, str):
        return {**out, "skipped": ran}
    rc, rt, before_c, before_t = ran
    r = _compare_copies(rc, rt, before_c, before_t, P)
    r["held_out"] = len(held)
    r["trained_on"] = len(train)
    r["from_start"] = ctx.get("start_state") is not None
    changed = _objective_changed(iv, r)    # judged once, on the first draw's losses
    outcome = "inconclusive" if changed else decide(spec["measure"], r)
    reps = int(spec["measure"].get("replicates", 1))
    if outcome == "confirms" and reps > 1:
        # only a confirmation is worth guarding: the other draws cost a copy each
        gains = [r["gain"]]
        for k in range(1, reps):
            again = _train_both_copies(model, optimizer, loss_fn, autocast, ctx, {**iv, "seed": k}, train, held,
                                       steps, _checkpoints(steps, int(P["experiments.checkpoints"])), P,
                                       control_run=(rc, before_c))
            if isinstance(again, str):
                return {**out, "skipped": again}
            gains.append(_compare_copies(*again, P).get("gain"))
        if any(g is None or not math.isfinite(g) for g in gains):
            outcome = "inconclusive"
        else:
            r["gain"], r["trajectory_spread"] = statistics.fmean(gains), max(gains) - min(gains)
            r["replicates"] = reps
            outcome = decide(spec["measure"], r)
    r = {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in r.items()}
    res = {**out, **r, "outcome": outcome}
    res["detail"] = describe(res)
    if changed:
        res["detail"] += (" (the change took a held-out loss the unchanged copy keeps at or above zero below "
                          "zero: it reached the loss's own weights or targets, not the features)")
    return res


#: Interventions that change only what the model is fed (never the model, the optimizer or the loss).
_INPUT_CHANGES = frozenset({"standardize_inputs"})


def _objective_changed(iv: dict, r: dict) -> bool:
    """A change to the inputs alone took the held-out loss below zero where the unchanged copy keeps
    it at or above zero: the change reached a tensor the loss itself weighs or compares with (a
    per-pair weight or a target handed to the model's forward, as a GloVe model that returns its
    own loss takes them), so the two copies no longer minimise the same thing and the "fall" is no
    evidence for the change."""
    t, c = r.get("treated_loss"), r.get("control_loss")
    return iv.get("kind") in _INPUT_CHANGES and t is not None and c is not None and t < 0 <= c


def _checkpoints(steps: int, count: int) -> set:
    """The steps at which both copies are scored: ``count`` over the last third, the last one included."""
    first = max(1, steps - steps // 3)
    return {first + k * max(1, (steps - first) // (count - 1)) for k in range(count - 1)} | {steps}


def _train_both_copies(model, optimizer, loss_fn, autocast, ctx: dict, iv: dict, train, held, steps: int,
                       checkpoints: set, P, control_run: tuple | None = None):
    """Copy the model and optimizer twice, apply the intervention to one copy, score both on the
    held-out batches and train both for ``steps``. Returns (control run, treated run, control
    scores before, treated scores before), or the reason the experiment was skipped. ``control_run``:
    (control run, control scores before) of an earlier call on the same batches, for another draw of a
    random change (the unchanged copy is not trained again)."""
    import torch
    with preserved_rng(), torch.enable_grad():
        copies = []
        for _ in range(2):
            m = clean_copy(model)
            o = copy_optimizer(optimizer, model, m) if m is not None else None
            if o is None:
                return "the model or optimizer could not be copied"
            copies.append(_Plan(m, o, autocast))
            copies[-1].params = P
        control, treated = copies
        start = ctx.get("start_state")
        for p in copies:
            p.loss_fn = loss_fn
            if start is not None:        # the run blew up at once: both copies from its first weights
                p.model.load_state_dict(start)
                p.optimizer.state.clear()
            if ctx.get("training") is not None:     # both copies train in the run's training mode
                p.training = bool(ctx["training"])
        try:
            if iv["kind"] == "shuffle_batches":
                split = _order_split(train + held, len(held), seed=1)
                if split is None:
                    raise NotApplicable("the batches cannot be split into examples")
                train, held = split
            a, kw, _, shape = train[0]
            unfaithful = output_mismatch(control.model, a, kw, shape)
            if unfaithful:
                return f"not applicable: {unfaithful}"
            _control(control, ctx, iv["kind"])
            treated.clip = ctx.get("clip_max") if iv["kind"] != "clip_grad_norm" else None
            treated.zero_grad = True
            _apply(treated, iv, ctx, train, held)
            # common random numbers: both copies draw the same dropout masks and forward noise, so
            # what differs between them is the change alone (and a change that reaches nothing
            # leaves identical numbers, read as no evidence)
            rewind = rng_rewind()
            if control_run is None:
                before_c = _score(control, held)
                rc = _train(control, control.train_batches or train, held, steps, checkpoints)
                rewind()
            else:       # another draw of the change against the same unchanged copy: its run is known
                rc, before_c = control_run
            before_t = _score(treated, held)
            rt = _train(treated, treated.train_batches or train, held, steps, checkpoints)
        except NotApplicable as e:
            return f"not applicable: {e}"
        except Exception as e:   # a copy that cannot be trained (custom loss signature, OOM, ...)
            return f"{type(e).__name__}: {e}"[:200]
        finally:
            del copies, control, treated
    return rc, rt, before_c, before_t


def _compare_copies(rc: dict, rt: dict, before_c, before_t, P) -> dict:
    """The measurements of the two runs: held-out losses, the treated copy's gain and its z score
    over the held-out batches, each copy's drop from its start, and the ratio of their swings."""
    r = {"control_finite": rc["finite"], "treated_finite": rt["finite"]}
    # an intervention that did not reach the copy (nothing of its kind in this model or run: no
    # squash at the output it sees, no clipping to remove) leaves both copies computing the very
    # same numbers: that measures nothing about the cause, for or against
    r["no_effect"] = (before_c == before_t and rc["losses"] == rt["losses"] and rc["scores"] == rt["scores"]
                      and rc["finite"] == rt["finite"])
    c_after, t_after = _mean_per_batch(rc["scores"]), _mean_per_batch(rt["scores"])
    mc0 = statistics.fmean(before_c) if before_c and all(map(math.isfinite, before_c)) else None
    mt0 = statistics.fmean(before_t) if before_t and all(map(math.isfinite, before_t)) else None
    if c_after and t_after and rc["finite"] and rt["finite"]:
        d = [a - b for a, b in zip(c_after, t_after)]
        mc = statistics.fmean(c_after)
        r["control_loss"], r["treated_loss"] = mc, statistics.fmean(t_after)
        r["gain"] = statistics.fmean(d) / mc if mc > 0 else None
        sd = statistics.stdev(d) if len(d) > 1 else 0.0
        se = sd / math.sqrt(len(d))
        r["z"] = (statistics.fmean(d) / se) if se > 0 else (math.inf if statistics.fmean(d) > 0 else 0.0)
        # the held-out batches' own relative spread under the unchanged copy: how much one batch's
        # luck moves the loss at this point of the run (its noise floor, as the data allow it)
        r["spread"] = (statistics.stdev(c_after) / mc) if len(c_after) > 1 and mc > 0 else None
        if mc0:
            r["control_drop"] = (mc0 - mc) / mc0
        if mt0:
            r["treated_drop"] = (mt0 - r["treated_loss"]) / mt0
    r["control_before"], r["treated_before"] = mc0, mt0
    least = P["experiments.swing_min_losses"]
    swing_c = _swing(rc["losses"], least)
    r["swing_ratio"] = (_swing(rt["losses"], least) / swing_c) if swing_c else None
    return r



def _what(iv: dict) -> str:
    k = iv["kind"]
    if k == "lr_scale":
        f = float(iv.get("factor", 10))
        return f"the LR ×{f:g}" if f >= 1 else f"the LR ÷{1 / f:g}"
    return {"restore_peak_lr": "the schedule's peak LR restored", "unfreeze": "the frozen parameters unfrozen",
            "add_missing_params_to_optimizer": "the missing parameters added to the optimizer",
            "zero_grad_every_step": "zero_grad() every step", "shuffle_batches": "the batches shuffled",
            "standardize_inputs": "the inputs standardised", "drop_output_squash": "the extra softmax/sigmoid removed",
            "train_mode": "model.train()", "clip_grad_norm": f"gradients clipped at norm {iv.get('max_norm', 1.0):g}",
            "remove_clipping": "gradient clipping removed", "upcast": "fp32",
            "fp32_instead_of_fp16": "fp32 instead of fp16",
            "larger_batch_by_accumulation": f"{iv.get('batches', 4)} batches accumulated per step",
            "remove_regularization": "weight decay and dropout off", "leaky_relu": "LeakyReLU instead of ReLU",
            "reinit": "the layers re-initialised", "sanitize_inputs": "non-finite inputs zeroed"}.get(k, k)


#: Changes of at least this size print as whole percents, smaller ones with a decimal: presentation.
_WHOLE_PERCENT_FROM = 0.1


def _pct_fell(x):
    if x is None:
        return "n/a"
    fmt = ".0%" if abs(x) >= _WHOLE_PERCENT_FROM else ".1%"
    return f"fell {x:{fmt}}" if x >= 0 else f"rose {-x:{fmt}}"


def describe(r: dict) -> str:
    """One sentence: what was changed, what each copy did, and the outcome."""
    what = _what(r["intervention"])
    steps = r.get("steps")
    if r.get("outcome") is None:
        return f"with {what} on a copy: not run ({r.get('skipped')})"
    if r.get("treated_drop") is not None and r.get("control_drop") is not None:
        s = (f"with {what} on a copy, the held-out loss {_pct_fell(r['treated_drop'])} in {steps} steps; "
             f"the unchanged copy {_pct_fell(r['control_drop'])}"
             f" ({r['treated_loss']:.4g} vs {r['control_loss']:.4g}, gain {r['gain']:+.1%}, "
             f"{r['z']:.1f} standard errors"
             + (f"; the held-out batches' own spread {r['spread']:.1%}" if r.get("spread") is not None else "")
             + (f"; {r['replicates']} draws of the change, gains {r['trajectory_spread']:.1%} apart"
                if r.get("trajectory_spread") is not None else "")
             + ")")
    else:
        s = (f"with {what} on a copy, {steps} steps: the treated copy "
             f"{'stayed finite' if r['treated_finite'] else 'went NaN/Inf'}, the unchanged copy "
             f"{'stayed finite' if r['control_finite'] else 'went NaN/Inf'}")
    if r.get("from_start"):
        s = s.replace(" on a copy", " on a copy of the run's first weights (its own were NaN/Inf)", 1)
    if r.get("no_effect") and r.get("outcome") == "inconclusive":
        s += "; the change left the copy's every loss identical to the unchanged copy's: it did not reach this run"
    elif r.get("no_effect"):
        s += "; the change found nothing to change in this run"
    return f"{s} — {r['outcome']}"


# ------------------------------------------------------------------ the monitor's side
@functools.lru_cache(maxsize=1)
def _Tensor():
    import torch
    return torch.Tensor


def _is_tensor(x) -> bool:
    import torch
    return torch.is_tensor(x)


def _batch_bytes(args, kwargs, targets) -> int:
    """Bytes of the tensors in a batch (as :func:`~traindx.probes.live.data.tensors_in` finds
    them; ``numel() * element_size()``, which a sparse tensor has and ``nbytes`` has not); positional
    tensors and no keyword arguments without the generator (:meth:`Experiments.keep` sizes the
    one-tensor batch itself)."""
    T = _Tensor()
    if not kwargs and all(type(a) is T for a in args) and type(targets) is T:
        return sum(a.numel() * a.element_size() for a in args) + targets.numel() * targets.element_size()
    return sum(t.numel() * t.element_size() for t in tensors_in([list(args), kwargs or {}, targets]))


class Experiments:
    """What a monitor keeps for experiments: the recent training batches (references, no copies;
    bounded by count and bytes), the experiments asked for, and their results.

    ``enabled`` False (``--no-experiments``, ``watch(experiments=False)``) keeps nothing and runs
    nothing."""

    def __init__(self, enabled: bool = True, params=None):
        p = self.params = resolve(params)
        self.enabled = bool(enabled)
        self.max_batches = int(p["experiments.buffer_batches"])
        self.max_bytes = int(p["experiments.buffer_bytes"])
        self.batches: list = []
        self.sizes: list = []
        self.kept_bytes = 0          # sum(self.sizes), kept as a running total (this runs every step)
        self._T = None               # torch.Tensor, once keep() has run (torch is imported lazily)
        self.pending: list[dict] = []
        self.results: list[dict] = []

    def keep(self, args, kwargs, targets, out_shape) -> None:
        """Keep one training batch as the loss saw it (called on every training loss, so it stays
        cheap: references only, sizes summed once per batch)."""
        if not self.enabled or args is None:
            return
        T = self._T
        if T is None:
            T = self._T = _Tensor()
        tt = type(targets)
        if tt is not T and not _is_tensor(targets) and tt is not LossTape:
            return
        batches = self.batches
        if batches and batches[-1][2] is targets:
            return
        if not kwargs and len(args) == 1 and tt is T and type(args[0]) is T:   # the common batch
            a = args[0]
            try:            # numel() * element_size() of each, in two reads instead of four calls
                size = a.nbytes + targets.nbytes
            except RuntimeError:      # a sparse COO tensor has no nbytes
                size = a.numel() * a.element_size() + targets.numel() * targets.element_size()
            batches.append((tuple(args), {}, targets, None if out_shape is None else tuple(out_shape)))
        elif tt is LossTape:         # a hand-written loss: the tape holds the batch's other tensors
            size = _batch_bytes(args, kwargs, None) + targets.nbytes
            batches.append((tuple(args), dict(kwargs) if kwargs else {}, targets, None))
        else:
            size = _batch_bytes(args, kwargs, targets)
            batches.append((tuple(args), dict(kwargs) if kwargs else {}, targets,
                            None if out_shape is None else tuple(out_shape)))
        sizes = self.sizes
        sizes.append(size)
        kept = self.kept_bytes + size
        if len(batches) > self.max_batches or kept > self.max_bytes:
            while batches and (len(batches) > self.max_batches or kept > self.max_bytes):
                del batches[0]
                kept -= sizes.pop(0)
        self.kept_bytes = kept

    def request(self, spec: dict) -> None:
        if self.enabled and isinstance(spec, dict) and spec.get("id") and \
                all(r.get("id") != spec["id"] for r in self.results + self.pending):
            self.pending.append(dict(spec))

    def run_pending(self, model, optimizer, loss_fn, context, autocast) -> None:
        while self.pending:
            spec = self.pending.pop(0)
            if model is None or optimizer is None or loss_fn is None:
                r = {"id": spec["id"], "intervention": spec["intervention"], "steps": spec["steps"],
                     "outcome": None, "skipped": "needs the model, its optimizer and a loss it can replay"}
                r["detail"] = describe(r)
            else:
                try:
                    r = run_experiment(model, optimizer, self.batches, loss_fn, spec, context=context,
                                       autocast=autocast, params=self.params)
                except Exception as e:   # traindx's own fault: never the user's run
                    r = {"id": spec["id"], "intervention": spec["intervention"], "steps": spec["steps"],
                         "outcome": None, "skipped": f"{type(e).__name__}: {e}"[:200]}
                    r["detail"] = describe(r)
            r["fact"] = spec.get("fact", f"exp_{spec['id']}")
            self.results.append(r)

    def findings(self, add) -> None:
        for r in self.results:
            if r.get("outcome") is None:
                continue
            extra = {k: r[k] for k in ("id", "intervention", "steps", "gain", "z", "treated_drop", "control_drop",
                                       "treated_loss", "control_loss", "treated_finite", "control_finite",
                                       "swing_ratio", "held_out", "trained_on") if r.get(k) is not None}
            add("experiment", r["fact"], r["outcome"], r["detail"], **extra)
