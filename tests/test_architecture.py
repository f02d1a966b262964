"""The layers' import rules, read from the source with ``ast`` (no import side effects).

- the engine core (``engine/`` outside ``engine/frontends/``) imports neither probes nor torch;
- the torch-free readers (``probes/readers/``) never import torch;
- the knowledge base and schemas hold no Python beyond package markers.
"""
import ast
import pathlib
import re

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


#: Modules allowed at the top of probes/: the package marker, and the integrations' old import paths
#: (``traindx.probes.{lightning,hf,distributed}``, which docs/CONTRACT_EXTENSIONS.md promises stay
#: importable): each only points ``sys.modules`` at its module in probes/integrations/.
_PROBES_TOP = {"__init__.py", "lightning.py", "hf.py", "distributed.py"}


def test_every_probe_module_sits_in_its_layer():
    loose = sorted(p.name for p in (ROOT / "probes").glob("*.py") if p.name not in _PROBES_TOP)
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


# ------------------------------------------------------------------ numbers in code (issue 11)
#: Comparisons against a bare number that stay in engine/ or probes/, as "path::qualified name::value":
#: the reason it is structure (a format, an API's shape, arithmetic), not knowledge. A number that
#: decides a fact, a symptom, a cause or a confidence belongs in kb/parameters; one that does not
#: gets a named module constant saying why (a bound on work, a display choice). 0, 1, -1 and 2 are
#: allowed everywhere (emptiness, a sign, a pair). An entry no longer found fails below.
LITERAL_ALLOWED: dict[str, str] = {
    "engine/understand.py::_scaled::100":
        "a percent is out of 100: a number in (1, 100] given for a fraction is a percent",
    "engine/values.py::_as_number::100":
        "a percent is out of 100: a number in (1, 100] given for a 0..1 fact is a percent",
    "probes/live/experiments.py::_restore_peak_lr::0.5":
        "wording: the message says 'half' for exactly 0.5 (the parameter decides)",
    "probes/live/losses.py::_correct_count::0.5": "binary accuracy's definition: a 0/1 target is 1 above one half",
    "probes/live/losses.py::target_kind::1.5":
        "whole-number rows summing above 1 (so to 2 or more) hold several 1s: multi-hot",
    "probes/readers/code/facts/data.py::DataFacts.data_facts::3": "range(start, stop, step): the three-argument form",
    "probes/readers/code/facts/model.py::unpacked_env_step::3":
        "env.step's result unpacked: 4 names (Gym), 5 (Gymnasium's terminated and truncated), 3 (a "
        "home-made environment's state, reward, done): the API's shapes",
    "probes/readers/code/facts/model.py::unpacked_env_step::5":
        "env.step's result unpacked: 4 names (Gym), 5 (Gymnasium's terminated and truncated), 3 (a "
        "home-made environment's state, reward, done): the API's shapes",
    "probes/readers/code/torch_api/names.py::canonical::4": "torch.optim.<module>.<Name>: a qualified name's parts",
    "probes/readers/code/torch_api/scale.py::draw_scale::3":
        "logspace(start, end, steps, base): base is the fourth argument",
    "probes/readers/code/torch_api/tensors.py::TensorModel.tensor_power::0.5":
        "x.pow(0.5) is a square root: the exponent names the function",
    "probes/readers/console_lines.py::LineParser._more_metrics::3":
        "a total and at least two parts it sums: three values",
    "probes/readers/logs.py::LogData._finish::100.0":
        "a percent is out of 100: accuracies printed as percents are scaled",
    "probes/readers/patch/source.py::_line_of::3": "a code source is code:<file>:<line>: three parts",
    "probes/readers/runs.py::_wandb_records::3": "W&B's record kinds (the leveldb log format): 3 = a middle fragment",
    "probes/readers/runs.py::_wandb_records::4": "W&B's record kinds (the leveldb log format): 4 = the last fragment",
}
_STRUCTURAL = (0, 1, -1, 2)


def _bare_comparisons(path: pathlib.Path):
    """(qualified name of the enclosing function or class, value, line) of every comparison in one
    file with a bare int or float literal operand other than 0, 1, -1 and 2."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                visit(child, f"{prefix}{child.name}.")
                continue
            if isinstance(child, ast.Compare):
                for o in (child.left, *child.comparators):
                    sign = 1
                    if isinstance(o, ast.UnaryOp) and isinstance(o.op, ast.USub):
                        sign, o = -1, o.operand
                    if isinstance(o, ast.Constant) and isinstance(o.value, (int, float)) \
                            and not isinstance(o.value, bool) and sign * o.value not in _STRUCTURAL:
                        out.append((prefix.rstrip(".") or "<module>", sign * o.value, child.lineno))
            visit(child, prefix)
    visit(tree, "")
    return out


@pytest.mark.parametrize("path", SIZED, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_comparison_against_a_bare_number(path):
    rel = path.relative_to(ROOT).as_posix()
    bare = [(q, v, line) for q, v, line in _bare_comparisons(path) if f"{rel}::{q}::{v!r}" not in LITERAL_ALLOWED]
    assert not bare, (
        f"{rel}: " + "; ".join(f"line {line} ({q}) compares against {v!r}" for q, v, line in bare)
        + ". A number that decides a fact or a confidence goes to kb/parameters (code receives it); "
        "one that does not gets a named module constant saying why; structure goes in LITERAL_ALLOWED "
        "in tests/test_architecture.py with the reason")


def test_literal_allow_list_entries_are_still_needed_and_give_a_reason():
    for key, reason in LITERAL_ALLOWED.items():
        rel, name, value = key.split("::")
        assert reason.strip(), f"{key}: an allowed entry names its reason"
        found = {f"{q}::{v!r}" for q, v, _ in _bare_comparisons(ROOT / rel)}
        assert f"{name}::{value}" in found, f"{key} no longer compares against that number: remove it"


def test_the_literal_check_sees_a_bare_threshold(tmp_path):
    f = tmp_path / "probe.py"
    f.write_text("LIMIT = 3\n\nclass K:\n    def f(self, x):\n"
                 "        return x > 0.3 or x < LIMIT or x == -1 or x < -5\n")
    assert _bare_comparisons(f) == [("K.f", 0.3, 5), ("K.f", -5, 5)]


# ---------------------------------------------- numbers outside comparisons (issue 11, session 18)
#: The modules whose every number outside a comparison is triaged: the curve reader (and its pace
#: reader), the complaint reader, and the engine core that turns facts into confidences (inference,
#: confidence, rule conditions); since session 19 also the readers that decide facts from a log, a
#: console, a config or code (console, console_lines, logs, config, the code reader's fact modules)
#: and the report and the gatherer the front-ends share. A number there that decides a
#: fact or a confidence is a kb/parameters entry the code receives; one that does not is a named
#: module constant with a comment saying why (a bound on work, presentation, statistics, numeric
#: stability) or, where a name would only hide the arithmetic, an ARITHMETIC_ALLOWED entry.
TRIAGED = ["probes/readers/curves.py", "probes/readers/pace.py", "engine/understand.py", "engine/values.py",
           "engine/inference.py", "engine/confidence.py", "engine/conditions.py",
           "probes/readers/console.py", "probes/readers/console_lines.py", "probes/readers/logs.py",
           "probes/readers/config.py", "engine/report.py", "engine/frontends/gather.py",
           *sorted(str(p.relative_to(ROOT).as_posix()) for p in (ROOT / "probes/readers/code/facts").glob("*.py"))]

#: Numbers outside comparisons that stay where they are, as "path::qualified name::value": the reason
#: it is arithmetic or a format, not knowledge. An entry no longer found fails below.
ARITHMETIC_ALLOWED: dict[str, str] = {
    "engine/understand.py::_scaled::100.0": "a percent is out of 100: '61%' is 0.61",
    "engine/understand.py::_as_fraction::100.0": "a percent is out of 100: '61%' is 0.61",
    "engine/values.py::_as_number::100.0": "a percent is out of 100: '61%' is 0.61",
    "probes/readers/curves.py::_on_half_grid::10.0": "decimal printing: 10 ** -decimals is one printed unit",
    "probes/readers/curves.py::_loss_recurring::10": "decimal printing: 10 ** decimals counts printed units",
    "probes/readers/curves.py::_analyze_val::0.5": "the middle of the run: x0 + span / 2",
    "probes/readers/pace.py::kendall::5": "Kendall's S under no trend has variance n(n-1)(2n+5)/18: the formula",
    "probes/readers/pace.py::kendall::18": "Kendall's S under no trend has variance n(n-1)(2n+5)/18: the formula",
    "probes/readers/pace.py::kendall::0.5": "var ** 0.5 is the standard deviation",
    "probes/readers/logs.py::LogData._finish::0.01": "a percent is out of 100: an accuracy printed as 61 is 0.61",
    "probes/readers/console.py::_RunFacts._held_out::100.0": "a percent is out of 100: a test accuracy of 61 is 0.61",
    "probes/readers/console.py::_Transforms._complement::100.0": "a percent is out of 100: an error rate's unit",
    "probes/readers/console_lines.py::_value::100.0": "a percent is out of 100: '61%' is 0.61",
    "probes/readers/console_lines.py::_value::1000.0": "a unit: a time printed in ms is seconds / 1000",
    "probes/readers/console_lines.py::_half_unit::10.0": "decimal printing: half a printed unit, 0.5 * 10 ** -decimals",
    "probes/readers/console_lines.py::_half_unit::0.5": "decimal printing: half a printed unit, 0.5 * 10 ** -decimals",
    "probes/readers/console.py::exception_message::3": "the exception regex's groups: 3 is the message",
    "probes/readers/console.py::_Tracebacks._trace::3": "the exception regex's groups: 3 is the message",
    "probes/readers/console_lines.py::_axes::3": "the counter regexes' groups: 3 and 4 are a counter and its total",
    "probes/readers/console_lines.py::_axes::4": "the counter regexes' groups: 3 and 4 are a counter and its total",
    "probes/readers/console.py::_NameRoles._resolve::3":
        "a role reading is (role, rank, phrase, transform...): the fields after the phrase are kept",
    "probes/readers/console.py::_Overflows._scale_down::4":
        "an overflow run's first four fields (halvings, from, to, line) are what scale_collapse keeps",
    "probes/readers/console_lines.py::LineParser._pairs::3":
        "a running mean printed after a value is three tokens, '(' number ')': skipped together",
}
_CONSTANT_NAME = re.compile(r"_?[A-Z][A-Z0-9_]*")


def _named_with_a_reason(node: ast.stmt, lines: list[str]) -> bool:
    """A module-level ``NAME = <numbers>`` (upper-case names) with a comment on its line or above it,
    in the block of lines it stands in (the reason it is code, not knowledge)."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
    names = [n for t in targets for n in (t.elts if isinstance(t, ast.Tuple) else [t])]
    if not names or not all(isinstance(n, ast.Name) and _CONSTANT_NAME.fullmatch(n.id) for n in names):
        return False
    if "#" in lines[node.end_lineno - 1]:
        return True
    i = node.lineno - 2                    # up through the block it stands in (no blank line) to its comment
    while i >= 0 and lines[i].strip():
        if lines[i].lstrip().startswith("#"):
            return True
        i -= 1
    return False


def _bare_literals(path: pathlib.Path):
    """(qualified name, value, line) of every int or float literal outside a comparison in one file,
    other than 0, 1, -1 and 2, a constant subscript (``row[3]``: a field of a tuple) and a commented
    upper-case module constant. Comparisons are test_no_comparison_against_a_bare_number's."""
    source = path.read_text(encoding="utf-8")
    tree, lines = ast.parse(source, filename=str(path)), source.splitlines()
    out = []

    def number(node):
        sign = 1
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            sign, node = -1, node.operand
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return sign * node.value
        return None

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                visit(child, f"{prefix}{child.name}.")
                continue
            if isinstance(child, ast.Compare) or (node is tree and _named_with_a_reason(child, lines)):
                continue
            if isinstance(child, ast.Subscript) and number(child.slice) is not None:
                visit(child.value, prefix)
                continue
            v = number(child)
            if v is not None:
                if v not in _STRUCTURAL:
                    out.append((prefix.rstrip(".") or "<module>", v, child.lineno))
                continue
            visit(child, prefix)
    visit(tree, "")
    return out


@pytest.mark.parametrize("rel", TRIAGED)
def test_no_diagnostic_number_outside_a_comparison(rel):
    bare = [(q, v, line) for q, v, line in _bare_literals(ROOT / rel)
            if f"{rel}::{q}::{v!r}" not in ARITHMETIC_ALLOWED]
    assert not bare, (
        f"{rel}: " + "; ".join(f"line {line} ({q}) uses the bare number {v!r}" for q, v, line in bare)
        + ". A number that decides a fact or a confidence goes to kb/parameters (the code receives it); "
        "one that does not becomes an upper-case module constant with a comment saying why; arithmetic "
        "goes in ARITHMETIC_ALLOWED in tests/test_architecture.py with the reason")


def test_arithmetic_allow_list_entries_are_still_needed_and_give_a_reason():
    for key, reason in ARITHMETIC_ALLOWED.items():
        rel, name, value = key.split("::")
        assert rel in TRIAGED and reason.strip(), f"{key}: an allowed entry is in a triaged module and names its reason"
        found = {f"{q}::{v!r}" for q, v, _ in _bare_literals(ROOT / rel)}
        assert f"{name}::{value}" in found, f"{key} no longer uses that number: remove it"


def test_the_number_check_sees_a_multiplier_a_window_and_an_unexplained_constant(tmp_path):
    f = tmp_path / "reader.py"
    f.write_text("#: a bound on work, not knowledge\nDEPTH = 4\n\nWINDOW = 12\n\n"
                 "def f(xs, row, n=5):\n    if len(xs) > 3:\n        return row[3] * 1.5 + xs[-8:][0] + 2\n"
                 "    return max(3, len(xs) // 40) - 0.5\n")
    assert _bare_literals(f) == [("<module>", 12, 4), ("f", 5, 6), ("f", 1.5, 8), ("f", -8, 8),
                                 ("f", 3, 9), ("f", 40, 9), ("f", 0.5, 9)]
