"""What ``traindx.probes.watch_distributed`` costs under DDP: per step, and per exchange.

    python benchmarks/bench_distributed.py [--reps 7] [--steps 100] [--scale 2,4,8] [--json OUT]

Part 1 (2 ranks, gloo, CPU, one thread per rank): four variants of the same DDP training step
(MLP 784-512-512-10, batch 64 per rank, cross-entropy, SGD with momentum), each with its own model,
DDP wrapper and optimizer, run on both ranks in lockstep:

* ``ddp``     the bare DDP step;
* ``dx0``     inside ``watch_distributed(every=0)``: every rank's monitor, no periodic exchange
  (batches through ``w.loader``, the loss through ``w.observe``, as a user writes it);
* ``dx50``    ``every=50`` (the default): an exchange with rank 0 every 50 steps;
* ``dx10``    ``every=10``.

After ``--warmup`` steps per variant (past the monitor's flat-loss check at step 50 and the 20 armed
steps it may trigger here: DDP's averaged first steps move the loss < 5%), segments of ``--steps`` steps are
interleaved (the order rotated each repetition) so that machine
load drift hits every variant alike; each watch stays attached for the whole run (its exchange
schedule counts its own optimizer's steps). Time per step = rank 0's segment wall time / steps,
median over repetitions; the ratio is paired (segment / the ``ddp`` segment of the same
repetition, median). The exchange cost is what each watch records itself (``summary()["distributed"]
["exchanges"]``: building the payload — checksums, pickling — the gather, rank 0's merge).

Part 2 (``--scale``): N ranks on this machine, a model with 160 parameter tensors (80 Linear(64, 64)
layers, the tensor count of a ResNet-50), no training: 30 periodic exchanges then the exit exchange,
timed on rank 0, with the payload sizes. On a machine with fewer cores than ranks the ranks share
cores, so these times are upper bounds. Benchmarks measure; they assert nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
VARIANTS = ("ddp", "dx0", "dx50", "dx10")


# --------------------------------------------------------------------------- rank side
def _init():
    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=int(os.environ["RANK"]), world_size=int(os.environ["WORLD_SIZE"]))
    return torch, dist


def worker_steps(args, out):
    torch, dist = _init()
    nn = torch.nn
    from torch.nn.parallel import DistributedDataParallel as DDP

    from traindx.probes.integrations.distributed import watch_distributed

    rank = dist.get_rank()
    g = torch.Generator().manual_seed(0)
    teacher = torch.randn(784, 10, generator=g) / 28
    gr = torch.Generator().manual_seed(100 + rank)
    batches = []
    for _ in range(16):
        x = torch.randn(64, 784, generator=gr)
        batches.append((x, (x @ teacher).argmax(1)))
    crit = nn.CrossEntropyLoss()
    var = {}
    for name in VARIANTS:                       # the same construction order on every rank (DDP is collective)
        torch.manual_seed(0)
        net = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
        model = DDP(net)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        w = None
        if name != "ddp":
            w = watch_distributed(model, opt, criterion=crit, every=int(name[2:]), timeout_s=60)
            w.attach()
        var[name] = (model, opt, w)

    def segment(name, steps):
        model, opt, w = var[name]
        it = (w.loader(batches) if w is not None else batches)
        done = 0
        t0, c0 = time.perf_counter(), time.thread_time()
        while done < steps:
            for x, y in it:
                out_ = model(x)
                loss = crit(out_, y)
                if w is not None:
                    w.observe(loss, outputs=out_, targets=y)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                done += 1
                if done >= steps:
                    break
        return (time.perf_counter() - t0) / steps, (time.thread_time() - c0) / steps

    for name in VARIANTS:                      # warm-up: past the monitor's flat-loss check at step 50 and the
        segment(name, args.warmup)             # 20 armed steps it may trigger, so segments time the cheap state
    res = {n: {"wall": [], "cpu": []} for n in VARIANTS}
    for rep in range(args.reps):
        order = VARIANTS[rep % len(VARIANTS):] + VARIANTS[:rep % len(VARIANTS)]
        for name in order:
            dist.barrier()
            wall, cpu = segment(name, args.steps)
            res[name]["wall"].append(wall)
            res[name]["cpu"].append(cpu)
    exchanges = {}
    for name in VARIANTS:
        w = var[name][2]
        if w is not None:
            w.detach()
            exchanges[name] = w.summary()["distributed"]["exchanges"]
    if rank == 0:
        json.dump({"steps": res, "exchanges": exchanges, "torch": torch.__version__}, open(out, "w"))
    dist.barrier()
    dist.destroy_process_group()


def worker_scale(args, out):
    torch, dist = _init()
    nn = torch.nn
    from traindx.probes.integrations.distributed import watch_distributed

    torch.manual_seed(0)
    net = nn.Sequential(*[nn.Linear(64, 64) for _ in range(80)])
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    w = watch_distributed(net, opt, every=0, timeout_s=60)
    w.attach()
    dist.barrier()
    t0 = time.perf_counter()
    for _ in range(30):
        w.exchange("periodic")
    loop = (time.perf_counter() - t0) / 30
    w.detach()
    if dist.get_rank() == 0:
        ex = w.summary()["distributed"]["exchanges"]
        json.dump({"exchanges": ex, "loop_ms": loop * 1e3, "params": len(list(net.parameters()))}, open(out, "w"))
    dist.barrier()
    dist.destroy_process_group()


# --------------------------------------------------------------------------- launcher
def _port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(mode, world, args, timeout=900):
    out = tempfile.mktemp(suffix=".json")
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(_port()), WORLD_SIZE=str(world),
               OMP_NUM_THREADS="1", PYTHONPATH=os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")])))
    cmd = [sys.executable, __file__, "--worker", mode, "--out", out, "--reps", str(args.reps),
           "--steps", str(args.steps),
           "--warmup", str(args.warmup)]
    procs = [subprocess.Popen(cmd, env=dict(env, RANK=str(r))) for r in range(world)]
    try:
        for p in procs:
            p.wait(timeout=timeout)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    with open(out) as f:
        data = json.load(f)
    os.unlink(out)
    return data


def _med(xs):
    return statistics.median(xs) if xs else float("nan")


def report_steps(d):
    s = d["steps"]
    print(f"\n### Per step, 2 ranks (torch {d['torch']}, gloo, CPU, 1 thread per rank)\n")
    print("| variant | wall ms/step | CPU ms/step | wall vs ddp (paired) | CPU vs ddp (paired) |")
    print("|---|---:|---:|---:|---:|")
    base = s["ddp"]
    rows = {}
    for n in VARIANTS:
        w = _med(s[n]["wall"]) * 1e3
        c = _med(s[n]["cpu"]) * 1e3
        rw = _med([a / b for a, b in zip(s[n]["wall"], base["wall"])])
        rc = _med([a / b for a, b in zip(s[n]["cpu"], base["cpu"])])
        rows[n] = (w, c, rw, rc)
        print(f"| {n} | {w:.3f} | {c:.3f} | {rw:.3f} | {rc:.3f} |")
    print("\n### Exchanges (rank 0's own records)\n")
    print("| variant | kind | n | payload ms (median) | store ms | gather ms (median / max) | merge ms | total ms "
          "(median / max) | bytes per rank |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for n, ex in d["exchanges"].items():
        for kind in ("periodic", "exit"):
            e = [x for x in ex if x["kind"] == kind and x.get("ok")]
            if not e:
                continue
            print(f"| {n} | {kind} | {len(e)} | {_med([x['payload_ms'] for x in e]):.2f} | "
                  f"{_med([x.get('store_ms', 0) for x in e]):.2f} | "
                  f"{_med([x['gather_ms'] for x in e]):.2f} / {max(x['gather_ms'] for x in e):.2f} | "
                  f"{_med([x.get('merge_ms', 0) for x in e]):.3f} | {_med([x['total_ms'] for x in e]):.2f} / "
                  f"{max(x['total_ms'] for x in e):.2f} | {e[-1]['bytes']} |")
    return rows


def report_scale(results):
    print("\n### Exchange only, N ranks (160 parameter tensors; 30 periodic exchanges + exit)\n")
    print("| ranks | periodic total ms (median / p90) | payload ms | store ms | merge ms at rank 0 | "
          "periodic bytes per rank | "
          "bytes into rank 0 | exit ms | exit bytes per rank |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for world, d in results.items():
        ex = d["exchanges"]
        per = [x for x in ex if x["kind"] == "periodic" and x.get("ok")]
        ext = [x for x in ex if x["kind"] == "exit" and x.get("ok")]
        tot = sorted(x["total_ms"] for x in per)
        p90 = tot[int(0.9 * (len(tot) - 1))] if tot else float("nan")
        b = per[-1]["bytes"] if per else 0
        print(f"| {world} | {_med(tot):.2f} / {p90:.2f} | {_med([x['payload_ms'] for x in per]):.2f} | "
              f"{_med([x.get('store_ms', 0) for x in per]):.2f} | "
              f"{_med([x.get('merge_ms', 0) for x in per]):.3f} | {b} | {b * world} | "
              f"{ext[0]['total_ms'] if ext else float('nan'):.1f} | {ext[0]['bytes'] if ext else 0} |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--scale", default="2,4,8", help="rank counts for the exchange-only part ('' to skip)")
    ap.add_argument("--skip-steps", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker == "steps":
        return worker_steps(args, args.out)
    if args.worker == "scale":
        return worker_scale(args, args.out)
    print(f"# bench_distributed: python {sys.version.split()[0]}, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f} at start")
    allres = {}
    if not args.skip_steps:
        d = launch("steps", 2, args)
        report_steps(d)
        allres["steps"] = d
    scale = {}
    for world in [int(x) for x in args.scale.split(",") if x.strip()]:
        scale[world] = launch("scale", world, args)
    if scale:
        report_scale(scale)
        allres["scale"] = scale
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(allres, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
