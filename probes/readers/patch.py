"""The fix as a patch: a unified diff against the user's script, for faults the code reader located.

Torch-free. ``traindx diagnose --script train.py --patch fix.diff`` writes it; traindx never edits
the user's files. Each template is keyed by a root cause and reads where the code reader found the
fault (a finding's source ``code:FILE:LINE``); it changes only what the fix needs:

=========================  ===========================================================================
root cause                 change
=========================  ===========================================================================
lr_too_low / lr_too_high   the learning-rate literal on the optimizer's line (or the constant it names)
                           raised / lowered to the optimizer family's usual value
missing_zero_grad          ``OPT.zero_grad()`` inserted before the ``backward()`` of the training loop
double_softmax             the softmax/sigmoid before a loss that applies its own removed
unshuffled_data            ``shuffle=True`` on the training DataLoader
train_eval_mode_mismatch   ``MODEL.train()`` as the first statement of the training loop
over_clipping              the clipping ``max_norm`` literal set to 1.0
=========================  ===========================================================================

:func:`make_patch` returns ``{"file", "diff", "cause", "changes"}`` or None when no template
applies or the located line does not read as expected (a patch is never guessed). The diff's paths
are the script's path relative to the current directory, so ``patch -p0 < fix.diff`` and
``git apply -p0 fix.diff`` both apply it there.
"""

from __future__ import annotations

import ast
import difflib
import os
import re
from collections.abc import Mapping

#: the usual learning rate of an optimizer family (what a too-low or too-high LR is set to)
TYPICAL_LR = {"sgd": 0.05, "adam": 1e-3, "adamw": 1e-3, "rmsprop": 1e-3, "radam": 1e-3, "nadam": 1e-3,
              "adagrad": 1e-2, "adadelta": 1.0, "adamax": 2e-3, "lbfgs": 1.0}
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
    s = f"{x:.0e}" if x < 1e-2 else f"{x:g}"
    return s.replace("e-0", "e-").replace("e+0", "e")


class _Src:
    def __init__(self, text: str):
        self.text = text
        self.lines = text.splitlines(keepends=True)
        self.tree = ast.parse(text)
        self.changes: list[str] = []

    def line(self, n: int) -> str:
        return self.lines[n - 1]

    def set_line(self, n: int, new: str, why: str) -> None:
        self.lines[n - 1] = new
        self.changes.append(why)

    def insert(self, n: int, new: str, why: str) -> None:
        """Insert ``new`` before line ``n`` (1-based)."""
        self.lines.insert(n - 1, new)
        self.changes.append(why)

    def result(self) -> str:
        return "".join(self.lines)


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


# ------------------------------------------------------------------ templates
def _lr(src: _Src, facts, cause) -> bool:
    f = facts.get("learning_rate")
    if f is None:
        return False
    n = _line_of(f[1])
    old = float(f[0])
    opt = str(facts.get("optimizer", ("", ""))[0] or "").lower()
    typical = TYPICAL_LR.get(opt)
    if n is None or typical is None or old <= 0:
        return False
    new = max(old * 10, typical) if cause == "lr_too_low" else min(old / 10, typical)
    text = src.line(n)
    m = re.search(r"\blr\s*=\s*(" + _NUM + r")", text)
    target_line = n
    if m is None:
        name = re.search(r"\blr\s*=\s*([A-Za-z_][A-Za-z0-9_.]*)", text)
        if name is None:
            return False
        # the constant the optimizer's lr= names: its (last) module-level assignment to a literal
        var = name.group(1).split(".")[-1]
        for node in src.tree.body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == var for t in node.targets) \
                    and isinstance(node.value, ast.Constant) and isinstance(node.value.value, (int, float)):
                target_line = node.lineno
        if target_line == n:
            return False
        text = src.line(target_line)
        m = re.search(r"=\s*(" + _NUM + r")", text)
        if m is None:
            return False
    try:
        if abs(float(m.group(1)) - old) > 1e-12 * max(1.0, abs(old)):
            return False
    except ValueError:
        return False
    new_text = text[: m.start(1)] + _fmt_lr(new) + text[m.end(1):]
    word = "raised" if cause == "lr_too_low" else "lowered"
    src.set_line(target_line, new_text, f"line {target_line}: learning rate {word} {m.group(1)} -> {_fmt_lr(new)}")
    return True


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


def _step_receiver(loop) -> str | None:
    for node in ast.walk(loop):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "step" \
                and not node.args and isinstance(node.func.value, ast.Name):
            name = node.func.value.id
            if "sched" not in name.lower():
                return name
    return None


def _zero_grad(src: _Src, facts, cause) -> bool:
    pairs = _loops_with_backward(src.tree)
    if not pairs:
        return False
    # the innermost loop holding the backward
    loop, stmt = min(pairs, key=lambda p: (p[0].end_lineno - p[0].lineno))
    opt = _step_receiver(loop)
    if opt is None:
        return False
    if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "zero_grad"
           for n in ast.walk(loop)):
        return False
    # at the top of the loop body: before this step's forward and backward
    at = loop.body[0].lineno
    src.insert(at, f"{_indent(src.line(at))}{opt}.zero_grad()\n",
               f"line {at}: {opt}.zero_grad() before each step's gradients are computed")
    return True


_SQUASH = ("softmax", "log_softmax", "sigmoid")


def _double_softmax(src: _Src, facts, cause) -> bool:
    f = facts.get("output_activation")
    if f is None or str(f[0]) not in ("softmax", "sigmoid", "log_softmax"):
        return False
    n = _line_of(f[1])
    if n is None:
        return False
    for node in ast.walk(src.tree):
        if not (isinstance(node, ast.Call) and node.lineno == n and node.end_lineno == n):
            continue
        fn = node.func
        name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
        text = src.line(n)
        if name in _SQUASH and node.args:
            # torch.softmax(x, dim=1) / F.sigmoid(x) -> x ; x.softmax(dim=1) -> x
            inner = ast.get_source_segment(src.text, node.args[0])
            new = text[: node.col_offset] + inner + text[node.end_col_offset:]
        elif name in _SQUASH and isinstance(fn, ast.Attribute) and not node.args:
            inner = ast.get_source_segment(src.text, fn.value)
            new = text[: node.col_offset] + inner + text[node.end_col_offset:]
        elif name in ("Softmax", "LogSoftmax", "Sigmoid"):
            # an nn.Softmax(...) layer: dropped from its Sequential (with its comma)
            rest = text[node.end_col_offset:]
            m = re.match(r"\s*,\s*", rest)
            if m:
                new = text[: node.col_offset] + rest[m.end():]
            else:
                before = text[: node.col_offset]
                m2 = re.search(r",\s*$", before)
                if not m2:
                    continue
                new = before[: m2.start()] + rest
            if not new.strip():
                new = ""
        else:
            continue
        src.set_line(n, new, f"line {n}: the {name} before the loss removed (the loss applies its own)")
        return True
    return False


def _shuffle(src: _Src, facts, cause) -> bool:
    f = facts.get("shuffle")
    if f is None or f[0] is not False:
        return False
    n = _line_of(f[1])
    if n is None:
        return False
    text = src.line(n)
    if re.search(r"\bshuffle\s*=\s*False\b", text):
        src.set_line(n, re.sub(r"\bshuffle\s*=\s*False\b", "shuffle=True", text, count=1),
                     f"line {n}: shuffle=True on the training DataLoader")
        return True
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Call) and node.lineno == n and node.end_lineno == n and \
                (getattr(node.func, "attr", None) or getattr(node.func, "id", None)) == "DataLoader" \
                and not any(k.arg == "shuffle" for k in node.keywords):
            close = node.end_col_offset - 1
            if text[close] != ")":
                return False
            src.set_line(n, text[:close] + ", shuffle=True" + text[close:],
                         f"line {n}: shuffle=True on the training DataLoader")
            return True
    return False


def _train_mode(src: _Src, facts, cause) -> bool:
    f = facts.get("model_mode_in_training")
    if f is None or f[0] != "eval":
        return False
    pairs = _loops_with_backward(src.tree)
    if not pairs:
        return False
    loop, _ = min(pairs, key=lambda p: (p[0].end_lineno - p[0].lineno))
    model = None
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "eval" \
                and isinstance(node.func.value, ast.Name) and not node.args:
            model = node.func.value.id
    if model is None:
        return False
    first = loop.body[0]
    at = first.lineno
    src.insert(at, f"{_indent(src.line(at))}{model}.train()\n",
               f"line {at}: {model}.train() at the start of each training step")
    return True


def _over_clipping(src: _Src, facts, cause) -> bool:
    f = facts.get("clip_max_norm")
    if f is None:
        return False
    n = _line_of(f[1])
    if n is None:
        return False
    text = src.line(n)
    m = re.search(r"(max_norm\s*=\s*)(" + _NUM + r")", text) or re.search(
        r"clip_grad_norm_?\([^,]+,\s*(" + _NUM + r")", text)
    if m is None:
        # max_norm=NAME: the module-level constant it names
        name = re.search(r"max_norm\s*=\s*([A-Za-z_]\w*)", text) or \
            re.search(r"clip_grad_norm_?\([^,]+,\s*([A-Za-z_]\w*)", text)
        if name is None:
            return False
        for node in src.tree.body:
            if isinstance(node, ast.Assign) \
                    and any(isinstance(t, ast.Name) and t.id == name.group(1) for t in node.targets) \
                    and isinstance(node.value, ast.Constant) and isinstance(node.value.value, (int, float)):
                n = node.lineno
        text = src.line(n)
        m = re.search(r"=\s*(" + _NUM + r")", text)
        if m is None or n == _line_of(f[1]):
            return False
    g = m.lastindex
    src.set_line(n, text[: m.start(g)] + "1.0" + text[m.end(g):],
                 f"line {n}: gradient clipping max_norm {m.group(g)} -> 1.0")
    return True


TEMPLATES = {"lr_too_low": _lr, "lr_too_high": _lr, "missing_zero_grad": _zero_grad, "double_softmax": _double_softmax,
             "unshuffled_data": _shuffle, "train_eval_mode_mismatch": _train_mode, "over_clipping": _over_clipping}


def make_patch(script: str, facts: Mapping[str, tuple], cause: str, *, display: str | None = None) -> dict | None:
    """A unified diff fixing ``cause`` in ``script``. ``facts``: fact -> (value, source) as the
    session holds them (the code reader's sources carry ``code:FILE:LINE``). Returns
    ``{"file", "diff", "cause", "changes"}`` or None."""
    fn = TEMPLATES.get(cause)
    if fn is None:
        return None
    try:
        with open(script, encoding="utf-8") as fh:
            text = fh.read()
        src = _Src(text)
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return None
    base = os.path.basename(script)
    # only facts the code reader located in this script
    mine = {k: v for k, v in facts.items() if isinstance(v, tuple) and len(v) == 2
            and str(v[1]).startswith("code:") and os.path.basename(str(v[1]).split(":")[1]) == base}
    if not fn(src, mine, cause):
        return None
    new = src.result()
    if new == text:
        return None
    path = display or _display(script)
    diff = "".join(difflib.unified_diff(text.splitlines(keepends=True), _ends(new).splitlines(keepends=True),
                                        fromfile=path, tofile=path))
    return {"file": path, "diff": diff, "cause": cause, "changes": src.changes}


def _ends(s: str) -> str:
    return s


def _display(script: str) -> str:
    rel = os.path.relpath(os.path.abspath(script))
    return script if rel.startswith("..") else rel
