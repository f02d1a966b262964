"""docs/TUTORIAL_KB_PACK.md works as written: replay it step by step against the real CLI.

The tutorial's source marks what a reader does, in order:

- ``<!-- file: PATH -->`` before a fenced block: write the block to PATH (a later block for the
  same PATH replaces it);
- ``<!-- copy: SRC -> DST -->``: copy a folder (the shell step shown under it);
- ``<!-- run -->`` / ``<!-- run: exit=2 -->`` / ``<!-- run: installed -->`` before a ``console``
  block: run each ``$ traindx ...`` line (as ``python -m traindx.engine ...``) on the files
  written so far — ``installed``: with the packages the tutorial built installed, through a
  fake distribution on PYTHONPATH, and no ``--kb`` — and check its exit status and that every
  line shown under it appears in the output, in order (``...`` alone skips lines, ``...``
  inside a line matches anything; the numbers of an ``ok:`` line depend on the core's size);
- ``<!-- break: FILE :: OLD :: NEW -->`` before a ``console`` block: on a copy of the files so
  far, replace OLD by NEW in FILE and check the command fails with exactly the message shown.

Every file state is snapshotted when its block is reached, so the commands run concurrently.
Beyond what the text shows, the tests check the numbers: the pack adds exactly its rules,
questions, root cause, fix and sheet; the JSON report; the example pack is the tutorial's final
state; an installed pack is found through its entry point and ``provides`` makes a deferral found.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "TUTORIAL_KB_PACK.md"
EXAMPLE = ROOT / "examples" / "packs" / "lm_padding"
PACK = "lm_padding"
CAUSE = "tokenizer_padding_in_loss"
OOM = "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB"

BLOCK = re.compile(
    r"^<!--[ \t]*(?P<kind>file|run|break|copy)\b:?[ \t]*(?P<arg>[^\n]*?)[ \t]*-->[ \t]*\n"
    r"(?P<fence>`{3,})[^\n]*\n(?P<body>.*?)\n(?P=fence)[ \t]*$", re.S | re.M)
OK_LINE = re.compile(r"ok: (\d+) symptoms, (\d+) questions, (\d+) rules, (\d+) root causes, (\d+) fixes, "
                     r"(\d+) reference sheets")


@dataclass
class Run:
    where: str            # which block of the tutorial
    cwd: Path
    argv: list
    expected: list        # lines shown in the tutorial
    exit: int | None      # None: any failure (a broken step)
    env: dict = field(default_factory=dict)
    rc: int | None = None
    out: str = ""


def blocks(text: str):
    """(kind, arg, body, line) for every marked block, in document order."""
    out = []
    for m in BLOCK.finditer(text):
        out.append((m["kind"], m["arg"], m["body"], text.count("\n", 0, m.start()) + 1))
    return out


def commands(body: str):
    """A console block -> [(argv, expected output lines)]."""
    out = []
    for line in body.splitlines():
        if line.startswith("$ "):
            words = shlex.split(line[2:])
            assert words[0] == "traindx", f"the tutorial only runs traindx, not {line!r}"
            out.append((words[1:], []))
        elif out:
            out[-1][1].append(line)
    return out


def cli(args, cwd, env=None, timeout=600):
    e = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "PYTHONPATH")}
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "traindx.engine", *args], capture_output=True, text=True,
                          cwd=cwd, env=e, timeout=timeout)


def line_pattern(expected: str) -> re.Pattern:
    parts = [re.escape(p) for p in expected.split("...")]
    pat = ".*".join(parts)
    if expected.startswith("ok: "):
        pat = re.sub(r"\d+", r"\\d+", pat)   # the sizes in an ok: line grow with the core
    elif re.match(r"\d+ passed, ", expected):
        pat = re.sub(r"^\d+", r"\\d+", pat)   # so does the number of passing cases
    return re.compile(pat)


def missing_lines(expected: list, output: str) -> list:
    """Expected lines (minus ``...`` elisions) that do not appear in ``output`` in this order."""
    lines = output.splitlines()
    i = 0
    missing = []
    for exp in expected:
        if exp.strip() in ("", "..."):
            continue
        pat = line_pattern(exp)
        j = next((k for k in range(i, len(lines)) if pat.fullmatch(lines[k])), None)
        if j is None:
            missing.append(exp)
        else:
            i = j + 1
    return missing


def install(ws: Path, site: Path) -> None:
    """Install every ``*/pyproject.toml`` project of the workspace the way pip would lay it out:
    its packages on the path and a ``NAME-VERSION.dist-info`` with the entry points it declares."""
    if site.exists():
        shutil.rmtree(site)
    site.mkdir(parents=True)
    for project in sorted(ws.glob("*/pyproject.toml")):
        meta = toml(project.read_text(encoding="utf-8"))
        proj = meta["project"]
        for pkg in meta["tool"]["setuptools"]["packages"]:
            shutil.copytree(project.parent / pkg, site / pkg)
        dist = site / f"{proj['name'].replace('-', '_')}-{proj['version']}.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {proj['name']}\nVersion: {proj['version']}\n")
        lines = []
        for group, eps in proj.get("entry-points", {}).items():
            lines.append(f"[{group}]")
            lines += [f"{name} = {value}" for name, value in eps.items()]
        (dist / "entry_points.txt").write_text("\n".join(lines) + "\n")


def toml(text: str) -> dict:
    try:
        import tomllib
    except ImportError:  # Python 3.10: the tutorial's pyproject files only use tables of strings
        return _mini_toml(text)
    return tomllib.loads(text)


def _mini_toml(text: str) -> dict:
    out: dict = {}
    table = out
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            table = out
            for key in re.findall(r'"[^"]*"|[^.\[\]"]+', line.strip("[]")):
                table = table.setdefault(key.strip('"'), {})
            continue
        key, value = (s.strip() for s in line.split("=", 1))
        table[key.strip('"')] = json.loads(value)
    return out


@pytest.fixture(scope="module")
def replay(tmp_path_factory):
    """Follow the tutorial: write its files, snapshot them at every command, run all commands."""
    text = DOC.read_text(encoding="utf-8")
    base = tmp_path_factory.mktemp("tutorial")
    ws = base / "work"
    ws.mkdir()
    runs: list[Run] = []
    snaps = 0

    def snapshot(installed: bool) -> tuple[Path, dict]:
        nonlocal snaps
        snaps += 1
        snap = base / f"step{snaps:02d}"
        shutil.copytree(ws, snap)
        env = {}
        if installed:
            install(snap, base / f"site{snaps:02d}")
            env["PYTHONPATH"] = str(base / f"site{snaps:02d}")
        return snap, env

    found = blocks(text)
    assert found, "no marked blocks in the tutorial"
    for kind, arg, body, line in found:
        where = f"{DOC.name}:{line} ({kind}{': ' + arg if arg else ''})"
        if kind == "file":
            path = ws / arg
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(body + "\n", encoding="utf-8")
        elif kind == "copy":
            src, dst = (s.strip() for s in arg.split("->"))
            shutil.copytree(ws / src, ws / dst, dirs_exist_ok=True)
        elif kind == "run":
            opts = dict(o.split("=") if "=" in o else (o, True) for o in arg.split())
            snap, env = snapshot(bool(opts.get("installed")))
            for argv, expected in commands(body):
                runs.append(Run(where, snap, argv, expected, int(opts.get("exit", 0)), env))
        elif kind == "break":
            fname, old, new = (s.replace("\\n", "\n") for s in arg.split(" :: "))
            snap, env = snapshot(False)
            target = snap / fname
            content = target.read_text(encoding="utf-8")
            assert old in content, f"{where}: {old!r} is not in {fname} at this point of the tutorial"
            target.write_text(content.replace(old, new, 1), encoding="utf-8")
            for argv, expected in commands(body):
                runs.append(Run(where, snap, argv, expected, None, env))

    # beyond the text: the core alone; the installed packages' files without their distributions;
    # the installed packs' cases and a diagnosis by the installed pack alone
    core = base / "core"
    core.mkdir()
    installed = next(r for r in runs if r.env)
    complaint = next(r.argv for r in runs if "answers.yaml" in r.argv and "json" in r.argv)
    extras = {
        "core": Run("core", core, ["kb", "check"], [], 0),
        "bare": Run("bare", installed.cwd, ["kb", "check"], [], 0),
        "installed test": Run("installed", installed.cwd, ["kb", "test"], [], 0, installed.env),
        "installed diagnose": Run("installed", installed.cwd, [a for a in complaint if a not in ("--kb", PACK)],
                                  [], 0, installed.env),
    }

    def execute(r: Run) -> Run:
        p = cli(r.argv, r.cwd, r.env)
        r.rc, r.out = p.returncode, p.stdout + p.stderr
        return r

    with ThreadPoolExecutor(max_workers=max(2, min(8, (os.cpu_count() or 2) * 2))) as pool:
        list(pool.map(execute, runs + list(extras.values())))
    return {"ws": ws, "runs": runs, "base": base, "extras": extras}


def _find(replay, *words, installed=None) -> Run:
    for r in replay["runs"]:
        if all(w in r.argv for w in words) and (installed is None or bool(r.env) == installed):
            return r
    raise AssertionError(f"the tutorial runs no command with {words}")


# --------------------------------------------------------------------------- the text is true

def test_every_step_prints_what_the_tutorial_shows(replay):
    problems = []
    for r in replay["runs"]:
        cmd = "traindx " + " ".join(shlex.quote(a) for a in r.argv)
        if r.exit is None:
            if r.rc in (0, None):
                problems.append(f"{r.where}: `{cmd}` should fail on the broken file, exited 0")
        elif r.rc != r.exit:
            problems.append(f"{r.where}: `{cmd}` exited {r.rc}, the tutorial says {r.exit}:\n{r.out[-2000:]}")
        if r.rc not in (0, 1, 2):
            problems.append(f"{r.where}: `{cmd}` crashed (exit {r.rc}):\n{r.out[-2000:]}")
        missing = missing_lines(r.expected, r.out)
        if missing:
            problems.append(f"{r.where}: `{cmd}` did not print, in this order:\n  " + "\n  ".join(missing)
                            + f"\n--- it printed:\n{r.out[-3000:]}")
    assert not problems, "\n\n".join(problems)


def test_the_tutorial_covers_every_step(replay):
    runs = replay["runs"]
    verbs = {tuple(r.argv[:2]) if r.argv[0] == "kb" else (r.argv[0],) for r in runs}
    assert {("kb", "check"), ("kb", "test"), ("explain",), ("diagnose",)} <= verbs
    broken = [r for r in runs if r.exit is None or r.exit != 0]
    assert any(re.search(r"^traindx: lm_padding/[\w/]+\.yaml:\d+:\d+: ", r.out, re.M) for r in broken), \
        "at least one broken step shows a file:line:col error"
    written = {p.relative_to(replay["ws"]).as_posix() for p in replay["ws"].rglob("*") if p.is_file()}
    for name in ("pack.yaml", "facts.yaml", "questions.yaml", "root_causes.yaml", "fixes.yaml",
                 "rules/padding.yaml", "cases/lm_padding.yaml", "references/lm-padding.md"):
        assert f"{PACK}/{name}" in written


# --------------------------------------------------------------------------- the numbers

def _counts(out: str) -> tuple:
    m = OK_LINE.search(out)
    assert m, out
    return tuple(int(x) for x in m.groups())


@pytest.fixture(scope="module")
def core_counts(replay):
    r = replay["extras"]["core"]
    assert r.rc == 0, r.out
    return _counts(r.out)


# symptoms, questions, rules, root causes, fixes, reference sheets
PACK_ADDS = (0, 2, 6, 1, 1, 1)


def test_the_pack_adds_exactly_its_entities(replay, core_counts):
    checks = [r for r in replay["runs"] if r.argv == ["kb", "check", "--kb", PACK] and r.exit == 0]
    first, last = checks[0], checks[-1]
    assert _counts(first.out) == core_counts, "a manifest alone adds nothing"
    assert last.rc == 0 and "warning" not in last.out, last.out
    assert tuple(a - b for a, b in zip(_counts(last.out), core_counts)) == PACK_ADDS


def test_kb_test_runs_the_packs_cases(replay):
    tests = [r for r in replay["runs"] if r.argv == ["kb", "test", "--kb", PACK] and r.exit == 0]
    assert len(tests) == 2
    counts = [int(re.search(r"(\d+) passed, 0 failed", r.out).group(1)) for r in tests]
    # the rule file has 16 cases (counted with the core's); the end-to-end file adds 2
    assert counts[1] - counts[0] == 2


def test_diagnosis_json_names_the_packs_cause_and_fix(replay):
    r = _find(replay, "answers.yaml", "json")
    report = json.loads(r.out)
    assert report["status"] == "diagnosed"
    assert report["symptom"]["id"] == "plateau"
    top = report["root_causes"][0]
    assert top["id"] == CAUSE and top["category"] == "Loss and outputs"
    assert top["confidence"] >= 0.6
    assert report["fix"]["id"] == "mask_padding_in_loss" and "ignore_index=-100" in report["fix"]["code"]
    answered = {q["id"]: q["answer"] for q in report["questions"]}
    assert answered.get("padding_in_loss") == "no"
    # before the question was answered: undecided, and the pack's question is a gap
    before = _find(replay, "lm.yaml")
    assert "Not determined" in before.out and "Are padding positions left out of the loss" in before.out


def test_a_pack_id_clashing_with_the_core_is_an_error(replay):
    r = _find(replay, "--kb", "clash")
    assert r.rc == 2
    assert re.search(r"^traindx: clash/root_causes\.yaml:3:5: root_cause id 'lr_too_low' clashes with the core "
                     r"knowledge base \(first at \S+kb/root_causes\.yaml:\d+:\d+\)", r.out, re.M), r.out


def test_provides_makes_the_deferral_found(replay):
    reports = {}
    for r in replay["runs"]:
        if OOM in r.argv and "json" in r.argv:
            key = "installed" if r.env else ("--kb pteng" if "pteng" in r.argv else "core")
            reports[key] = json.loads(r.out)
    assert set(reports) == {"core", "--kb pteng", "installed"}
    assert reports["core"]["status"] == "out_of_scope"
    assert reports["core"]["deferral"]["to"] == "pytorch-engineering"
    assert reports["core"]["deferral"]["found"] is False
    assert reports["--kb pteng"]["deferral"]["found"] is True
    assert reports["installed"]["deferral"]["found"] is True


# --------------------------------------------------------------------------- installed packs

def test_installed_pack_is_found_through_its_entry_point(replay, core_counts):
    r = _find(replay, "check", installed=True)
    assert r.argv == ["kb", "check"] and r.rc == 0, r.out
    assert tuple(a - b for a, b in zip(_counts(r.out), core_counts)) == PACK_ADDS
    site = Path(r.env["PYTHONPATH"])
    eps = (site / "traindx_lm_padding-0.1.0.dist-info" / "entry_points.txt").read_text()
    assert "[traindx.kb_packs]" in eps and "lm_padding = lm_padding_pkg" in eps
    explained = _find(replay, "explain", CAUSE, installed=True)
    assert f"{os.sep}lm_padding_pkg{os.sep}root_causes.yaml:3:5" in explained.out
    # the same files without the fake distribution: nothing is found
    bare = replay["extras"]["bare"]
    assert bare.rc == 0 and _counts(bare.out) == core_counts, bare.out


def test_installed_pack_cases_pass_and_its_cause_is_diagnosed(replay):
    t = replay["extras"]["installed test"]
    assert t.rc == 0 and re.search(r"^\d+ passed, 0 failed$", t.out, re.M), t.out
    d = replay["extras"]["installed diagnose"]
    assert "--kb" not in d.argv and "--format" in d.argv
    assert d.rc == 0, d.out
    assert json.loads(d.out)["root_causes"][0]["id"] == CAUSE


# --------------------------------------------------------------------------- the example

def test_example_pack_is_the_tutorials_final_state(replay):
    final = replay["ws"] / PACK
    files = lambda d: {p.relative_to(d).as_posix(): p.read_bytes() for p in d.rglob("*")  # noqa: E731
                       if p.is_file() and "__pycache__" not in p.parts}
    got, want = files(EXAMPLE), files(final)
    assert sorted(got) == sorted(want), "examples/packs/lm_padding must hold exactly the tutorial's files"
    for name in want:
        assert got[name] == want[name], f"examples/packs/lm_padding/{name} differs from the tutorial's"
