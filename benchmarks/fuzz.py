"""Fuzz traindx's inputs: >= 10,000 generated bad inputs, 0 tracebacks, every rejection one line.

    python benchmarks/fuzz.py [--cases 12000] [--seed 0] [--kinds kb,answers,config,log,complaint,mcp]

Each case is a hostile or broken version of something a user or a pack hands traindx — a
knowledge-base file, an answers file, a config (YAML/JSON/TOML), a log (CSV, JSON lines, JSON,
TensorBoard, console output), a pasted complaint, an MCP request — made by mutating real inputs
(the shipped knowledge base, the example configs, logs written here) and by known attacks (alias
bombs, deep nesting, huge lines and numbers, control characters, wrong types). Every case runs in
this process through the same function the CLI/MCP front-ends call, and must end in one of:

- accepted (a result);
- a rejection: :class:`InputError` / MCP ``ToolFailure`` whose message is one line, starts with
  the file's path for file inputs, and gives ``file:line`` when the parser knows the line.

Anything else — any other exception — is a traceback a user would see: counted, and the first
few are printed. Also printed: cases per kind, rejections with a line, the slowest case, peak RSS.
Exit status 1 if any traceback or any multi-line rejection was seen. Deterministic for a seed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import string
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ATTACKS_YAML = [
    lambda: "a0: &a0 [" + ",".join(['"lol"'] * 9) + "]\n" + "".join(
        f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]\n" for i in range(1, 9)) + "x: *a8\n",
    lambda: "[" * 50_000,
    lambda: "- " * 20_000 + "x\n",
    lambda: "{a: " * 5000 + "1" + "}" * 5000,
    lambda: "a: &a [*a]\n",
    lambda: "a: !!python/object/apply:os.system ['true']\n",
    lambda: "a: !!binary AAAA\nb: !custom x\n",
    lambda: "n: " + "9" * 6000 + "\n",
    lambda: "t: 2021-02-31\n",
    lambda: "s: '" + "x" * (2 << 20) + "'\n",
    lambda: "a: 1\n---\nb: 2\n",
    lambda: "\x00\x01\x02: \x7f\n",
    lambda: "<<: *nope\n",
    lambda: "? [a, b]\n: c\n",
    lambda: "a: 1\na: 2\n",
    lambda: "\ufeff\ufeffa: 1\n",
    lambda: "%YAML 9.9\n---\na: 1\n",
    lambda: "a: " + "[" * 99 + "]" * 99 + "\n",
]

ATTACKS_JSON = [
    lambda: "[" * 200_000,
    lambda: '{"a": ' * 3000 + "1" + "}" * 3000,
    lambda: '{"learning_rate": ' + "1" * 6000 + "}",
    lambda: '{"a": 1e999999}',
    lambda: '{"a": NaN, "b": -Infinity}',
    lambda: '{"a": "\\ud800"}',
    lambda: '{"a": 1,}',
    lambda: '"' + "x" * 100_000,
    lambda: "\x00" * 100,
    lambda: '{"a": [1, 2, 3]' * 1000,
]


def _mutate_text(rng: random.Random, text: str) -> str:
    """One random corruption of a text: the usual ways files break."""
    if not text:
        text = "x"
    op = rng.randrange(12)
    i = rng.randrange(len(text))
    if op == 0:    # truncate (a file still being written)
        return text[:i]
    if op == 1:    # delete a span
        return text[:i] + text[i + rng.randrange(1, 50):]
    if op == 2:    # insert structural characters
        return text[:i] + rng.choice([":", "-", "[", "]", "{", "}", "&a ", "*a", "!!", "'", '"', "\t", "#", "|",
                                      ">", ",", "\n  ", "\n- ", "\x00", "\x1b", "\r", "%", "@", "`",
                                      "\\"]) + text[i:]
    if op == 3:    # duplicate a span (repeated keys, repeated headers)
        j = min(len(text), i + rng.randrange(1, 200))
        return text[:j] + text[i:j] + text[j:]
    if op == 4:    # random unicode
        odd = "".join(chr(rng.choice([rng.randrange(0x20, 0x7f), rng.randrange(0xa0, 0x3000),
                                      rng.randrange(0x1f300, 0x1f600)])) for _ in range(rng.randrange(1, 20)))
        return text[:i] + odd + text[i:]
    if op == 5:    # swap a number for something odd
        return text[:i] + rng.choice(["nan", "inf", "-inf", "1e309", "-0", "0x1F", "1_000", "9" * 400, "true",
                                      "null", "~",
                                      "2021-13-45", "1.2.3", "[]", "{}"]) + text[i:]
    if op == 6:    # indentation damage
        lines = text.splitlines(True)
        k = rng.randrange(len(lines))
        lines[k] = " " * rng.randrange(1, 7) + lines[k]
        return "".join(lines)
    if op == 7:    # a long line
        return text[:i] + "y" * rng.choice([1000, 100_000, 1_100_000]) + text[i:]
    if op == 8:    # byte-level: flip a character
        return text[:i] + chr((ord(text[i]) ^ (1 << rng.randrange(7))) or 1) + text[i + 1:]
    if op == 9:    # repeat a line many times
        lines = text.splitlines(True) or ["x\n"]
        k = rng.randrange(len(lines))
        times = rng.randrange(2, 3000) if len(lines[k]) < 1000 else 2
        return "".join(lines[:k] + [lines[k]] * times + lines[k:])
    if op == 10:   # nesting
        d = rng.choice([10, 99, 101, 1000, 30_000])
        return text[:i] + "[" * d + "]" * rng.choice([0, d]) + text[i:]
    return "".join(rng.sample(text, len(text))) if len(text) < 5000 else text[::-1]


def _mutations(rng, text, n_max=4):
    for _ in range(rng.randrange(1, n_max + 1)):
        text = _mutate_text(rng, text)
        if len(text) > 8 << 20:   # the fuzzer's own memory: inputs stay under 8 MB
            text = text[: 8 << 20]
    return text


class Outcome:
    def __init__(self):
        self.counts = Counter()
        self.by_kind = defaultdict(Counter)
        self.tracebacks = []
        self.multiline = []
        self.no_path = []
        self.slowest = (0.0, "")
        self.slowest_cpu = (0.0, "")   # CPU seconds: the bound that does not move with the machine's load

    def record(self, kind, label, fn, path=None):
        from traindx.engine.errors import InputError
        try:
            from traindx.engine.frontends.mcp_server import ToolFailure
        except ImportError:  # pragma: no cover
            ToolFailure = InputError
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            fn()
            result = "accepted"
        except (InputError, ToolFailure) as exc:
            msg = str(exc) if isinstance(exc, InputError) else exc.message
            result = "rejected"
            if "\n" in msg.strip():
                self.multiline.append(f"{kind}/{label}: {msg[:300]!r}")
            if path and isinstance(exc, InputError):
                if not msg.startswith(str(path)) and str(path) not in msg:
                    self.no_path.append(f"{kind}/{label}: {msg[:200]}")
                if exc.line is not None:
                    self.by_kind[kind]["rejected with a line"] += 1
        except RecursionError as exc:   # also a traceback to a user
            result = "traceback"
            self.tracebacks.append(f"{kind}/{label}: RecursionError {str(exc)[:100]}")
        except Exception:
            result = "traceback"
            self.tracebacks.append(f"{kind}/{label}:\n{traceback.format_exc()[-1500:]}")
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
        if dt > self.slowest[0]:
            self.slowest = (dt, f"{kind}/{label}")
        if dc > self.slowest_cpu[0]:
            self.slowest_cpu = (dc, f"{kind}/{label}")
        self.counts[result] += 1
        self.by_kind[kind][result] += 1
        self.by_kind[kind]["cases"] += 1


def _peak_rss_mb() -> float:
    """This process's own peak resident memory in MB. ``VmHWM`` is the high-water mark of the process's
    current address space; ``ru_maxrss`` also carries the peak of the process it was forked from (Linux
    keeps it across exec), so a fuzz run started by a 1 GB pytest worker would report 1 GB of its own."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _read(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def fuzz_kb(rng, n, tmp, out):
    """Mutated shipped KB files, read and validated as a pack's file would be (loader._Builder)."""
    from traindx.engine.loader import _Builder, core_dir, load_kb
    files = []
    for base, _dirs, names in os.walk(core_dir()):
        files += [os.path.join(base, f) for f in names if f.endswith(".yaml")]
    files.sort()
    texts = {f: _read(f) for f in files}
    for i in range(n):
        src = rng.choice(files)
        if i % 10 == 0:
            text = "kind: facts\n" + rng.choice(ATTACKS_YAML)()
        else:
            text = _mutations(rng, texts[src])
        path = os.path.join(tmp, f"kb{i % 50}.yaml")
        with open(path, "w", encoding="utf-8", errors="surrogatepass") as fh:
            fh.write(text)
        out.record("kb", os.path.basename(src), lambda p=path: _Builder().add_file(p, "pack"), path)
    # a few whole packs through load_kb (meaning checks: dangling ids, unknown facts, cycles)
    for i in range(max(1, n // 200)):
        pack = os.path.join(tmp, f"pack{i}")
        os.makedirs(pack, exist_ok=True)
        src = rng.choice([f for f in files if "/rules/" in f] or files)
        text = texts[src].replace("id: ", "id: fz_", 50) if rng.random() < 0.7 else texts[src]
        with open(os.path.join(pack, "x.yaml"), "w", encoding="utf-8", errors="surrogatepass") as fh:
            fh.write(_mutations(rng, text, 2))
        out.record("kb_pack", os.path.basename(src), lambda p=pack: load_kb([p], entry_point_packs=False))
        shutil.rmtree(pack)


ANSWER_KEYS = ["learning_rate", "batch_size", "optimizer", "num_classes", "symptom", "loss_value", "uses_amp",
               "train_accuracy", "regularization", "complaint", "nope", "oscillation_trend", "frozen_params"]
ODD_VALUES = [None, True, -1, 0, 1e308, float("inf"), "nan", "", "x" * 5000, [], {}, [[1]], {"a": {"b": 1}},
              "1e-3", "ten", -0.5, 2 ** 70, "adam; rm -rf /", "${HOME}", "{symptom}", "%s%s%s", "\x00"]


def fuzz_answers(rng, n, tmp, out, kb):
    from traindx.engine.api import Session
    from traindx.engine.values import parse_answer_file
    for i in range(n):
        fmt = rng.choice(["yaml", "json"])
        path = os.path.join(tmp, f"answers{i % 20}.{fmt}")
        r = rng.random()
        if r < 0.15:
            text = rng.choice(ATTACKS_YAML if fmt == "yaml" else ATTACKS_JSON)()
        else:
            data = {rng.choice(ANSWER_KEYS): rng.choice(ODD_VALUES) for _ in range(rng.randrange(1, 5))}
            try:
                text = json.dumps(data) if fmt == "json" else "".join(
                    f"{k}: {json.dumps(v)}\n" for k, v in data.items())
            except ValueError:
                text = "{}"
            if r < 0.6:
                text = _mutations(rng, text, 2)
        with open(path, "w", encoding="utf-8", errors="surrogatepass") as fh:
            fh.write(text)

        def run(p=path):
            data, marks = parse_answer_file(p)
            s = Session(kb)
            s.add_answers(data, marks=marks, path=p)
            rep = s.report()
            for c in rep["root_causes"]:
                assert 0.0 <= c["confidence"] <= 1.0, c
        out.record("answers", fmt, run, path)


CONFIGS = {
    "yaml": "model:\n  name: resnet\noptimizer:\n  name: adamw\n  lr: 3.0e-4\n  weight_decay: 0.01\n"
            "train:\n  batch_size: 64\n  epochs: 30\n  scheduler: cosine\n  warmup_steps: 500\n"
            "defaults: &d {dropout: 0.1}\nhead:\n  <<: *d\n",
    "json": json.dumps({"learning_rate": 0.001, "per_device_train_batch_size": 16, "num_train_epochs": 3,
                        "lr_scheduler_type": "linear", "optim": "adamw_torch", "fp16": True}, indent=2),
    "toml": ("[optim]\nname = \"sgd\"\nlr = 0.1\nmomentum = 0.9\n[data]\nbatch_size = 128\n"
             "augment = [\"flip\", \"crop\"]\n"),
}


def fuzz_config(rng, n, tmp, out):
    from traindx.probes.readers.config import analyze_config
    for i in range(n):
        fmt = rng.choice(list(CONFIGS))
        path = os.path.join(tmp, f"cfg{i % 20}.{fmt}")
        if rng.random() < 0.15:
            text = rng.choice(ATTACKS_JSON if fmt == "json" else ATTACKS_YAML)()
            if fmt == "toml":
                text = "a = " + "[" * rng.choice([50, 5000, 100_000])
        else:
            text = _mutations(rng, CONFIGS[fmt])
        with open(path, "w", encoding="utf-8", errors="surrogatepass") as fh:
            fh.write(text)
        out.record("config", fmt, lambda p=path: analyze_config(p), path)


def _csv_log(rng):
    rows = ["step,loss,val_loss,lr,accuracy"]
    loss = 2.3
    for s in range(rng.randrange(5, 400)):
        loss *= 0.99
        rows.append(f"{s},{loss:.4f},{loss * 1.1:.4f},{1e-3:.1e},{min(1, s / 400):.3f}")
    return "\n".join(rows) + "\n"


def _jsonl_log(rng):
    return "".join(json.dumps({"step": s, "loss": 2.3 * 0.99 ** s, "lr": 1e-3}) + "\n"
                   for s in range(rng.randrange(5, 300)))


def _json_log(rng):
    return json.dumps({"log_history": [{"step": s, "loss": 2.3 * 0.99 ** s, "learning_rate": 1e-3}
                                       for s in range(rng.randrange(5, 300))]})


def _console_log(rng):
    return "".join(f"Epoch {e}/20 - step {e * 100} - loss: {2.3 * 0.9 ** e:.4f} - val_loss: {2.4 * 0.92 ** e:.4f}\n"
                   for e in range(rng.randrange(3, 40)))


def _tb_log(tmp, rng, i):
    try:
        from torch.utils.tensorboard import SummaryWriter
    except Exception:
        return None
    d = os.path.join(tmp, f"tb{i}")
    w = SummaryWriter(d)
    for s in range(rng.randrange(5, 100)):
        w.add_scalar("train/loss", 2.3 * 0.99 ** s, s)
    w.close()
    return d


def fuzz_logs(rng, n, tmp, out):
    from traindx.probes.readers.logs import analyze_log
    makers = {"csv": _csv_log, "jsonl": _jsonl_log, "json": _json_log, "log": _console_log}
    tb_dirs = [d for d in (_tb_log(tmp, rng, k) for k in range(3)) if d]
    for i in range(n):
        fmt = rng.choice(list(makers) + (["tb"] if tb_dirs else []))
        if fmt == "tb":   # a corrupted event file: flipped, cut and inserted bytes
            src = rng.choice(tb_dirs)
            ev = next(os.path.join(src, f) for f in sorted(os.listdir(src)) if "tfevents" in f)
            with open(ev, "rb") as fh:
                raw = bytearray(fh.read())
            for _ in range(rng.randrange(1, 6)):
                k = rng.randrange(len(raw))
                op = rng.randrange(3)
                if op == 0:
                    raw[k] ^= 1 << rng.randrange(8)
                elif op == 1:
                    del raw[k:]
                    raw = raw or bytearray(b"\x00")
                else:
                    raw[k:k] = rng.randbytes(rng.randrange(1, 16))
            path = os.path.join(tmp, f"events.out.tfevents.{i % 20}.fuzz")
            with open(path, "wb") as fh:
                fh.write(bytes(raw))
        else:
            path = os.path.join(tmp, f"log{i % 20}.{fmt}")
            if rng.random() < 0.1:
                text = rng.choice(ATTACKS_JSON)() if fmt in ("json", "jsonl") else \
                    "step,loss\n" + "1," + "9" * rng.choice([10, 2_000_000]) + "\n"
            else:
                text = _mutations(rng, makers[fmt](rng))
            with open(path, "w", encoding="utf-8", errors="surrogatepass") as fh:
                fh.write(text)
        out.record("log", fmt, lambda p=path: analyze_log(p), path)


def fuzz_complaints(rng, n, out, kb):
    from traindx.engine.api import Session
    base = []
    cdir = os.path.join(ROOT, "benchmarks", "complaints", "tune")
    import yaml
    for f in sorted(os.listdir(cdir)):
        if f.endswith(".yaml"):
            # the harness's own reading of the corpus, not a case: libyaml's safe loader, not the pure-Python one
            loaded = yaml.load(_read(os.path.join(cdir, f)), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
            base += [c["text"] for c in loaded or [] if isinstance(c, dict)]
    base = base or ["loss is flat"]
    for _i in range(n):
        r = rng.random()
        if r < 0.1:
            text = rng.choice(["a" * 300_000, "(" * 50_000, "lr " * 60_000, "\x00" * 1000, "😀" * 50_000,
                               "loss nan " + "1e-" * 20_000, "lr=" + "9" * 50_000])
        elif r < 0.5:
            text = _mutations(rng, rng.choice(base), 3)
        else:
            text = "".join(rng.choice(string.printable) for _ in range(rng.randrange(0, 400)))

        def run(t=text):
            s = Session(kb)
            s.add_complaint(t)
            rep = s.report()
            for c in rep["root_causes"]:
                assert 0.0 <= c["confidence"] <= 1.0, c
        out.record("complaint", "text", run)


def fuzz_mcp(rng, n, tmp, out):
    from traindx.engine.frontends.mcp_server import TOOLS, Engine
    eng = Engine()
    names = [t.name for t in TOOLS] + ["nope", "", "__init__", "call", "_kb"]
    sids = []
    values = ODD_VALUES + ["x", "../../etc/passwd", "/dev/zero", "/proc/self/mem", tmp, "nope.py",
                           {"learning_rate": 1e-3}, {"lr": "fast"}]
    for _i in range(n):
        name = rng.choice(names)
        spec = next((t for t in TOOLS if t.name == name), None)
        props = list(spec.input_schema.get("properties", {})) if spec else ["x"]
        args = {}
        for p in props:
            if rng.random() < 0.75:
                args[p] = rng.choice(sids) if p == "session_id" and sids and rng.random() < 0.7 else rng.choice(values)
        if rng.random() < 0.1:
            args[rng.choice(["extra", "__class__", ""])] = 1
        if rng.random() < 0.05:
            args = rng.choice([None, [], "x", 3])

        def run(nm=name, a=args):
            res = eng.call(nm, a)
            if nm == "start_diagnosis" and isinstance(res, dict) and len(sids) < 50:
                sids.append(res["session_id"])
            json.dumps(res, default=str)
        out.record("mcp", name or "(empty)", run)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=12_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--kinds", default="kb,answers,config,log,complaint,mcp")
    args = ap.parse_args(argv)
    kinds = args.kinds.split(",")
    share = {"kb": 0.25, "answers": 0.15, "config": 0.15, "log": 0.2, "complaint": 0.1, "mcp": 0.15}
    total_share = sum(share[k] for k in kinds)
    rng = random.Random(args.seed)
    from traindx.engine.loader import load_kb
    kb = load_kb(entry_point_packs=False)
    # the one-time build every first session pays (the example store behind the words, cached on disk), paid
    # before the cases: on a clean checkout it fell to whichever case came first (6.4 s of CPU in one answers file)
    from traindx.engine.api import Session
    Session(kb).add_complaint("the loss is flat")
    out = Outcome()
    tmp = tempfile.mkdtemp(prefix="traindx-fuzz-")
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        for kind in kinds:
            n = int(args.cases * share[kind] / total_share + 0.5)
            k0, k0c = time.perf_counter(), time.process_time()
            if kind == "kb":
                fuzz_kb(rng, n, tmp, out)
            elif kind == "answers":
                fuzz_answers(rng, n, tmp, out, kb)
            elif kind == "config":
                fuzz_config(rng, n, tmp, out)
            elif kind == "log":
                fuzz_logs(rng, n, tmp, out)
            elif kind == "complaint":
                fuzz_complaints(rng, n, out, kb)
            elif kind == "mcp":
                fuzz_mcp(rng, n, tmp, out)
            c = out.by_kind[kind]
            print(f"{kind:10s} {c['cases']:6d} cases  {c['accepted']:6d} accepted  {c['rejected']:6d} rejected "
                  f"({c['rejected with a line']} with a line)  {c['traceback']:3d} tracebacks  "
                  f"{time.perf_counter() - k0:6.1f} s ({time.process_time() - k0c:.1f} s CPU)", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    extra = out.by_kind["kb_pack"]
    if extra["cases"]:
        print(f"{'kb_pack':10s} {extra['cases']:6d} cases  {extra['accepted']:6d} accepted  "
              f"{extra['rejected']:6d} rejected  "
              f"{extra['traceback']:3d} tracebacks")
    total = sum(c["cases"] for c in out.by_kind.values())
    peak = _peak_rss_mb()
    print(f"total      {total:6d} cases  {out.counts['accepted']} accepted  {out.counts['rejected']} rejected  "
          f"{out.counts['traceback']} tracebacks  {len(out.multiline)} multi-line rejections  "
          f"{len(out.no_path)} rejections not naming their file")
    print(f"time {time.perf_counter() - t0:.1f} s ({time.process_time() - c0:.1f} s CPU); slowest case "
          f"{out.slowest[0]:.2f} s ({out.slowest[1]}); most CPU in one case {out.slowest_cpu[0]:.2f} s "
          f"({out.slowest_cpu[1]}); peak RSS {peak:.0f} MB (seed {args.seed})")
    for t in out.tracebacks[:5]:
        print("TRACEBACK", t)
    for m in (out.multiline + out.no_path)[:5]:
        print("BAD MESSAGE", m)
    return 1 if out.tracebacks or out.multiline or out.no_path else 0


if __name__ == "__main__":
    sys.exit(main())
