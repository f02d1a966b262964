"""An L2 penalty written into the loss by hand: ``loss = data_loss + 0.5 * reg * (W * W).sum()``.

Adding ``c * sum(w ** 2)`` over a weight to a loss puts ``2 * c * w`` into that weight's gradient: the
coupled weight decay an optimizer's ``weight_decay=2c`` adds (``0.5 * lam * ||w||^2`` is decay ``lam``).
Scripts that write their own update (``p -= lr * p.grad``) or port a MATLAB/NumPy recipe carry their
decay this way, where no optimizer's keyword shows it.

:func:`l2_penalty` finds a term of the loss that ``backward()`` is called on (followed through the names
it is built from) that is a product of numbers (literals, or names the script sets to one number once)
and one sum of squares of a parameter: ``w.pow(2).sum()``, ``(w ** 2).sum()``, ``(w * w).sum()``,
``torch.sum(w ** 2)``, ``w.norm() ** 2``, or a name that only ever holds such sums (``l2 = sum(p.pow(2).sum()
for p in model.parameters())``, ``l2 += torch.sum(p ** 2)`` in a loop over them). A parameter is a
``.weight``, a name bound by a loop over ``.parameters()``/``.named_parameters()``, or a name set to a tensor
made with ``requires_grad`` (``requires_grad_()``, ``requires_grad=True``, ``nn.Parameter``). A plain norm
(``torch.norm(w)``, not squared) is no weight decay and is not read.
"""

from __future__ import annotations

import ast

from ..text import snippet
from .common import numbers_bound_once, stated_number

#: how many rounds of "names this loss is built from" are followed back from ``backward()``; a bound on work
_MAX_NAME_HOPS = 8
#: the methods/functions that sum a tensor
_SUMS = ("sum",)
#: what the text of a kept penalty is cut to
_TEXT_CHARS = 60


def _param_names(tree: ast.AST) -> set[str]:
    """Names bound by loops over ``.parameters()``/``.named_parameters()`` and names set to a tensor that
    requires grad."""
    out: set[str] = set()
    for n in ast.walk(tree):
        loops = [(n.target, n.iter)] if isinstance(n, (ast.For, ast.comprehension)) else []
        for target, it in loops:
            text = snippet(it, _TEXT_CHARS)
            if ".parameters()" in text or ".named_parameters()" in text:
                names = [e for e in (target.elts if isinstance(target, ast.Tuple) else [target])
                         if isinstance(e, ast.Name)]
                if names:
                    out.add(names[-1].id)
        if isinstance(n, ast.Assign) and _requires_grad(n.value):
            out.update(t.id for t in n.targets if isinstance(t, ast.Name))
    return out


def _requires_grad(v: ast.AST) -> bool:
    for c in ast.walk(v):
        if isinstance(c, ast.Call):
            name = snippet(c.func, _TEXT_CHARS)
            if name.endswith(("requires_grad_", "Parameter")):
                return True
            if any(k.arg == "requires_grad" and isinstance(k.value, ast.Constant) and k.value.value is True
                   for k in c.keywords):
                return True
    return False


class _Reader:
    def __init__(self, tree: ast.AST):
        self.tree = tree
        self.numbers = numbers_bound_once(tree)
        self.params = _param_names(tree)
        self.values: dict[str, list[ast.AST]] = {}
        for n in ast.walk(tree):
            if isinstance(n, ast.Assign):
                for t in n.targets:
                    if isinstance(t, ast.Name):
                        self.values.setdefault(t.id, []).append(n.value)
            elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and isinstance(n.op, ast.Add):
                self.values.setdefault(n.target.id, []).append(n.value)
        # what each function or method of the script returns, by name (a name defined twice: neither)
        defs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
        once = {name for name in {d.name for d in defs} if sum(d.name == name for d in defs) == 1}
        self.returns: dict[str, list[ast.AST]] = {
            d.name: [r.value for r in ast.walk(d) if isinstance(r, ast.Return) and r.value is not None]
            for d in defs if d.name in once}

    def is_param(self, v: ast.AST) -> bool:
        if isinstance(v, ast.Attribute):
            return v.attr == "weight"
        if isinstance(v, ast.Subscript):
            return self.is_param(v.value)
        return isinstance(v, ast.Name) and v.id in self.params

    def squared(self, v: ast.AST) -> bool:
        """``v`` is w**2, w*w, w.pow(2), w.square() or torch.square(w) of a parameter w."""
        if isinstance(v, ast.BinOp) and isinstance(v.op, ast.Pow) and stated_number(v.right) == 2:
            return self.is_param(v.left)
        if isinstance(v, ast.BinOp) and isinstance(v.op, ast.Mult):
            return ast.dump(v.left) == ast.dump(v.right) and self.is_param(v.left)
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute):
            if v.func.attr == "pow" and len(v.args) == 1 and stated_number(v.args[0]) == 2:
                return self.is_param(v.func.value)
            if v.func.attr == "square":
                arg = v.args[0] if v.args else v.func.value
                return self.is_param(arg)
        return False

    def sum_of_squares(self, v: ast.AST, depth: int = 0) -> bool:
        """``v`` sums the squares of a parameter (see the module doc)."""
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr in _SUMS:
            if not v.args and self.squared(v.func.value):          # (w ** 2).sum()
                return True
            if len(v.args) == 1 and self.squared(v.args[0]):        # torch.sum(w ** 2)
                return True
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in _SUMS and v.args:
            arg = v.args[0]                                         # sum(<sum of squares> for p in ...)
            if isinstance(arg, ast.GeneratorExp | ast.ListComp):
                return self.sum_of_squares(arg.elt, depth)
        if isinstance(v, ast.BinOp) and isinstance(v.op, ast.Pow) and stated_number(v.right) == 2:
            b = v.left                                              # w.norm() ** 2, torch.norm(w) ** 2
            if isinstance(b, ast.Call) and snippet(b.func, _TEXT_CHARS).endswith("norm"):
                callee = snippet(b.func, _TEXT_CHARS)
                if callee.startswith("torch.") or isinstance(b.func, ast.Name):
                    arg = b.args[0] if b.args else None
                else:
                    arg = b.func.value
                return arg is not None and self.is_param(arg)
        if isinstance(v, ast.BinOp) and isinstance(v.op, ast.Add):
            return self.sum_of_squares(v.left, depth) and self.sum_of_squares(v.right, depth)
        if isinstance(v, ast.Name) and depth < _MAX_NAME_HOPS:      # l2 = ...; l2 += ... (0 to start)
            vals = [x for x in self.values.get(v.id, []) if stated_number(x) != 0]
            return bool(vals) and all(self.sum_of_squares(x, depth + 1) for x in vals)
        return False

    def coefficient(self, term: ast.AST) -> float | None:
        """The number a penalty term multiplies its sum of squares by, or None when ``term`` is no penalty.
        A sum over a generator of such terms (``sum(0.1 * (m.weight ** 2).sum() for m in layers)``) has
        the coefficient of its element."""
        if isinstance(term, ast.Call) and isinstance(term.func, ast.Name) and term.func.id in _SUMS \
                and len(term.args) == 1 and isinstance(term.args[0], ast.GeneratorExp | ast.ListComp):
            return self.coefficient(term.args[0].elt)
        factors: list[tuple[ast.AST, bool]] = []       # (factor, divides)

        def flatten(v, divides=False):
            if isinstance(v, ast.BinOp) and isinstance(v.op, ast.Mult):
                flatten(v.left, divides)
                flatten(v.right, divides)
            elif isinstance(v, ast.BinOp) and isinstance(v.op, ast.Div):
                flatten(v.left, divides)
                flatten(v.right, not divides)
            else:
                factors.append((v, divides))
        flatten(term)
        coef, squares = 1.0, 0
        for f, divides in factors:
            x = stated_number(f)
            if x is None and isinstance(f, ast.Name):
                x = self.numbers.get(f.id)
            if x is not None:
                if divides and x == 0:
                    return None
                coef = coef / x if divides else coef * x
            elif not divides and self.sum_of_squares(f):
                squares += 1
            else:
                return None
        return coef if squares == 1 and len(factors) > 1 and coef > 0 else None

    def terms(self, v: ast.AST) -> list[ast.AST]:
        """The added terms of ``v`` (``a + b + c``)."""
        if isinstance(v, ast.BinOp) and isinstance(v.op, ast.Add):
            return self.terms(v.left) + self.terms(v.right)
        return [v]

    def loss_expressions(self) -> list[ast.AST]:
        """The expressions the loss ``backward()`` is called on is built from (names followed back, and
        what a function or method of the script called without arguments returns: ``model.reg_loss()``)."""
        exprs, names, calls = [], set(), set()
        for n in ast.walk(self.tree):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "backward":
                exprs.append(n.func.value)
        for _ in range(_MAX_NAME_HOPS):
            new = {x.id for e in exprs for x in ast.walk(e) if isinstance(x, ast.Name)} - names
            called = {_callee(x) for e in exprs for x in ast.walk(e)
                      if isinstance(x, ast.Call) and not x.args and not x.keywords} - calls - {None}
            if not new and not called:
                break
            names |= new
            calls |= called
            exprs += [v for k in new for v in self.values.get(k, [])]
            exprs += [v for k in called for v in self.returns.get(k, [])]
        return exprs


def _callee(call: ast.Call) -> str | None:
    """The name a call calls: ``f()`` -> f, ``model.reg_loss()`` -> reg_loss."""
    f = call.func
    return f.id if isinstance(f, ast.Name) else (f.attr if isinstance(f, ast.Attribute) else None)


def l2_penalty(tree: ast.AST) -> tuple[float, int, str] | None:
    """(the coupled weight decay, line, the penalty's text) of the largest L2 penalty term of the loss, or None."""
    r = _Reader(tree)
    best = None
    for e in r.loss_expressions():
        for t in r.terms(e):
            c = r.coefficient(t)
            if c is not None and (best is None or 2 * c > best[0]):
                best = (2 * c, getattr(t, "lineno", 0), snippet(t, _TEXT_CHARS))
    return best
