"""Parameters a model only adds to its activations (read for ``init_weight_std``).

A learned position embedding, a class token or a per-position bias is written as
``self.pos = nn.Parameter(torch.randn(T, D))`` and read as ``x + self.pos`` (``self.pos[:T]``,
``self.pos.unsqueeze(0)``) or concatenated in front of the tokens (``torch.cat([self.cls.expand(B, -1, -1),
x], 1)``). Its rows are added, never summed over as a weight matrix's are, so its scale is not a fan-in
question: N(0, 1) is nn.Embedding's own start. A parameter any of whose reads is something else (a
matmul operand, an argument of ``F.linear``) is a weight matrix and stays one.
"""
import ast

from ..text import callee_name

#: calls that put tensors side by side (a class token in front of the tokens), not multiply them
_JOINS = {"cat", "concat", "concatenate", "stack"}


def _climb(node: ast.AST, parents: dict) -> tuple[ast.AST, ast.AST | None]:
    """From a read of the attribute, up through indexing and method calls on it (``[:T]``,
    ``.unsqueeze(0)``, ``.expand(B, -1)``) to the expression that uses the resulting tensor."""
    cur, up = node, parents.get(node)
    while True:
        if isinstance(up, ast.Subscript) and up.value is cur:
            cur, up = up, parents.get(up)
        elif isinstance(up, ast.Attribute) and up.value is cur and isinstance(parents.get(up), ast.Call) \
                and parents[up].func is up:
            cur = parents[up]
            up = parents.get(cur)
        else:
            return cur, up


def _added(cur: ast.AST, up: ast.AST | None, parents: dict) -> bool:
    """The tensor ``cur`` is an operand of ``+``/``-`` (or ``+=``), or an item joined by ``torch.cat``."""
    if isinstance(up, ast.BinOp) and isinstance(up.op, (ast.Add, ast.Sub)):
        return True
    if isinstance(up, ast.AugAssign) and isinstance(up.op, (ast.Add, ast.Sub)) and up.value is cur:
        return True
    if isinstance(up, (ast.List, ast.Tuple)):
        call = parents.get(up)
        return isinstance(call, ast.Call) and up in call.args and callee_name(call) in _JOINS
    return False


def added_only(tree: ast.AST, attr: str) -> bool:
    """Whether every read of ``self.<attr>`` in ``tree`` adds it to activations (or joins it to
    them) and there is at least one read."""
    parents = {c: p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
    reads = [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == attr
             and isinstance(n.value, ast.Name) and n.value.id == "self" and isinstance(n.ctx, ast.Load)]
    return bool(reads) and all(_added(*_climb(n, parents), parents) for n in reads)


def added_table(tree: ast.AST, target: str) -> bool:
    """``target`` (the text a drawn parameter is bound to, ``self.pos``) names a parameter the
    model only adds to its activations."""
    if not target.startswith("self.") or not target[len("self."):].isidentifier():
        return False
    return added_only(tree, target[len("self."):])
