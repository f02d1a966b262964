"""The script as the patch edits see it: its lines and syntax tree (:class:`_Src`), and the reading helpers
every edit shares (where a literal comes from, which loop holds the backward, how torch is imported)."""

from __future__ import annotations

import ast
import re

#: A learning rate below this is written in scientific notation in the patch (1e-3, not 0.001):
#: presentation, not knowledge.
_SCI_BELOW = 1e-2


_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


def _line_of(source: str) -> int | None:
    parts = source.split(":")
    if parts[0] != "code" or len(parts) < 3:
        return None
    try:
        return int(parts[-1])
    except ValueError:
        return None


def _fmt_lr(x: float) -> str:
    s = f"{x:.0e}" if x < _SCI_BELOW else f"{x:g}"
    return s.replace("e-0", "e-").replace("e+0", "e")


class _Src:
    def __init__(self, text: str):
        self.text = text
        self.lines = text.splitlines(keepends=True)
        self.tree = ast.parse(text)
        self.changes: list[str] = []
        # insertions are kept beside the original lines, so every edit addresses the script's own
        # line numbers whatever the edits before it inserted
        self.before: dict[int, list[str]] = {}
        self.after: dict[int, list[str]] = {}
        # numbers an edit would move where the script only reads them from a config file:
        # (key, move old -> new, what changes); made in that file when every number of the edit is there
        self.config_moves: list[tuple] = []
        self._parents: dict | None = None

    @property
    def parents(self) -> dict:
        """Each node of the syntax tree -> the node holding it (computed once)."""
        if self._parents is None:
            self._parents = _parents(self.tree)
        return self._parents

    def line(self, n: int) -> str:
        return self.lines[n - 1]

    def set_line(self, n: int, new: str, why: str) -> None:
        self.lines[n - 1] = new
        self.changes.append(why)

    def insert(self, n: int, new: str, why: str) -> None:
        """Insert ``new`` before line ``n`` (1-based)."""
        self.before.setdefault(n, []).append(new)
        self.changes.append(why)

    def insert_after(self, n: int, new: str, why: str) -> None:
        """Insert ``new`` after line ``n`` (1-based)."""
        if not self.lines[n - 1].endswith("\n"):
            self.lines[n - 1] += "\n"
        self.after.setdefault(n, []).append(new)
        self.changes.append(why)

    def result(self) -> str:
        out = []
        for i, line in enumerate(self.lines, start=1):
            out.extend(self.before.get(i, ()))
            out.append(line)
            out.extend(self.after.get(i, ()))
        return "".join(out)

    def col(self, n: int, byte_col: int) -> int:
        """The character index in line ``n`` of the AST's UTF-8 byte offset ``byte_col``."""
        return len(self.lines[n - 1].encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))

    def segment(self, node: ast.AST) -> str:
        return ast.get_source_segment(self.text, node) or ""

    def starts_its_line(self, stmt: ast.stmt) -> bool:
        """``stmt`` is the first thing on its line (not the body of a one-line ``if x: ...``)."""
        line = self.lines[stmt.lineno - 1]
        return self.col(stmt.lineno, stmt.col_offset) == len(line) - len(line.lstrip())


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


# ------------------------------------------------------------------ templates
def _fact_number(facts, fact) -> float | None:
    """The value of ``fact`` as a number (None when the session has none or it is no number)."""
    f = facts.get(fact)
    try:
        return float(f[0]) if f is not None else None
    except (TypeError, ValueError):
        return None


def _same_number(value, old: float) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and abs(float(value) - old) <= 1e-12 * max(1.0, abs(old))


def _keyword_on_line(src: _Src, n: int, keyword: str) -> ast.expr | None:
    """The value passed as ``keyword=`` by a call that spans line ``n`` (``lr=...`` of the optimizer)."""
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Call) and node.lineno <= n <= (node.end_lineno or node.lineno):
            for kw in node.keywords:
                if kw.arg == keyword:
                    return kw.value
    return None


#: how many names a literal is followed through (LR = BASE_LR; BASE_LR = 1e-3)
_ORIGIN_DEPTH = 4


def _literal_origin(src: _Src, expr: ast.expr | None, depth: int = _ORIGIN_DEPTH) -> ast.Constant | None:
    """The number literal ``expr`` takes its value from: itself; for a NAME, the literal of its last
    module-level assignment (``LR = 3e-4`` or ``LR, BATCH = 3e-4, 64``); for ``args.NAME``, the
    ``default=`` of the argparse option whose destination is NAME; for ``CFG["lr"]``, the entry of the
    dict literal CFG names. None where the value comes from
    elsewhere (a config file, a computation), so a patch is never guessed."""
    if expr is None or depth <= 0:
        return None
    if isinstance(expr, ast.Constant):
        return expr if isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool) else None
    if isinstance(expr, ast.Name):
        given = _parameter_given(src, expr)
        if given is not False:     # a parameter of the function reading it: what its calls pass
            return _literal_origin(src, given, depth - 1)
        found = None
        for node in src.tree.body:
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    found = _assigned(target, node.value, expr.id) or found
        return _literal_origin(src, found, depth - 1)
    if isinstance(expr, ast.Attribute):
        return _literal_origin(src, _argparse_default(src, expr.attr), depth - 1)
    if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant):   # CFG["lr"]
        holder = expr.value
        given = _parameter_given(src, holder) if isinstance(holder, ast.Name) else False
        if given is not False:     # cfg["lr"] in ``def main(cfg)``: the dict its calls pass
            holder = given if not isinstance(given, ast.Name) else _module_binding(src, given.id)
        elif isinstance(holder, ast.Name):
            holder = _module_binding(src, holder.id)
        return _literal_origin(src, _entry(holder, expr.slice.value), depth - 1)
    return None


#: the nodes that open a scope of names a parameter can belong to
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _module_binding(src: _Src, name: str) -> ast.expr | None:
    """The value of the last module-level assignment to ``name``."""
    return next((_assigned(t, n.value, name) for n in reversed(src.tree.body)
                 if isinstance(n, ast.Assign) for t in n.targets if _assigned(t, n.value, name)), None)


def _parameter_given(src: _Src, name: ast.Name):
    """What the script's calls pass for the parameter ``name`` reads, where ``name`` is a parameter of the
    plain function it is read in (``def mlp(d, p): ... nn.Dropout(p)``), never rebound there, and the
    function is only ever called by name: the one expression every call passes (``mlp(16, HP["p"])`` gives
    ``HP["p"]``), or its default where no call passes it. None where the calls pass different things or
    the function is handed on (a patch is never guessed); False where ``name`` is no such parameter."""
    parents = src.parents
    fn = _enclosing(parents, name, _SCOPES)
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    args = fn.args
    positional = [a.arg for a in args.posonlyargs + args.args]
    if name.id not in positional + [a.arg for a in args.kwonlyargs]:
        return False
    if isinstance(parents.get(fn), ast.ClassDef) or any(
            isinstance(n, ast.Name) and n.id == name.id and not isinstance(n.ctx, ast.Load) for n in ast.walk(fn)):
        return None
    defaults = dict(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    uses = [n for n in ast.walk(src.tree) if isinstance(n, ast.Name) and n.id == fn.name]
    calls = [c for c in ast.walk(src.tree) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
             and c.func.id == fn.name]
    if not calls or len(uses) != len(calls):
        return None
    i = positional.index(name.id) if name.id in positional else None
    given = []
    for c in calls:
        if any(isinstance(a, ast.Starred) for a in c.args) or any(k.arg is None for k in c.keywords):
            return None
        g = c.args[i] if i is not None and i < len(c.args) else next(
            (k.value for k in c.keywords if k.arg == name.id), defaults.get(name.id))
        if g is None:
            return None
        given.append(g)
    return given[0] if len({ast.dump(g) for g in given}) == 1 and all(
        _same_scope(parents, g, given[0]) for g in given) else None


def _same_scope(parents: dict, a: ast.AST, b: ast.AST) -> bool:
    """``a`` and ``b`` are read in the same function (or both at module level)."""
    return _enclosing(parents, a, _SCOPES) is _enclosing(parents, b, _SCOPES)


def _config_key(src: _Src, expr: ast.expr | None, depth: int = _ORIGIN_DEPTH) -> str | None:
    """The key a value is read from in a loaded config, where no literal in the script holds it:
    ``CFG["lr_step"]``, ``cfg.get("gamma", 0.1)``, ``CFG["optim"]["gamma"]`` (``optim.gamma``), or a
    module-level NAME bound once to one of those. Which file holds it is the caller's to check."""
    if expr is None or depth <= 0:
        return None
    if isinstance(expr, ast.Name):
        bound = [v for node in src.tree.body if isinstance(node, ast.Assign)
                 for t in node.targets if (v := _assigned(t, node.value, expr.id)) is not None]
        return _config_key(src, bound[0], depth - 1) if len(bound) == 1 else None
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "get" \
            and expr.args and isinstance(expr.args[0], ast.Constant) and isinstance(expr.args[0].value, str):
        holder, key = expr.func.value, expr.args[0].value
    elif isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) and isinstance(expr.slice.value, str):
        holder, key = expr.value, expr.slice.value
    else:
        return None
    if isinstance(holder, ast.Name):
        return key
    outer = _config_key(src, holder, depth - 1)
    return f"{outer}.{key}" if outer is not None else None


def _entry(holder: ast.expr | None, key) -> ast.expr | None:
    """The value a dict written in the script holds under ``key``: ``{"lr": 3e-4}`` or ``dict(lr=3e-4)``."""
    if isinstance(holder, ast.Dict):
        return next((v for k, v in zip(holder.keys, holder.values)
                     if isinstance(k, ast.Constant) and k.value == key), None)
    if isinstance(holder, ast.Call) and getattr(holder.func, "id", None) == "dict":
        return next((kw.value for kw in holder.keywords if kw.arg == key), None)
    return None


def _assigned(target: ast.expr, value: ast.expr, name: str) -> ast.expr | None:
    """What ``target = value`` gives ``name``, unpacking tuples element by element."""
    if isinstance(target, ast.Name):
        return value if target.id == name else None
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) \
            and len(target.elts) == len(value.elts):
        for t, v in zip(target.elts, value.elts):
            got = _assigned(t, v, name)
            if got is not None:
                return got
    return None


def _argparse_default(src: _Src, dest: str) -> ast.expr | None:
    """The ``default=`` of the ``add_argument`` call whose destination is ``dest`` (``--lr`` /
    ``--learning-rate`` / ``dest="lr"``)."""
    for node in ast.walk(src.tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"):
            continue
        kws = {kw.arg: kw.value for kw in node.keywords}
        names = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        longs = [x for x in names if x.startswith("--")] or names
        own = kws.get("dest")
        if not isinstance(own, ast.Constant):
            own = ast.Constant(longs[0].lstrip("-").replace("-", "_") if longs else None)
        if own.value == dest and "default" in kws:
            return kws["default"]
    return None


def _loops_with_backward(tree):
    """(loop, statement) for each statement holding ``.backward()`` directly in a for/while body."""
    out = []
    for loop in ast.walk(tree):
        if not isinstance(loop, (ast.For, ast.While)):
            continue
        for stmt in loop.body:
            for node in ast.walk(stmt):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "backward":
                    out.append((loop, stmt))
                    break
    return out


def _optimizer_text(node) -> str | None:
    """``opt`` of ``opt.step()``, ``self.optimizer`` of ``self.optimizer.step()``; None for a scheduler."""
    if isinstance(node, ast.Name):
        name = node.id
    elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        name = f"self.{node.attr}"
    else:
        return None
    return None if "sched" in name.lower() else name


def _step_receiver(scope) -> str | None:
    """The optimizer a loop or function steps: the first argument-less ``X.step()`` that is no scheduler's."""
    for node in ast.walk(scope):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "step" \
                and not node.args:
            name = _optimizer_text(node.func.value)
            if name is not None:
                return name
    return None


def _parents(tree) -> dict:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _enclosing(parents: dict, node: ast.AST, kinds: tuple):
    """The nearest node above ``node`` (not ``node`` itself) that is one of ``kinds``, or None."""
    node = parents.get(node)
    while node is not None and not isinstance(node, kinds):
        node = parents.get(node)
    return node


def _calls(node, method: str) -> bool:
    """Somewhere inside ``node`` a ``.method(...)`` is called (``zero_grad``, ``backward``, ``step``)."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == method
               for n in ast.walk(node))


def _located_lines(values) -> list[int]:
    out = []
    for v in values if isinstance(values, (list, tuple)) else [values]:
        out += [int(x) for x in re.findall(r"\(line (\d+)\)", str(v))]
    return out


def _replace_span(src: _Src, node: ast.AST, new: str) -> bool:
    """Replace one single-line node's source by ``new`` (False when the node spans lines)."""
    if node.lineno != node.end_lineno:
        return False
    n = node.lineno
    text = src.line(n)
    a, b = src.col(n, node.col_offset), src.col(n, node.end_col_offset)
    src.lines[n - 1] = text[:a] + new + text[b:]
    return True


def _params_arg(call: ast.Call) -> ast.expr | None:
    """The parameters an optimizer call is given: its first argument or ``params=``."""
    return call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "params"), None)


def _statement_at(src: _Src, n: int) -> tuple[ast.stmt, list] | None:
    """The simple statement starting line ``n`` and the chain of function definitions around it
    (innermost last)."""
    def walk(body, scopes):
        for st in body:
            if st.lineno == n and isinstance(st, (ast.Assign, ast.AnnAssign, ast.Expr)) and src.starts_its_line(st):
                return st, scopes
            inner = scopes + [st] if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)) else scopes
            for field in ("body", "orelse", "finalbody", "handlers"):
                found = walk(getattr(st, field, None) or [], inner)
                if found:
                    return found
        return None
    return walk(src.tree.body, [])


def _reindented(src: _Src, st: ast.stmt, indent: str) -> str | None:
    """The source lines of ``st`` moved to ``indent`` (None when a continuation line sits left of
    the statement's own indentation)."""
    own = _indent(src.line(st.lineno))
    out = []
    for i in range(st.lineno, st.end_lineno + 1):
        line = src.line(i)
        if line.strip() and not line.startswith(own):
            return None
        out.append(indent + line[len(own):] if line.strip() else line)
    return "".join(out).rstrip("\n") + "\n"


def _target_name(st: ast.stmt) -> str | None:
    t = st.targets[0] if isinstance(st, ast.Assign) and len(st.targets) == 1 else getattr(st, "target", None)
    return t.id if isinstance(t, ast.Name) else None


def _nn_prefix(src: _Src) -> str | None:
    """How the script can name torch.nn: ``nn`` (or its alias) when bound to it, else ``torch.nn``."""
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "torch.nn" and a.asname:
                    return a.asname
        elif isinstance(node, ast.ImportFrom) and node.module == "torch":
            for a in node.names:
                if a.name == "nn":
                    return a.asname or "nn"
    torch_bound = any(isinstance(n, ast.Import) and any(a.name.split(".")[0] == "torch" and not a.asname
                                                        for a in n.names) for n in ast.walk(src.tree))
    return "torch.nn" if torch_bound else None
