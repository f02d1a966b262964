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
