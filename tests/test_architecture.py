"""The layers' import rules, read from the source with ``ast`` (no import side effects).

- the engine core (``engine/`` outside ``engine/frontends/``) imports neither probes nor torch;
- the torch-free readers (``probes/readers/``) never import torch;
- the knowledge base and schemas hold no Python beyond package markers.
"""
import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _imports(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif isinstance(node, ast.ImportFrom) and node.level >= 2 and path.parent.name == "engine":
            names.add("(outside engine)")
    return names


def _py(folder):
    return sorted((ROOT / folder).rglob("*.py"))


CORE = [p for p in _py("engine") if "frontends" not in p.parts]


@pytest.mark.parametrize("path", CORE, ids=lambda p: str(p.relative_to(ROOT)))
def test_engine_core_imports_neither_probes_nor_torch(path):
    bad = {m for m in _imports(path)
           if m == "torch" or m.startswith("torch.") or m.startswith("traindx.probes")}
    assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}: the engine core must stay torch- and probe-free"


@pytest.mark.parametrize("path", _py("probes/readers"), ids=lambda p: str(p.relative_to(ROOT)))
def test_readers_never_import_torch(path):
    bad = {m for m in _imports(path) if m == "torch" or m.startswith("torch.")
           or m.startswith("traindx.probes.live") or m.startswith("traindx.probes.integrations")}
    assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}: readers work on artifacts, without torch"


def test_kb_and_schemas_hold_data_not_code():
    for folder in ("kb", "schemas"):
        for p in _py(folder):
            body = [n for n in ast.parse(p.read_text()).body
                    if not (isinstance(n, ast.Expr) and isinstance(getattr(n, "value", None), ast.Constant))]
            assert not body, f"{p.relative_to(ROOT)} holds code; knowledge belongs in YAML"


def test_every_probe_module_sits_in_its_layer():
    loose = sorted(p.name for p in (ROOT / "probes").glob("*.py")
                   if p.name not in {"__init__.py", "lightning.py", "hf.py", "distributed.py"})
    assert not loose, f"probe modules outside live/, readers/, integrations/, runner/: {loose}"


# ---------------------------------------------------------------------------- size caps (issue 11)
MAX_FUNCTION_LINES = 80
MAX_CLASS_LINES = 500

#: Functions and classes allowed over the caps, as "path::qualified name": the reason why a split
#: would hurt. Empty: every one was split (docs/BENCHMARKS.md, "Issue 11: size caps"). An entry
#: needs a reason a reviewer can check; an entry that is no longer over its cap fails below.
SIZE_ALLOWED: dict[str, str] = {
    # "probes/example.py::Big": "a class body the framework demands in one piece, because ...",
}


def _oversized(path: pathlib.Path):
    """(qualified name, kind, lines) of every function over MAX_FUNCTION_LINES and class over
    MAX_CLASS_LINES in one file, nested ones included (a nested function counts on its own and
    towards its parent)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                lines = child.end_lineno - child.lineno + 1
                is_class = isinstance(child, ast.ClassDef)
                if lines > (MAX_CLASS_LINES if is_class else MAX_FUNCTION_LINES):
                    out.append((name, "class" if is_class else "function", lines))
                visit(child, name + ".")
            else:
                visit(child, prefix)
    visit(tree, "")
    return out


SIZED = [p for folder in ("engine", "probes") for p in _py(folder)]


@pytest.mark.parametrize("path", SIZED, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_function_or_class_over_the_size_cap(path):
    rel = path.relative_to(ROOT).as_posix()
    over = [(n, k, lines) for n, k, lines in _oversized(path) if f"{rel}::{n}" not in SIZE_ALLOWED]
    assert not over, (
        f"{rel}: " + "; ".join(f"{k} {n} is {lines} lines" for n, k, lines in over)
        + f" (caps: {MAX_FUNCTION_LINES} lines a function, {MAX_CLASS_LINES} a class). Split it along what "
        "it does, or add it to SIZE_ALLOWED in tests/test_architecture.py with the reason")


def test_size_allow_list_entries_are_still_needed_and_give_a_reason():
    for key, reason in SIZE_ALLOWED.items():
        rel, _, name = key.partition("::")
        assert reason.strip(), f"{key}: an allowed entry names its reason"
        names = {n for n, _, _ in _oversized(ROOT / rel)}
        assert name in names, f"{key} is no longer over its cap: remove it from SIZE_ALLOWED"


def test_the_size_check_sees_an_oversized_function(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    f = tmp_path / "big.py"
    f.write_text(f"class K:\n    def small(self):\n        return 1\n\ndef big():\n{body}\n    return 0\n")
    assert _oversized(f) == [("big", "function", MAX_FUNCTION_LINES + 2)]
