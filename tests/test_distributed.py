"""``traindx.probes.integrations.distributed`` on real 2-process runs (gloo backend, CPU).

Each scenario starts two Python processes running this file as a script (RANK, WORLD_SIZE,
MASTER_ADDR=127.0.0.1 and a free MASTER_PORT in the environment), each writes what it saw to a JSON
file, and the test reads them. Plain subprocesses rather than ``torch.multiprocessing.spawn``: spawn
kills the surviving rank as soon as one fails, and surviving a failed rank is what (d) tests. Every
run has a hard timeout after which both processes are killed, so a hang fails the test instead of
blocking the suite.
"""

from __future__ import annotations

import json
import math
import os
import socket
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
HARD_TIMEOUT = 400         # seconds for a whole 2-process run (a loaded machine included); a hang fails the test


# =========================================================================== the worker (one rank)
def _worker(scenario: str, out_dir: str) -> int:
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP

    from traindx.probes.integrations.distributed import watch_distributed

    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    result = {"rank": rank, "scenario": scenario}
    t_start = time.perf_counter()

    # data: a fixed linear teacher (the same on every rank), each rank its own shard
    g = torch.Generator().manual_seed(0)
    teacher = torch.randn(8, 4, generator=g)
    gr = torch.Generator().manual_seed(100 + rank)
    X = torch.randn(256, 8, generator=gr)
    y = (X @ teacher).argmax(1)
    if scenario == "nan" and rank == 1:
        X[3 * 32 + 5, 2] = float("nan")            # the 4th batch of rank 1 (shuffle off)
    ds = torch.utils.data.TensorDataset(X, y)
    from torch.utils.data import default_collate

    def slow_collate(batch):                       # a slow loader on rank 1 only
        time.sleep(0.015)
        return default_collate(batch)
    straggles = scenario == "straggler" and rank == 1
    loader = torch.utils.data.DataLoader(ds, batch_size=32, shuffle=False,
                                         collate_fn=slow_collate if straggles else None)

    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 4))
    use_ddp = scenario not in ("hang_local", "raise_local")
    model = DDP(net) if use_ddp else net
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    crit = nn.CrossEntropyLoss()
    every = {"desync": 5, "hang_local": 5, "raise_local": 5}.get(scenario, 10)
    timeout_s = 15.0 if scenario.startswith(("hang", "raise", "crash")) else 60.0   # room for a loaded machine
    epochs = 4

    w = watch_distributed(model, opt, train_loader=loader, criterion=crit, every=every, timeout_s=timeout_s)
    rng_before = torch.get_rng_state()
    step = 0
    error = None
    try:
        with w:
            for _ in range(epochs):
                for xb, yb in w.loader(loader):
                    if scenario == "crash" and rank == 1 and step == 12:
                        raise ValueError("corrupt record in shard 1")
                    if scenario == "raise_local" and rank == 1 and step == 7:
                        raise ValueError("bad batch on rank 1")
                    if scenario == "hang_local" and rank == 1 and step == 7:
                        time.sleep(600)            # stuck (a dead NFS mount, a deadlocked worker...)
                    out = model(xb)
                    loss = crit(out, yb)
                    w.observe(loss, outputs=out, targets=yb)
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    step += 1
                    if scenario == "desync" and rank == 1 and step == 3:
                        with torch.no_grad():      # outside DDP: this rank's weights drift away
                            net[0].weight.add_(0.01 * torch.ones_like(net[0].weight))
            if scenario == "raise_late" and rank == 1:
                raise OSError("checkpoint write failed on rank 1")
            if scenario == "hang_exit" and rank == 1:
                result["hanging"] = True
                _write(out_dir, rank, result)
                time.sleep(600)                    # stuck after training, inside the with block
    except Exception as e:                          # the user's own crash: keep the process alive to report
        error = f"{type(e).__name__}: {e}"
    t_end = time.perf_counter()
    result.update({"steps": step, "error": error, "elapsed": t_end - t_start})
    if scenario == "healthy":
        # the watch changed nothing: no random numbers drawn, and the same run without it ends with
        # bit-identical parameters (DDP's all-reduce included)
        rng_after = torch.get_rng_state()
        torch.manual_seed(0)
        net2 = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 4))
        model2 = DDP(net2)
        opt2 = torch.optim.SGD(model2.parameters(), lr=0.05, momentum=0.9)
        torch.set_rng_state(rng_before)            # (each DataLoader pass draws its base seed)
        for _ in range(epochs):
            for xb, yb in loader:
                loss = crit(model2(xb), yb)
                opt2.zero_grad()
                loss.backward()
                opt2.step()
        result["same_params"] = all(torch.equal(a, b) for a, b in zip(net.parameters(), net2.parameters()))
        result["rng_unchanged"] = torch.equal(rng_after, torch.get_rng_state())
    rep = w.report()
    result["report_is_none"] = rep is None
    s = w.summary()["distributed"]
    result["dist"] = _jsonable(s)
    if rep is not None:
        result["report"] = {"status": rep["status"],
                            "root_causes": [(c["id"], c["confidence"]) for c in rep["root_causes"][:5]],
                            "caveats": rep["caveats"]}
        result["findings"] = [f.to_dict() for f in w.findings()]
    _write(out_dir, rank, result)
    if scenario in ("raise_late", "raise_local") and rank == 1:
        time.sleep(600)                            # a rank that raised and lingers (killed by the test)
    if error is None:
        dist.destroy_process_group()
    return 0


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, bytes):
        return None
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    return x


def _write(out_dir, rank, result):
    tmp = os.path.join(out_dir, f"rank{rank}.json.tmp")
    with open(tmp, "w") as f:
        json.dump(_jsonable(result), f)
    os.replace(tmp, os.path.join(out_dir, f"rank{rank}.json"))


# =========================================================================== the harness
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_ranks(scenario: str, tmp_path, world: int = 2, wait_for=(0, 1), timeout: float = HARD_TIMEOUT):
    """Start ``world`` ranks of ``scenario``; wait (hard timeout) until the ranks in ``wait_for`` have
    exited or written their result; kill whatever is left. Returns ``{rank: result}`` and the
    seconds until the awaited results were there."""
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(_free_port()), WORLD_SIZE=str(world),
               OMP_NUM_THREADS="1", PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")])))
    procs = []
    logs = []
    t0 = time.perf_counter()
    try:
        for r in range(world):
            log = open(tmp_path / f"rank{r}.log", "w")
            logs.append(log)
            procs.append(subprocess.Popen([sys.executable, __file__, scenario, str(tmp_path)],
                                          env=dict(env, RANK=str(r)), stdout=log, stderr=subprocess.STDOUT))
        while time.perf_counter() - t0 < timeout:
            if all((tmp_path / f"rank{r}.json").exists() or procs[r].poll() is not None for r in wait_for):
                break
            time.sleep(0.05)
        else:
            pytest.fail(f"{scenario}: ranks {list(wait_for)} not done within {timeout} s (a hang)\n"
                        + _logs(tmp_path, world))
        elapsed = time.perf_counter() - t0
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait(timeout=10)
        for log in logs:
            log.close()
    out = {}
    for r in range(world):
        f = tmp_path / f"rank{r}.json"
        if f.exists():
            out[r] = json.loads(f.read_text())
    for r in wait_for:
        assert r in out, f"{scenario}: rank {r} wrote no result\n" + _logs(tmp_path, world)
    return out, elapsed


def _logs(tmp_path, world):
    parts = []
    for r in range(world):
        f = tmp_path / f"rank{r}.log"
        if f.exists():
            parts.append(f"--- rank {r} ---\n" + f.read_text()[-3000:])
    return "\n".join(parts)


def _finding(res, fact):
    return next((f for f in res["findings"] if f["fact"] == fact), None)


slow = pytest.mark.slow      # real 2-process runs (still run in CI)


# =========================================================================== (a) healthy
@slow
def test_healthy_ddp_rank0_reports_healthy_rank1_none(tmp_path):
    res, _ = run_ranks("healthy", tmp_path)
    r0, r1 = res[0], res[1]
    assert r0["error"] is None and r1["error"] is None and r0["steps"] == r1["steps"] == 32
    assert r1["report_is_none"] is True and not r0["report_is_none"]
    assert r0["rng_unchanged"] and r1["rng_unchanged"] and r0["same_params"] and r1["same_params"]
    rep = r0["report"]
    assert rep["status"] in ("healthy", "insufficient_evidence")
    assert not rep["root_causes"] or rep["root_causes"][0][1] < 0.5
    d = r0["dist"]
    assert d["world_size"] == 2 and d["broken"] is None and d["missing"] == {}
    # exchanges at steps 10, 20, 30 and at exit, all complete
    assert [(e["kind"], e["step"], e["ok"]) for e in d["exchanges"]] == \
        [("periodic", 10, True), ("periodic", 20, True), ("periodic", 30, True), ("exit", 32, True)]
    f = d["facts"]
    assert f["params_out_of_sync"] is False and f["rank_nan_ranks"] == []
    assert f["data_wait_straggler_rank"] is None and f["ranks_not_reporting"] == []
    # agreed facts carry the @ranks source; every loss came from 2 ranks
    lr = _finding(r0, "learning_rate")
    assert lr["value"] == 0.05 and lr["source"] == "probe:optimizer_coverage@ranks"
    assert _finding(r0, "loss_has_nonfinite")["source"].endswith("@ranks")
    assert not any("distributed" in c for c in rep["caveats"])


# =========================================================================== (b) NaN on one rank
@slow
def test_nan_in_one_ranks_data_is_named_and_diagnosed(tmp_path):
    res, _ = run_ranks("nan", tmp_path)
    r0 = res[0]
    assert r1_none(res)
    d = r0["dist"]
    assert d["facts"]["rank_nan_ranks"] == [1]
    assert d["nan"]["1"]["loss"] == 3 and d["nan"]["0"]["loss"] == 4   # rank 0 only after the all-reduce
    inp = _finding(r0, "inputs_have_nan")
    assert inp["value"] is True and inp["source"].endswith("@rank1") and "rank 1" in inp["detail"]
    first = _finding(r0, "nan_first_step")
    assert first["value"] == 3 and first["source"].endswith("@rank1")
    assert r0["report"]["root_causes"][0][0] == "nan_in_inputs"
    assert any("rank 1 went NaN/Inf first" in c for c in r0["report"]["caveats"])


def r1_none(res):
    return res[1]["report_is_none"] is True


# =========================================================================== (c) desync
@slow
def test_parameters_out_of_sync_are_detected(tmp_path):
    res, _ = run_ranks("desync", tmp_path)
    r0 = res[0]
    assert r1_none(res)
    d = r0["dist"]
    f = d["facts"]
    assert f["params_out_of_sync"] is True
    assert f["desynced_params"] == ["0.weight"]
    assert d["desync"]["first"]["step"] == 5 and d["desync"]["first"]["ranks"] == [1]
    assert any("parameters out of sync" in c for c in r0["report"]["caveats"])
    # with the pending knowledge (kb/packs_pending/distributed_facts.md) this is a diagnosis
    rep = _report_with_pending_pack(tmp_path, r0)
    assert rep["root_causes"][0]["id"] == "ddp_desync"
    assert rep["root_causes"][0]["confidence"] >= 0.5


# =========================================================================== (d) a rank fails
@slow
def test_rank_crash_mid_training_other_rank_finishes_and_names_it(tmp_path):
    # rank 1 raises at step 12 and its process ends; rank 0's next DDP all-reduce (the user's group)
    # fails, rank 0 leaves its with block on that error and still diagnoses
    res, elapsed = run_ranks("crash", tmp_path)
    r0, r1 = res[0], res[1]
    assert "ValueError" in r1["error"] and r1["dist"]["local_error"].startswith("step 12: ValueError")
    assert r0["error"] is not None and r0["steps"] == 12
    d = r0["dist"]
    assert "1" in d["missing"] and "corrupt record in shard 1" in d["missing"]["1"]
    assert d["facts"]["ranks_not_reporting"] == [1]
    assert any("rank 1 did not report" in c for c in r0["report"]["caveats"])
    assert elapsed < 300         # the lingering ranks sleep 600 s: bounded well under that, also on a loaded machine


@slow
def test_rank_raising_mid_training_other_rank_finishes(tmp_path):
    # no DDP: only the watch's exchange connects the ranks. Rank 1 raises at step 7 (its process stays
    # alive, as under a retry loop); rank 0's exchange at step 10 stops at rank 1's "closed" mark, or
    # times out within timeout_s (15 s) if it got there first; rank 0 trains on and names rank 1's error
    res, _ = run_ranks("raise_local", tmp_path, wait_for=(0,))
    r0 = res[0]
    assert r0["error"] is None and r0["steps"] == 32
    d = r0["dist"]
    ex = d["exchanges"]
    assert (ex[0]["step"], ex[0]["ok"]) == (5, True)
    assert all(e["gather_ms"] <= (15.0 + 60) * 1000 for e in ex)
    assert len(ex) == 1 or (ex[1]["step"], ex[1]["ok"]) == (10, False)
    assert "step 7: ValueError: bad batch on rank 1" in d["missing"]["1"]
    assert d["broken"] is not None
    assert r0["elapsed"] < 15.0 + 240  # timeout_s plus a loaded machine's slack; a hang would be 600 s


@slow
def test_hung_rank_exchange_times_out_and_training_goes_on(tmp_path):
    # no DDP here, so only the watch's exchange can block: rank 1 hangs at step 7, rank 0's exchange
    # at step 10 times out after timeout_s (15 s), then rank 0 trains on to the end without exchanging
    res, elapsed = run_ranks("hang_local", tmp_path, wait_for=(0,))
    r0 = res[0]
    assert r0["error"] is None and r0["steps"] == 32
    d = r0["dist"]
    ex = d["exchanges"]
    assert [(e["kind"], e["step"], e["ok"]) for e in ex] == [("periodic", 5, True), ("periodic", 10, False)]
    assert 14.0 <= ex[1]["gather_ms"] / 1e3 <= 15.0 + 60   # a loaded machine may wake it late
    assert "did not reach the periodic exchange at step 10" in d["missing"]["1"]
    assert d["facts"]["ranks_not_reporting"] == [1]
    assert r0["elapsed"] < 15.0 + 240  # timeout_s plus a loaded machine's slack; a hang would be 600 s
    assert 1 not in res or res[1].get("steps") is None          # rank 1 is still stuck (killed by us)


@slow
def test_hung_rank_at_exit_rank0_times_out_within_timeout(tmp_path):
    res, _ = run_ranks("hang_exit", tmp_path, wait_for=(0,))
    r0 = res[0]
    assert r0["error"] is None and r0["steps"] == 32
    d = r0["dist"]
    last = d["exchanges"][-1]
    assert last["kind"] == "exit" and last["ok"] is False and 14.0 <= last["gather_ms"] / 1e3 <= 15.0 + 60
    assert "did not reach the exit exchange" in d["missing"]["1"]
    assert r0["report"]["status"] in ("healthy", "insufficient_evidence", "diagnosed")


@slow
def test_rank_raising_after_training_is_named_without_a_hang(tmp_path):
    res, _ = run_ranks("raise_late", tmp_path)
    r0, r1 = res[0], res[1]
    assert "OSError" in r1["error"]
    d = r0["dist"]
    assert "checkpoint write failed on rank 1" in d["missing"]["1"]
    assert d["facts"]["ranks_not_reporting"] == [1]
    # rank 0 either saw rank 1's stop signal before its exit exchange, or waited at most timeout_s
    last = d["exchanges"][-1] if d["exchanges"] else None
    assert last is None or last["kind"] != "exit" or last["ok"] is False and last["gather_ms"] <= (15.0 + 60) * 1000


# =========================================================================== straggler
@slow
def test_data_loading_straggler_rank(tmp_path):
    res, _ = run_ranks("straggler", tmp_path)
    r0 = res[0]
    d = r0["dist"]
    assert d["facts"]["data_wait_straggler_rank"] == 1
    per = d["per_rank"]
    assert per["1"]["dtf"] > 2 * per["0"]["dtf"]
    dtf = _finding(r0, "data_time_fraction")
    assert dtf["source"] == "probe:data_timing@rank1" and dtf["value"] == pytest.approx(per["1"]["dtf"])
    assert any("straggler" in c for c in r0["report"]["caveats"])


# =========================================================================== the distributed knowledge
def _report_with_pending_pack(tmp_path, r0):
    """Rank 0's merged findings diagnosed by the core KB, which declares the distributed facts."""
    from traindx.engine.api import Finding, Session, load_kb

    kb = load_kb(entry_point_packs=False)
    s = Session(kb)
    s.add_findings(Finding(f["fact"], f["value"], f["source"], f.get("detail")) for f in r0["findings"])
    for k, v in r0["dist"]["facts"].items():
        if v is not None and k in kb.facts:
            s.add(k, v, "probe:distributed@ranks")
    return s.report()


def test_core_kb_knows_the_distributed_facts():
    from traindx.engine.api import Session
    from traindx.engine.loader import load_kb
    from traindx.probes.integrations.distributed import PENDING_FACTS

    kb = load_kb(entry_point_packs=False)
    assert set(PENDING_FACTS) <= set(kb.facts)
    assert "ddp_desync" in kb.root_causes and kb.root_causes["ddp_desync"]["category"] == "Training loop"
    s = Session(kb)
    s.add_answers({"params_out_of_sync": True, "symptom": "instability"})
    rep = s.report()
    assert rep["status"] == "diagnosed" and rep["root_causes"][0]["id"] == "ddp_desync"


# =========================================================================== no processes
def test_merge_findings_policies():
    from traindx.engine.evidence import Finding
    from traindx.probes.integrations.distributed import merge_findings

    per = {0: [Finding("learning_rate", 0.1, "probe:optimizer_coverage", "lr"),
               Finding("inputs_have_nan", False, "probe:input_stats", "finite"),
               Finding("nan_first_step", 9, "probe:nan_trace", "at 9"),
               Finding("current_loss", 1.0, "probe:loss_vs_chance", "now"),
               Finding("loss_trend", "decreasing", "probe:loss_vs_chance", "trend")],
           1: [Finding("learning_rate", 0.1, "probe:optimizer_coverage", "lr"),
               Finding("inputs_have_nan", True, "probe:nan_trace", "NaN in the batch"),
               Finding("nan_first_step", 4, "probe:nan_trace", "at 4"),
               Finding("current_loss", 3.0, "probe:loss_vs_chance", "now"),
               Finding("loss_trend", "nonfinite", "probe:loss_vs_chance", "trend")],
           2: [Finding("learning_rate", 0.2, "probe:optimizer_coverage", "lr"),
               Finding("current_loss", 2.0, "probe:loss_vs_chance", "now"),
               Finding("loss_trend", "nonfinite", "probe:loss_vs_chance", "trend")]}
    merged, dis = merge_findings(per, 3)
    by = {f.fact: f for f in merged}
    assert by["inputs_have_nan"].value is True and by["inputs_have_nan"].source == "probe:nan_trace@rank1"
    assert by["nan_first_step"].value == 4 and by["nan_first_step"].source == "probe:nan_trace@rank1"
    assert by["current_loss"].value == pytest.approx(2.0) and by["current_loss"].source.endswith("@ranks")
    assert by["loss_trend"].value == "nonfinite"            # majority
    assert by["learning_rate"].value == 0.1 and by["learning_rate"].source.endswith("@rank0")
    assert {d["fact"] for d in dis} == {"learning_rate", "inputs_have_nan", "nan_first_step", "loss_trend"}
    same, dis2 = merge_findings({0: [Finding("optimizer", "sgd", "probe:optimizer_coverage")],
                                 1: [Finding("optimizer", "sgd", "probe:optimizer_coverage")]}, 2)
    assert same[0].source == "probe:optimizer_coverage@ranks" and not dis2


def test_param_checksums_see_one_changed_element():
    import torch

    from traindx.probes.integrations.distributed import compare_checksums, param_checksums

    torch.manual_seed(0)
    ps = [torch.randn(10, 10), torch.randn(7), torch.randn(3, 3, 3)]
    state = torch.get_rng_state()
    n1, d1, f64 = param_checksums(ps)
    assert torch.equal(state, torch.get_rng_state())      # no random numbers drawn
    qs = [p.clone() for p in ps]
    qs[1][2] += 1e-3                                      # an element the samples miss: the norm sees it
    n2, d2, _ = param_checksums(qs)
    from array import array

    def pack(n, d):
        return {"layout": 1, "f64": f64, "norms": array("d", n).tobytes(), "digests": array("I", d).tobytes()}
    assert compare_checksums(pack(n1, d1), pack(n1, d1)) == []
    assert compare_checksums(pack(n1, d1), pack(n2, d2)) == [1]


def test_without_process_group_it_is_a_plain_watch():
    import torch
    import torch.nn as nn

    from traindx.probes.integrations.distributed import watch_distributed

    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    x, y = torch.randn(64, 4), torch.randint(0, 2, (64,))
    with watch_distributed(m, opt, every=2) as w:
        for i in range(0, 64, 16):
            loss = nn.functional.cross_entropy(m(x[i:i + 16]), y[i:i + 16])
            w.observe(loss)
            opt.zero_grad()
            loss.backward()
            opt.step()
    assert w.world_size == 1 and w.summary()["distributed"]["exchanges"] == []
    rep = w.report()
    assert rep["schema_version"] == "1"
    assert any(f.fact == "learning_rate" for f in w.findings())


def test_sync_batchnorm_models_skip_single_rank_replays():
    import torch.nn as nn

    from traindx.probes.integrations.distributed import _NoReplayMonitor, watch_distributed

    m = nn.Sequential(nn.Linear(4, 8), nn.SyncBatchNorm(8), nn.Linear(8, 2))
    w = watch_distributed(m, None)
    assert isinstance(w.monitor, _NoReplayMonitor)     # its forward is a collective: no replays on one rank
    w.monitor._run_overfit()
    assert "skipped" in w.monitor._overfit
    assert not isinstance(watch_distributed(nn.Linear(2, 2), None).monitor, _NoReplayMonitor)


if __name__ == "__main__":
    sys.exit(_worker(sys.argv[1], sys.argv[2]))
