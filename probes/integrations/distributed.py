"""``traindx.probes.integrations.distributed``: diagnose a torch.distributed (DDP) run — every rank measures,
rank 0 aggregates and diagnoses.

::

    model = DDP(net, ...)                          # or the bare module: the watch unwraps DDP itself
    with traindx.probes.watch_distributed(model, optimizer, train_loader=loader, every=50, timeout_s=30) as w:
        for x, y in w.loader(loader):
            out = model(x); loss = crit(out, y)
            w.observe(loss, outputs=out, targets=y)
            loss.backward(); optimizer.step(); optimizer.zero_grad()
    report = w.report()          # the merged diagnosis on rank 0; None on every other rank
    w.summary()["distributed"]   # per-rank evidence, disagreements, exchange costs (every rank)

Call it on every rank, at the same point (it creates a process group, which is collective).

What each rank does
    Runs its own :class:`~traindx.probes.live.monitor.Monitor` (the cheap probes of ``watch()``), bound to
    the module inside DDP (so replays on model copies never enter DDP's collectives).

The exchange
    Every ``every`` optimizer steps (counted by one step post-hook) and once at exit, each rank sends
    a compact summary to rank 0 with ``torch.distributed.gather_object`` on a **separate** gloo group
    (``new_group(backend="gloo", timeout=timeout_s)``) — never the user's NCCL/gloo group. A periodic
    summary is about 300 bytes plus 12 bytes per parameter tensor (a checksum); the exit summary also
    carries the rank's findings (a few KB). Rank 0 receives ``world_size`` of them: O(ranks) bytes and
    work at rank 0, O(1) at the others.

What rank 0 concludes (see :func:`merge_findings` and :meth:`DistributedWatch.summary`)
    * facts every rank agrees on are findings with source ``probe:<id>@ranks``;
    * disagreement is evidence: one rank's NaN/Inf loss, gradients or inputs while the others are
      finite (the rank is named; ``nan_first_step`` is the earliest over ranks); a rank whose data
      wait share is > 2x the median of the others and at least 0.1 above it (straggler; the merged
      ``data_time_fraction`` is that rank's); parameters out of sync (per parameter tensor: float64
      norm within 1e-7 relative, and 4 sampled elements bit-identical, compared among ranks at the
      same step — DDP keeps them identical after every step);
    * a rank that does not report within ``timeout_s`` (crashed, hung, or at another step) is named
      ("rank k did not report"), with its error when it raised inside the ``with`` block.

Facts the knowledge base does not have yet (``rank_nan_ranks``, ``params_out_of_sync``,
``desynced_params``, ``data_wait_straggler_rank``, ``ranks_not_reporting``, ``world_size``;
``kb/packs_pending/distributed_facts.md``) go to ``summary()["distributed"]["facts"]`` and to the
report's caveats; they become findings as soon as the loaded vocabulary declares them.

Never hangs, never changes the run
    A failed or timed-out exchange raises inside the watch only; it is caught, turned into evidence,
    and the exchange group is not used again (a failed collective leaves it out of step). So no rank
    waits longer than ``timeout_s`` for another, once. Through the default store (``traindx/dx<n>/...``
    keys; one ``set`` and one ``check`` per exchange) each rank leaves a heartbeat (rank 0 names the
    ranks that never reached a failed exchange), its error when it leaves the ``with`` block on an
    exception (it then skips the exit exchange, so it never waits for anyone), and a "closed" mark
    when it stops exchanging, which the others read before their next exchange instead of waiting
    for the timeout. The exit exchange is symmetric: if rank 0 is still busy ``timeout_s`` after the
    others left the block, they give up and rank 0 reports them as not reporting. The watch writes
    no ``.grad``, parameters, buffers or optimizer state, draws no random numbers, and runs no
    collective on the user's groups; checksums and pickling run only at exchange steps (one host
    sync per device there); between exchanges its own cost is one step post-hook that counts.

Not covered: sharded parameters (FSDP / DTensor) are not compared (each rank holds a different
shard); with ``SyncBatchNorm`` the replay probes that would run the model on one rank (overfit one
batch, first non-finite module) are skipped, because its forward is a collective.
"""

from __future__ import annotations

import itertools
import math
import pickle
import struct
import time
import zlib
from array import array
from collections import Counter
from statistics import median

from traindx.engine.evidence import Finding

from traindx.probes.live.monitor import Monitor
from traindx.probes.live.timing import data_time_fraction
from traindx.probes.live.watch import Watch

#: Bounds on output and memory, not knowledge: items of a list shown in a disagreement's text, and
#: index tensors cached for the per-rank sample.
_SHOWN_ITEMS = 5
_IDX_CACHE_SIZE = 4096

__all__ = ["watch_distributed", "DistributedWatch", "merge_findings", "param_checksums", "PENDING_FACTS"]

#: Facts this module produces that ``kb/facts.yaml`` does not declare yet (see the pending pack).
PENDING_FACTS = ("world_size", "rank_nan_ranks", "params_out_of_sync", "desynced_params",
                 "data_wait_straggler_rank", "ranks_not_reporting")
#: The evidence source (``kb/sources.yaml``) this module implements, and its facts.
SOURCE_ID = "probe:distributed"
FACTS = PENDING_FACTS
# A rank is a data-loading straggler when its data wait share exceeds distributed.straggler_ratio times
# the median of the other ranks' and by distributed.straggler_min_gap (kb/parameters/probes.yaml).
#: Relative tolerance for parameter norms (float64 norms; 1e-4 when only float32 is available).
NORM_RTOL = {True: 1e-7, False: 1e-4}
#: Elements sampled per parameter tensor for the checksum (evenly spaced, first and last included).
SAMPLES = 4

_INSTANCES = itertools.count()      # the same sequence on every rank: names the store keys

# --------------------------------------------------------------------------- merging policies
#: Booleans whose value on any rank decides (the value that signals a problem).
BAD_BOOL = {"grads_have_nan": True, "loss_has_nonfinite": True, "inputs_have_nan": True,
            "grads_all_zero": True, "grad_accumulates": True, "zero_grad_called": False,
            "loss_negative": True, "loss_shape_mismatch": True, "labels_constant": True,
            "init_constant": True, "overfit_one_batch": False, "labels_match_inputs": False,
            "scheduler_step_per_batch": True}
#: Numbers where the smallest over ranks decides.
MIN_FACTS = {"nan_first_step"}
#: Numbers where the largest over ranks decides (the worst rank sets the pace or the risk).
MAX_FACTS = {"data_time_fraction", "grad_norm_max", "output_range_max", "input_scale", "input_scale_spread",
             "dead_relu_fraction", "saturated_fraction", "loss_spikes", "skipped_step_fraction",
             "val_train_overlap"}
#: Configuration: must be the same everywhere; rank 0's value is kept and a difference is reported.
CONFIG_FACTS = {"learning_rate", "optimizer", "momentum", "adam_eps", "weight_decay", "dropout_p",
                "clip_max_norm", "batch_size", "num_classes", "train_size", "val_size", "loss_function",
                "regularization", "uses_amp", "amp_dtype", "grad_scaler_used", "model_has_dropout_or_bn",
                "init_scale_ratio", "label_smoothing", "scheduler", "custom_loss"}
#: Lists of names: the union over ranks.
UNION_FACTS = {"params_without_grad", "frozen_params", "nan_grad_params", "params_not_in_optimizer", "unsafe_math"}


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b if isinstance(a, bool) or isinstance(b, bool) else a == b


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, (list, tuple)):
        more = ", ..." if len(v) > _SHOWN_ITEMS else ""
        return "[" + ", ".join(_fmt(x) for x in list(v)[:_SHOWN_ITEMS]) + more + "]"
    return str(v)


def _ranks_text(ranks) -> str:
    rs = sorted(ranks)
    return ("rank " if len(rs) == 1 else "ranks ") + ", ".join(str(r) for r in rs)


def _at(source: str, where: str) -> str:
    return f"{source}@{where}"


def merge_findings(per_rank, world_size: int | None = None):
    """Merge each rank's findings into one list for rank 0's diagnosis.

    ``per_rank``: ``{rank: [Finding, ...]}``. Returns ``(findings, disagreements)``: a fact every
    reporting rank states with the same value keeps it, with source ``<source>@ranks``; otherwise the
    policy of the fact decides (:data:`BAD_BOOL`: any rank showing the problem; :data:`MIN_FACTS` /
    :data:`MAX_FACTS`: the extreme rank; :data:`CONFIG_FACTS`: rank 0's value; :data:`UNION_FACTS`:
    the union; other numbers: the mean; anything else: the majority, ties to the lowest rank), the
    source names the deciding rank (``@rank<k>``) and the detail every rank's value. Each
    disagreement is also returned as ``{"fact", "values": {rank: value}, "chosen", "policy"}``.
    """
    ranks = sorted(per_rank)
    n_world = world_size or (max(ranks) + 1 if ranks else 0)
    table: dict[str, dict[int, Finding]] = {}
    order: list[str] = []
    for r in ranks:
        for f in per_rank[r]:
            if f.fact not in table:
                table[f.fact] = {}
                order.append(f.fact)
            table[f.fact].setdefault(r, f)
    out, disagreements = [], []
    for fact in order:
        by = table[fact]
        rs = sorted(by)
        first = by[rs[0]]
        if all(_same(by[r].value, first.value) for r in rs):
            tail = f"{len(rs)} of {n_world} ranks" if len(rs) < n_world else f"all {n_world} ranks"
            out.append(Finding(fact, first.value, _at(first.source, "ranks"),
                               (first.detail or "") + f" ({tail} agree)", {"ranks": rs}))
            continue
        values = {r: by[r].value for r in rs}
        policy, chosen, who = _merge_policy(fact, by, rs, values)
        missing = [r for r in ranks if r not in by]
        finding, natural = _disagreeing_finding(fact, by, rs, values, policy, chosen, who, missing, n_world)
        out.append(finding)
        if not natural:
            disagreements.append({"fact": fact, "values": values, "chosen": chosen, "policy": policy,
                                  "ranks": who or rs})
    return out, disagreements


def _merge_policy(fact: str, by: dict, rs: list, values: dict) -> tuple:
    """(policy, chosen value, deciding ranks or None) for a fact the ranks disagree on."""
    v0 = by[rs[0]].value
    policy, chosen, who = None, None, None
    if fact in BAD_BOOL and isinstance(v0, bool):
        bad = BAD_BOOL[fact]
        who = [r for r in rs if by[r].value is bad]
        policy, chosen = "any rank", bad
    elif fact in MIN_FACTS or fact in MAX_FACTS:
        nums = {r: v for r, v in values.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        if nums:
            pick = min if fact in MIN_FACTS else max
            chosen = pick(nums.values())
            who = [r for r, v in nums.items() if v == chosen]
            policy = "smallest over ranks" if fact in MIN_FACTS else "largest over ranks"
    elif fact in CONFIG_FACTS:
        policy, chosen, who = "rank 0 (configuration differs across ranks)", v0, [rs[0]]
    elif fact in UNION_FACTS and all(isinstance(v, (list, tuple)) for v in values.values()):
        seen: list = []
        for r in rs:
            for x in by[r].value:
                if x not in seen:
                    seen.append(x)
        policy, chosen, who = "union over ranks", seen, None
    elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values.values()):
        fin = [float(v) for v in values.values() if math.isfinite(float(v))]
        if fin:
            chosen = sum(fin) / len(fin)
            if all(isinstance(v, int) for v in values.values()):
                chosen = int(round(chosen))
            policy, who = "mean over ranks", None
    if policy is None:
        counts = Counter(repr(v) for v in values.values())
        top = max(counts.values())
        r_pick = next(r for r in rs if counts[repr(values[r])] == top)
        chosen = values[r_pick]
        who = [r for r in rs if _same(values[r], chosen)]
        policy = "majority of ranks"
    return policy, chosen, who


def _disagreeing_finding(fact, by, rs, values, policy, chosen, who, missing, n_world) -> tuple:
    """The merged finding of a fact the ranks disagree on, and whether the difference is natural
    (numbers that differ by shard — losses, accuracies, timings — are aggregated, not disagreements)."""
    per = "; ".join(f"rank {r}: {_fmt(v)}" for r, v in values.items())
    src_rank = by[who[0]] if who else by[rs[0]]
    where = f"rank{who[0]}" if who and len(who) < len(rs) else "ranks"
    if who and len(who) < len(rs):
        lead = f"{_ranks_text(who)} of {n_world}: {by[who[0]].detail or _fmt(chosen)}"
    else:
        lead = f"{_fmt(chosen)} ({policy})"
    natural = policy in ("mean over ranks", "largest over ranks")
    detail = (f"{lead} " + (f"(per rank: {per})" if natural else f"— ranks disagree ({per})")
              + (f"; {_ranks_text(missing)} did not report it" if missing else ""))
    return Finding(fact, chosen, _at(src_rank.source, where), detail, {"ranks": values, "policy": policy}), natural


# --------------------------------------------------------------------------- parameter checksums
_IDX_CACHE: dict = {}


def _sample_index(n: int, device, k: int):
    import torch

    key = (n, str(device), k)
    ix = _IDX_CACHE.get(key)
    if ix is None:
        pos = sorted({(j * (n - 1)) // (k - 1) for j in range(k)}) if k > 1 and n > 1 else [0]
        ix = torch.tensor(pos, dtype=torch.long, device=device)
        if len(_IDX_CACHE) < _IDX_CACHE_SIZE:
            _IDX_CACHE[key] = ix
    return ix


def param_checksums(params, samples: int = SAMPLES):
    """A cheap checksum per parameter tensor: ``(norms, digests, float64)``.

    ``norms``: the L2 norm of each tensor (float64 where the device supports it, ``float64`` True);
    ``digests``: CRC-32 of ``samples`` evenly spaced elements (first and last included) read exactly
    as float64. One reduction and one host sync per device; no random numbers, nothing written.
    """
    import torch

    params = list(params)
    n = len(params)
    norms = [0.0] * n
    digests = [0] * n
    f64 = True
    by_dev: dict = {}
    for i, p in enumerate(params):
        by_dev.setdefault(p.device, []).append(i)
    with torch.no_grad():
        for dev, idx in by_dev.items():
            ts = [params[i].detach() for i in idx]
            ks = []
            picks = []
            for t in ts:
                flat = t.reshape(-1)
                if flat.numel() == 0:
                    ks.append(0)
                    continue
                ix = _sample_index(flat.numel(), flat.device, samples)
                ks.append(int(ix.numel()))
                picks.append(flat.index_select(0, ix))
            vals = None
            for dt in (torch.float64, torch.float32):
                try:
                    try:
                        ns = torch._foreach_norm(ts, 2, dtype=dt)
                    except (TypeError, RuntimeError):
                        ns = [torch.linalg.vector_norm(t, dtype=dt) for t in ts]
                    parts = [torch.stack(list(ns)).to(dt)] + [p.to(dt) for p in picks]
                    vals = torch.cat(parts).tolist()
                    f64 = f64 and dt == torch.float64
                    break
                except (TypeError, RuntimeError):
                    continue
            if vals is None:
                raise RuntimeError("parameter checksum not computable on " + str(dev))
            m = len(ts)
            off = m
            for j, i in enumerate(idx):
                norms[i] = vals[j]
                k = ks[j]
                digests[i] = zlib.crc32(struct.pack(f"{k}d", *vals[off:off + k])) if k else 0
                off += k
    return norms, digests, f64


def _close(a: float, b: float, rtol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b or abs(a - b) <= rtol * max(abs(a), abs(b))


def compare_checksums(ref: dict, other: dict) -> list[int] | None:
    """Indices of the parameter tensors whose checksums differ, or None when not comparable
    (different parameter lists)."""
    if ref["layout"] != other["layout"]:
        return None
    if ref["digests"] == other["digests"] and ref["norms"] == other["norms"]:
        return []
    rtol = NORM_RTOL[bool(ref["f64"] and other["f64"])]
    na, nb = array("d"), array("d")
    na.frombytes(ref["norms"])
    nb.frombytes(other["norms"])
    da, db = array("I"), array("I")
    da.frombytes(ref["digests"])
    db.frombytes(other["digests"])
    return [i for i in range(len(na)) if da[i] != db[i] or not _close(na[i], nb[i], rtol)]


# --------------------------------------------------------------------------- the watch
def _unwrap(model):
    """The module inside DistributedDataParallel / DataParallel (hooks and replays stay outside DDP)."""
    try:
        from torch.nn.parallel import DataParallel, DistributedDataParallel
        if isinstance(model, (DistributedDataParallel, DataParallel)):
            return model.module
    except Exception:  # pragma: no cover
        pass
    return model


def _has_sync_bn(model) -> bool:
    try:
        import torch
        return any(isinstance(m, torch.nn.SyncBatchNorm) for m in model.modules())
    except Exception:
        return False


def _sharded(model, params) -> bool:
    if type(model).__name__ in ("FullyShardedDataParallel", "FSDPModule") or \
            any(type(m).__name__.startswith("FSDP") for m in model.modules()):
        return True
    return any(type(p).__name__ == "DTensor" or type(p).__name__ == "FlatParameter" for p in params)


class _NoReplayMonitor(Monitor):
    """A Monitor for models whose forward is a collective (SyncBatchNorm): a replay on one rank would
    wait for the others forever, so the overfit probe and the first-non-finite-module replay are off."""

    def _run_costly(self, probe):
        if probe.id == "overfit_batch":
            probe.skip("SyncBatchNorm: a forward on one rank is a collective")
        else:
            super()._run_costly(probe)

    def _trace_nan(self, outputs, targets):
        model, self.model = self.model, None
        try:
            return super()._trace_nan(outputs, targets)
        finally:
            self.model = model


def _short(e: BaseException) -> str:
    s = str(e).strip().splitlines()
    msg = s[0] if s else ""
    if "] " in msg[:120] and msg.startswith("["):
        msg = msg.split("] ", 1)[1]
    return f"{type(e).__name__}: {msg}"[:240]


class _RankExchange:
    """The exchange half of :class:`DistributedWatch`: the store helpers (which never raise), the
    periodic, report and exit exchanges (``gather_object`` to rank 0 over a gloo group) and each
    rank's payload. Uses the attributes :class:`DistributedWatch` sets up."""

    # ------------------------------------------------------------------ store helpers (never raise)
    def _store_set(self, key, value):
        if self._store is None:
            return
        try:
            self._store.set(f"{self._tag}/{key}", str(value))
        except Exception:
            pass

    def _store_get(self, key):
        if self._store is None:
            return None
        try:
            k = f"{self._tag}/{key}"
            if self._store.check([k]):
                return self._store.get(k).decode("utf-8", "replace")
        except Exception:
            return None
        return None

    def _stop(self, why: str):
        if self._broken is None:
            self._broken = why
        self._store_set("closed", f"rank {self.rank}: {why}")

    def _collect_errors(self):
        for r in range(1, self.world_size):
            msg = self._store_get(f"error/{r}")
            if msg:
                self._errors[r] = msg
                if r not in self._finals or self._finals[r].get("kind") != "exit":
                    self._missing[r] = f"raised at {msg}"      # more specific than "stopped exchanging"

    # ------------------------------------------------------------------ the exchange
    def _post_step(self, optimizer, args, kwargs):
        self._steps += 1
        if self.every and self._steps % self.every == 0:
            try:
                self._exchange("periodic")
            except Exception:  # a probe never breaks the user's run
                pass
        return None

    def exchange(self, kind: str = "report"):
        """Exchange now (collective: call it on every rank). ``kind="report"`` also sends the findings."""
        return self._exchange(kind)

    def _payload(self, kind: str) -> dict:
        m = self.monitor
        p = {"rank": self.rank, "kind": kind, "step": self._steps, "round": self._round, "error": None}
        try:
            try:
                m._flush()
            except Exception:
                pass
            a = self._acc
            vals = m._train_vals
            new = vals[a["vals"]:]                       # O(steps since the last exchange), never O(run)
            a["vals"] = len(vals)
            a["nonfinite"] += sum(1 for v in new if not math.isfinite(v))
            fin = [v for v in vals[-16:] if math.isfinite(v)]
            win = {}
            for key, lst in (("waits", m._waits), ("synced", m._synced_waits), ("ints", m._intervals)):
                chunk = lst[a[key]:]
                a[key] = len(lst)
                a[key + "_sum"] += sum(chunk)
                win[key] = (sum(chunk), len(chunk))
            wk = "synced" if (m.on_cuda and a["synced"]) else "waits"

            least = m.params["data_timing.min_steps"]

            def frac(ws, wn, ts, tn):
                if tn < least or not wn or ts <= 0:
                    return None
                return float(min(1.0, max(0.0, (ws / wn) / (ts / tn))))
            nan_grad = m._nan_grad
            st = m._step_times[-50:]
            p.update({
                "losses": len(vals), "loss_recent": (sum(fin) / len(fin)) if fin else None,
                "loss_nonfinite": a["nonfinite"],
                "nan_first": m._nan_first,
                "grad_nan_first": min(nan_grad.values()) if nan_grad else None,
                "grad_nan_params": sorted(nan_grad, key=nan_grad.get)[:5],
                "inputs_nan": m._inputs_nan,
                # the data-wait share over the run and since the last exchange: a periodic exchange sums
                # what came since the last one (never O(run)); the last one is the monitor's own
                # data_time_fraction (its longest waits left out), the figure the rank reports
                "dtf": frac(a[wk + "_sum"], a[wk], a["ints_sum"], a["ints"]) if kind == "periodic" else
                data_time_fraction(m._synced_waits if wk == "synced" else m._waits, m._intervals, m.params),
                "dtf_recent": frac(*win[wk], *win["ints"]),
                "wait_ms": (a[wk + "_sum"] / a[wk] * 1e3) if a[wk] else None,
                "step_ms": (median(st) * 1e3) if len(st) else None,
            })
        except Exception as e:
            p["error"] = f"summary failed: {_short(e)}"
        if self._check_sync:
            try:
                norms, digests, f64 = param_checksums(self._params)
                p["sync"] = {"step": self._steps, "layout": self._layout, "f64": f64,
                             "norms": array("d", norms).tobytes(), "digests": array("I", digests).tobytes()}
            except Exception as e:
                p["sync"] = None
                p["sync_error"] = _short(e)
        if kind in ("exit", "report"):
            try:
                p["findings"] = [(f.fact, f.value, f.source, f.detail) for f in self.monitor.findings()]
            except Exception as e:
                p["findings"] = []
                p["error"] = f"findings failed: {_short(e)}"
            p["local_error"] = self._local_error
        return p

    def _exchange(self, kind: str):
        if self.world_size < 2 or self.group is None or self._broken is not None:
            return None
        t0 = time.perf_counter()
        closed = self._store_get("closed")
        if closed is not None:
            self._broken = f"exchanges stopped by {closed}"
            if self.rank == 0:
                for r in range(1, self.world_size):
                    if r not in self._finals or self._finals[r].get("kind") == "periodic":
                        self._missing.setdefault(r, f"no {kind} report at step {self._steps}: {self._broken}")
            return None
        import torch.distributed as dist

        self._round += 1
        t1 = time.perf_counter()
        payload = self._payload(kind)
        t2 = time.perf_counter()
        try:
            size = len(pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL))
        except Exception:
            size = None
        self._store_set(f"seen/{self.rank}", self._round)
        out = [None] * self.world_size if self.rank == 0 else None
        t3 = time.perf_counter()
        rec = {"round": self._round, "step": self._steps, "kind": kind, "bytes": size,
               "payload_ms": (t2 - t1) * 1e3, "store_ms": (t1 - t0 + t3 - t2) * 1e3}
        t2 = t3
        try:
            dist.gather_object(payload, out, dst=0, group=self.group)
        except Exception as e:
            dt = time.perf_counter() - t2
            rec.update({"ok": False, "gather_ms": dt * 1e3, "error": _short(e)})
            self._exchanges.append(rec)
            self._stop(f"the {kind} exchange at step {self._steps} failed after {dt:.1f} s ({_short(e)})")
            if self.rank == 0:
                self._name_missing(kind)
            return None
        rec.update({"ok": True, "gather_ms": (time.perf_counter() - t2) * 1e3})
        if self.rank == 0:
            t4 = time.perf_counter()
            self._absorb(out, kind)
            rec["merge_ms"] = (time.perf_counter() - t4) * 1e3
        rec["total_ms"] = (time.perf_counter() - t0) * 1e3
        self._exchanges.append(rec)
        return out

    def _name_missing(self, kind):
        """After a failed exchange on rank 0: which ranks never reached it (heartbeats), and why."""
        for r in range(1, self.world_size):
            seen = self._store_get(f"seen/{r}")
            err = self._store_get(f"error/{r}")
            if err:
                self._errors[r] = err
            if self._store is None:
                self._missing.setdefault(r, f"unknown: the {kind} exchange at step {self._steps} failed "
                                            f"({self._broken}); no store to tell which rank")
                continue
            try:
                reached = seen is not None and int(seen) >= self._round
            except ValueError:
                reached = False
            if not reached:
                why = f"did not reach the {kind} exchange at step {self._steps} within {self.timeout_s:g} s"
                self._missing.setdefault(r, why + (f" (it raised at {err})" if err else ""))


class _RankZeroEvidence:
    """Rank 0's half of :class:`DistributedWatch`: absorbing the ranks' payloads, the rank-level
    verdicts (NaN origin, straggler, desync), the merge of every rank's findings and the results."""

    # ------------------------------------------------------------------ rank 0: absorbing payloads
    def _absorb(self, payloads, kind):
        """Record each rank's payload: latest and final reports, who is missing, first NaNs; then
        compare the parameter checksums."""
        for p in payloads:
            if not isinstance(p, dict):
                continue
            r = p.get("rank", 0)
            self._latest[r] = p
            if "findings" in p:
                self._finals[r] = p
            if kind == "exit" and r != 0 and p.get("kind") != "exit":
                self._missing.setdefault(r, f"was at step {p.get('step')} ({p.get('kind')} exchange) when rank 0 "
                                            f"left at step {self._steps}: its final findings are missing")
            if p.get("kind") == "exit" and kind != "exit" and r != 0:
                # that rank has left: no later exchange can complete
                self._missing.setdefault(r, f"finished at step {p.get('step')} while rank 0 was at step {self._steps}")
                self._stop(f"rank {r} finished at step {p.get('step')}")
            for key, fact in (("nan_first", "loss"), ("grad_nan_first", "gradients")):
                s = p.get(key)
                if s is not None:
                    d = self._nan.setdefault(r, {})
                    d.setdefault(fact, s)
            if p.get("inputs_nan"):
                self._nan.setdefault(r, {}).setdefault("inputs", p.get("step"))
        self._absorb_sync(payloads)
        self._merged = None

    def _absorb_sync(self, payloads):
        """Parameter sync: the ranks at rank 0's step whose checksums differ from rank 0's."""
        mine = payloads[0] if payloads else None
        if mine is None or not mine.get("sync"):
            return
        ref = mine["sync"]
        ref_step = ref["step"]
        diffs = {}
        for p in payloads:
            if not isinstance(p, dict) or p.get("rank", 0) == 0 or not p.get("sync"):
                continue
            if p["sync"]["step"] != ref_step:
                continue
            bad = compare_checksums(ref, p["sync"])
            if bad is None:
                diffs[p["rank"]] = ["(different parameter lists)"]
            elif bad:
                diffs[p["rank"]] = [self._param_names[i] if i < len(self._param_names) else f"#{i}" for i in bad]
        compared = sum(1 for p in payloads if isinstance(p, dict) and p.get("sync")
                       and p["sync"]["step"] == ref_step)
        if diffs:
            names = []
            for lst in diffs.values():
                for n in lst:
                    if n not in names:
                        names.append(n)
            ev = {"step": ref_step, "ranks": sorted(diffs), "params": names, "count": len(names),
                  "compared_ranks": compared}
            if self._desync is None:
                self._desync = {"first": ev, "latest": ev}
            else:
                self._desync["latest"] = ev
        elif self._desync is None:
            self._sync_ok = {"step": ref_step, "compared_ranks": compared}

    # ------------------------------------------------------------------ rank 0: verdicts
    def _nan_verdict(self):
        """Ranks whose loss/gradients/inputs went non-finite first while others were still finite."""
        firsts = {}
        for r, d in self._nan.items():
            # the loss and the inputs are rank-local; gradients are all-reduced (the same on every
            # rank under DDP), so they only count where no rank has a non-finite loss
            if d.get("loss") is not None:
                firsts[r] = d["loss"]
            elif d.get("inputs") is not None:
                firsts[r] = d["inputs"]
        if not firsts:
            firsts = {r: d["gradients"] for r, d in self._nan.items() if d.get("gradients") is not None}
        if not firsts:
            return [], None
        earliest = min(firsts.values())
        origin = sorted(r for r, s in firsts.items() if s == earliest)
        if len(origin) == self.world_size:
            return [], earliest      # every rank at once: nothing rank-specific
        return origin, earliest

    def _straggler(self):
        dtf = {r: p.get("dtf") for r, p in self._latest.items() if p.get("dtf") is not None}
        if len(dtf) < 2:
            return None, dtf
        best = None
        ratio = self.monitor.params["distributed.straggler_ratio"]
        gap = self.monitor.params["distributed.straggler_min_gap"]
        for r, v in dtf.items():
            others = [x for q, x in dtf.items() if q != r]
            med = median(others)
            if v > ratio * med and v - med >= gap:
                if best is None or v > dtf[best]:
                    best = r
        return best, dtf

    def distributed_facts(self) -> dict:
        """The rank-level facts (names of :data:`PENDING_FACTS`); meaningful on rank 0."""
        origin, _ = self._nan_verdict()
        straggler, _ = self._straggler()
        out = {"world_size": self.world_size, "rank_nan_ranks": origin,
               "data_wait_straggler_rank": straggler,
               "ranks_not_reporting": sorted(self._missing)}
        if self._check_sync and (self._desync is not None or getattr(self, "_sync_ok", None)):
            out["params_out_of_sync"] = self._desync is not None
            out["desynced_params"] = list(self._desync["latest"]["params"]) if self._desync else []
        return out

    def _knowledge(self):
        """The knowledge base (loaded once; None when the engine cannot load it)."""
        if self._kb is None:
            try:
                from traindx.engine.api import load_kb
                self._kb = load_kb()
            except Exception:
                self._kb = False
        return self._kb or None

    def _vocabulary(self):
        kb = self._knowledge()
        return set(kb.facts) if kb is not None else set()

    def _merge(self):
        """Rank 0: (findings, disagreements, notes) from the ranks' exit/report findings."""
        if self._merged is not None and self._closed:
            return self._merged
        per_rank = {}
        for r, p in self._finals.items():
            per_rank[r] = [Finding(*t) for t in p.get("findings", [])]
        if 0 not in per_rank or not self._closed:
            per_rank[0] = self.monitor.findings()
        merged, disagreements = merge_findings(per_rank, self.world_size)
        facts = {f.fact: f for f in merged}
        notes = []
        # periodic evidence the final findings may lack (a rank that died before the exit exchange)
        origin, earliest = self._nan_verdict()
        if origin:
            others = sorted(set(range(self.world_size)) - set(origin))
            desc = (f"{_ranks_text(origin)} went NaN/Inf first (step {earliest}) while {_ranks_text(others)} "
                    "were still finite: identical weights, different data shard")
            notes.append(desc)
            for r in origin:
                if self._nan.get(r, {}).get("inputs") is not None and not (
                        "inputs_have_nan" in facts and facts["inputs_have_nan"].value is True):
                    f = Finding("inputs_have_nan", True, f"probe:input_stats@rank{r}",
                                f"rank {r} of {self.world_size}: NaN/Inf in sampled input batches (periodic exchange)")
                    merged = [x for x in merged if x.fact != "inputs_have_nan"] + [f]
                    facts["inputs_have_nan"] = f
            if "nan_first_step" not in facts or facts["nan_first_step"].value > earliest:
                f = Finding("nan_first_step", int(earliest), f"probe:nan_trace@rank{origin[0]}",
                            f"first NaN/Inf on {_ranks_text(origin)} at step {earliest} (periodic exchange)")
                merged = [x for x in merged if x.fact != "nan_first_step"] + [f]
        straggler, dtf = self._straggler()
        if straggler is not None:
            others = [v for r, v in dtf.items() if r != straggler]
            med = median(others)
            detail = (f"rank {straggler} spends {dtf[straggler] * 100:.0f}% of its step waiting for data vs a median "
                      f"of {med * 100:.0f}% on the other ranks: every all-reduce waits for it (straggler)")
            notes.append(detail)
            cur = facts.get("data_time_fraction")
            if cur is None or cur.value < dtf[straggler]:
                f = Finding("data_time_fraction", float(dtf[straggler]), f"probe:data_timing@rank{straggler}", detail)
            else:
                f = Finding(cur.fact, cur.value, cur.source, (cur.detail or "") + f"; {detail}", cur.extra)
            merged = [x for x in merged if x.fact != "data_time_fraction"] + [f]
        if self._desync is not None:
            d = self._desync["first"]
            notes.append(f"parameters out of sync across ranks from step {d['step']}: {_ranks_text(d['ranks'])} "
                         f"differ from rank 0 in {d['count']} tensor(s) ({', '.join(d['params'][:5])})")
        for r, why in sorted(self._missing.items()):
            notes.append(f"rank {r} did not report: {why}")
        for r, msg in sorted(self._errors.items()):
            if r not in self._missing:
                notes.append(f"rank {r} raised at {msg}")
        for d in disagreements:
            if d["fact"] in CONFIG_FACTS:
                notes.append(f"{d['fact']} differs across ranks: " +
                             ", ".join(f"rank {r}: {_fmt(v)}" for r, v in d["values"].items()))
        # the rank-level facts, as findings once the vocabulary declares them
        vocab = self._vocabulary()
        df = self.distributed_facts()
        for name, value in df.items():
            if name in vocab and value is not None:
                merged.append(Finding(name, value, "probe:distributed@ranks", _pending_detail(name, value, self)))
        self._merged = (merged, disagreements, notes)
        return self._merged

    # ------------------------------------------------------------------ results
    def findings(self):
        """Rank 0: the merged findings (local ones until an exchange brought the others');
        other ranks: their own findings."""
        if self.rank != 0:
            return self.monitor.findings()
        return list(self._merge()[0])

    def summary(self) -> dict:
        s = super().summary()
        d = {"rank": self.rank, "world_size": self.world_size, "every": self.every, "timeout_s": self.timeout_s,
             "steps": self._steps, "group": "gloo" if self.group is not None else None,
             "broken": self._broken, "local_error": self._local_error,
             "exchanges": [dict(e) for e in self._exchanges], "sync_check": self._sync_note or "on"}
        if self.rank == 0:
            merged, disagreements, notes = self._merge() if (self._closed or self._finals) else ([], [], [])
            d.update({
                "facts": self.distributed_facts(),
                "pending_facts": [k for k in PENDING_FACTS if k not in self._vocabulary()],
                "notes": notes,
                "disagreements": disagreements,
                "desync": self._desync,
                "nan": {r: dict(v) for r, v in self._nan.items()},
                "missing": dict(self._missing),
                "errors": dict(self._errors),
                "per_rank": {r: {k: p.get(k) for k in ("kind", "step", "losses", "loss_recent", "loss_nonfinite",
                                                       "nan_first", "grad_nan_first", "inputs_nan", "dtf", "dtf_recent",
                                                       "wait_ms", "step_ms", "error", "local_error")}
                             for r, p in sorted(self._latest.items())},
            })
        s["distributed"] = d
        return s

    def report(self, exchange: bool | None = None):
        """Rank 0: the diagnosis from every rank's evidence; other ranks: None.

        After the ``with`` block this only reads what the exit exchange brought. Inside it,
        ``exchange=True`` (the default there) first runs a report exchange, which is collective: call
        ``report()`` on every rank then (ranks other than 0 get None)."""
        if exchange is None:
            exchange = not self._closed and self.monitor._attached
        if exchange and not self._closed:
            self._exchange("report")
        if self.rank != 0:
            return None
        try:
            from traindx.engine.api import Session
        except ImportError as e:  # pragma: no cover
            raise RuntimeError("traindx.engine.api is not available; use w.findings() for the evidence") from e
        merged, _, notes = self._merge()
        kb = self._knowledge()
        if kb is None:
            from traindx.engine.api import load_kb
            kb = load_kb()           # let the loader's own error through
        s = Session(kb)
        s.add_findings(merged)
        rep = s.report()
        vocab = self._vocabulary()
        df = self.distributed_facts()
        pending = {k: v for k, v in df.items() if k not in vocab and k != "world_size"
                   and not (v is None or v is False or v == [])}
        cav = [f"distributed ({self.world_size} ranks): {n}" for n in notes]
        if pending:
            cav.append("distributed: facts not yet in the knowledge base (summary()['distributed']['facts']): " +
                       ", ".join(f"{k}={_fmt(v)}" for k, v in pending.items()))
        rep["caveats"] = list(rep.get("caveats") or []) + cav
        return rep


class DistributedWatch(_RankZeroEvidence, _RankExchange, Watch):
    """:class:`~traindx.probes.live.watch.Watch` on every rank, with the exchange to rank 0. See the module
    docstring; build it with :func:`watch_distributed`."""

    def __init__(self, model, optimizer=None, num_classes=None, train_loader=None, val_loader=None, *,
                 criterion=None, level="cheap", every: int = 50, timeout_s: float = 30.0,
                 check_sync: bool = True):
        inner = _unwrap(model)
        super().__init__(inner, optimizer, num_classes, train_loader, val_loader, criterion=criterion, level=level)
        self.model = model
        self.module = inner
        if _has_sync_bn(inner):
            self.monitor.__class__ = _NoReplayMonitor
        self.every = max(0, int(every))
        self.timeout_s = float(timeout_s)
        self.optimizer = optimizer
        self.rank, self.world_size = 0, 1
        self.group = None
        self._store = None
        self._tag = f"traindx/dx{next(_INSTANCES)}"
        self._broken: str | None = None
        self._steps = 0
        self._round = 0
        self._hook = None
        self._closed = False
        self._local_error: str | None = None
        self._exchanges: list[dict] = []
        self._latest: dict[int, dict] = {}       # rank 0: the latest payload of each rank
        self._finals: dict[int, dict] = {}       # rank 0: the latest payload with findings
        self._nan: dict[int, dict] = {}          # rank 0: per rank, the first NaN it showed
        self._desync: dict | None = None         # rank 0: first and latest parameter mismatch
        self._missing: dict[int, str] = {}       # rank 0: rank -> why it did not report
        self._errors: dict[int, str] = {}        # rank 0: rank -> error posted to the store
        self._merged: tuple | None = None
        self._kb = None
        self._acc = {"vals": 0, "nonfinite": 0, "waits": 0, "waits_sum": 0.0, "synced": 0, "synced_sum": 0.0,
                     "ints": 0, "ints_sum": 0.0}
        params, seen = [], set()
        for _, p in inner.named_parameters():
            if id(p) not in seen:
                seen.add(id(p))
                params.append(p)
        self._params = params
        self._param_names = [n for n, _ in inner.named_parameters()]
        self._layout = zlib.crc32(";".join(f"{n}:{tuple(p.shape)}" for n, p in inner.named_parameters()).encode())
        self._sync_note = None
        if not check_sync:
            self._sync_note = "not checked (check_sync=False)"
        elif _sharded(model, params):
            self._sync_note = "not checked: sharded parameters (FSDP/DTensor) differ across ranks by design"
        self._check_sync = self._sync_note is None
        self._setup()

    # ------------------------------------------------------------------ setup
    def _setup(self):
        try:
            import torch.distributed as dist
        except Exception:  # pragma: no cover
            return
        if not (dist.is_available() and dist.is_initialized()):
            return
        self.rank, self.world_size = dist.get_rank(), dist.get_world_size()
        if self.world_size < 2:
            return
        from datetime import timedelta

        try:
            from torch.distributed.distributed_c10d import _get_default_store
            self._store = _get_default_store()
        except Exception:
            self._store = None
        t0 = time.perf_counter()
        try:
            self.group = dist.new_group(backend="gloo", timeout=timedelta(seconds=self.timeout_s))
        except Exception as e:
            self.group = None
            self._broken = f"the exchange group could not be created: {_short(e)}"
        self._setup_ms = (time.perf_counter() - t0) * 1e3

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    def attach(self):
        super().attach()
        if self._hook is None and self.optimizer is not None:
            self._hook = self.optimizer.register_step_post_hook(self._post_step)
        return self

    def __enter__(self):
        return self.attach()

    def __exit__(self, exc_type, exc, tb):
        self.detach(error=exc if exc_type is not None else None)
        return False

    def detach(self, error: BaseException | None = None):
        """Remove every hook, then (once) the exit exchange — skipped on a rank leaving on an error,
        which only posts its error for rank 0."""
        if self._hook is not None:
            self._hook.remove()
            self._hook = None
        self.monitor.detach()
        if self._closed:
            return
        self._closed = True
        if error is not None:
            self._local_error = f"step {self._steps}: {_short(error)}"
            self._store_set(f"error/{self.rank}", self._local_error)
            self._stop("this rank left on an error")
        else:
            self._exchange("exit")
        if self.rank == 0:
            self._store_set("closed", "rank 0 finished exchanging")
            self._collect_errors()
        self._merged = None


def _pending_detail(name, value, w) -> str:
    if name == "world_size":
        return f"{value} ranks"
    if name == "rank_nan_ranks":
        return (f"{_ranks_text(value)} went NaN/Inf first while the others were finite" if value
                else "no rank went NaN/Inf before the others")
    if name == "params_out_of_sync":
        if value and w._desync:
            d = w._desync["first"]
            return (f"from step {d['step']}: {_ranks_text(d['ranks'])} differ from rank 0 in {d['count']} "
                    f"parameter tensor(s)")
        ok = getattr(w, "_sync_ok", None) or {}
        return f"parameter checksums identical on {ok.get('compared_ranks', '?')} ranks at step {ok.get('step', '?')}"
    if name == "desynced_params":
        return ", ".join(value[:5]) if value else "none"
    if name == "data_wait_straggler_rank":
        return f"rank {value} waits for data far longer than the others"
    if name == "ranks_not_reporting":
        return ("; ".join(f"rank {r}: {w._missing.get(r, '')}" for r in value)) if value else "every rank reported"
    return _fmt(value)


def watch_distributed(model, optimizer=None, num_classes=None, train_loader=None, val_loader=None, *,
                      criterion=None, level="cheap", every: int = 50, timeout_s: float = 30.0,
                      check_sync: bool = True) -> DistributedWatch:
    """Watch a DDP training loop on every rank; rank 0 diagnoses. Use as
    ``with watch_distributed(model, optimizer, every=50, timeout_s=30) as w: ...`` on every rank.

    ``every``: optimizer steps between exchanges (0: only at exit). ``timeout_s``: the exchange
    group's timeout — the longest any rank waits for another. ``check_sync``: compare parameter
    checksums across ranks at each exchange. Without an initialised process group (or with one rank)
    it behaves like :func:`traindx.probes.watch`.
    """
    return DistributedWatch(model, optimizer, num_classes, train_loader, val_loader, criterion=criterion,
                            level=level, every=every, timeout_s=timeout_s, check_sync=check_sync)
