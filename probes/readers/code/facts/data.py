"""``code:data``: shuffle, batch size and workers of the loader the training loop iterates (or the
``shuffle=`` a batching function of the script's own is called with); NaN written into the data;
rows put in sorted order (``data_sorted``); a dataset whose ``__getitem__`` waits or reads a file
per item (``item_fetch_blocking``)."""

from __future__ import annotations

import ast
import re

from ..text import HEAD_SNIPPET_CHARS, SHORT_SNIPPET_CHARS, SNIPPET_CHARS, callee_name, snippet
from ..values import BatchVal, Const, Event, IterVal, LoaderVal, Unknown
from .discarded_shuffle import discarded_shuffles
from .batch_order import generator_shuffle, permutation_in_reach, permuted_window, slices_by_multiple, window_orders
from .common import numbers_bound_once, stated_number
from .label_feature import label_feature_detail, train_features_from_labels
from .normalize_flag import switched_off_rescaling
from .split_index import held_out_detail, held_out_from_train_index
from .shuffled_alone import add_shuffled_alone


#: The evidence source this module produces (kb/sources.yaml names this module) and its facts.
SOURCE_ID = "code:data"
#: the decimals input_scale keeps (presentation: the scale is an order of magnitude)
_SCALE_DECIMALS = 3
FACTS = ("shuffle", "num_workers", "batch_size", "nan_written_to_data", "data_sorted", "item_fetch_blocking",
         "permuted_alone", "split_in_label_order", "std_division_unguarded", "input_scale", "inputs_normalized",
         "held_out_from_train_index", "train_features_from_labels", "rescaling_switched_off", "shuffle_discarded")


class DataFacts:
    """code:data: the loader the training loop iterates (shuffle, batch size, workers)."""

    def data_facts(self, step_loop: int | None, ref_ev: Event | None) -> None:
        self.nan_data_facts()
        self.std_division_facts()
        self.sorted_data_facts()
        self.class_block_facts()
        self.label_order_split_facts()
        self.held_out_split_facts()
        self.item_fetch_facts()
        self.permuted_alone_facts()
        self.input_scale_facts()
        add_switched_off_rescaling(self)
        add_discarded_shuffle(self)
        ld = None
        how = ""
        if step_loop is not None and ref_ev is not None:
            src = self.loop_source(ref_ev.src if ref_ev.src is not None else Unknown("?"))
            if isinstance(src, BatchVal) and isinstance(src.source, LoaderVal):
                src = src.source
            if isinstance(src, LoaderVal) and src.line:
                ld, how = src, "iterated by the training loop"
            elif isinstance(src, IterVal) and src.kind == "range" and len(src.args) == 3:
                lnode = self.loop_nodes.get(step_loop)
                step = src.args[2]
                if isinstance(step, Const) and isinstance(step.value, int) \
                        and self.slices_by(lnode):
                    self.add_finding("batch_size", step.value, lnode.lineno,
                                     f"manual batching: `{snippet(lnode.iter, HEAD_SNIPPET_CHARS)}` "
                                     f"(line {lnode.lineno})")
                    perm = self.permutes(lnode)
                    if perm:
                        self.add_finding("shuffle", True, perm, f"the data is permuted (line {perm}) "
                                                        f"before manual batching")
                    else:
                        self.add_finding("shuffle", False, lnode.lineno,
                                         f"manual batching by slicing at line {lnode.lineno} with no "
                                         f"permutation of the data")
                    return
            elif isinstance(src, IterVal) and src.kind == "range" and len(src.args) == 1 \
                    and slices_by_multiple(self.loop_nodes.get(step_loop)):
                lnode = self.loop_nodes.get(step_loop)
                size = _multiple_size(self.tree, lnode)
                if size is not None:
                    self.add_finding("batch_size", size[0], lnode.lineno,
                                     f"manual batching: `{size[1]}` slices of the data per batch number "
                                     f"(loop at line {lnode.lineno})")
                self.manual_batches_shuffle(lnode)
                return
        if ld is None:
            real = [x for x in self.loaders if x.line]
            named = [x for x in real if x.var and "train" in x.var.lower()]
            if named:
                ld, how = named[0], f"named {named[0].var}"
            elif len(real) == 1:
                ld, how = real[0], "the only DataLoader"
            elif real:
                self.add_unresolved(f"{len(real)} DataLoaders (lines "
                                    f"{', '.join(str(x.line) for x in real)}): could not tell which one "
                                    f"trains")
            elif step_loop is not None:
                self.batching_function_shuffle(self.loop_nodes.get(step_loop))
        if ld is None:
            return
        label = f"`{ld.text}` (line {ld.line}, {how})"
        if ld.shuffle is not None:
            self.add_finding("shuffle", ld.shuffle[0], ld.line, f"{ld.shuffle[1]} in {label}")
        else:
            self.add_unresolved(ld.why.get("shuffle") or ld.why.get("sampler") or
                                f"line {ld.line}: shuffling of `{ld.text}` is decided at run time")
        if ld.batch_size is not None:
            self.add_finding("batch_size", ld.batch_size[0], ld.line, f"{ld.batch_size[1]} in {label}")
        else:
            self.add_unresolved(ld.why.get("batch_size") or
                                f"line {ld.line}: batch size of `{ld.text}` is computed at run time")
        if ld.num_workers is not None:
            self.add_finding("num_workers", ld.num_workers[0], ld.line,
                             f"{ld.num_workers[1]} in {label}")
        else:
            self.add_unresolved(ld.why.get("num_workers") or
                                f"line {ld.line}: num_workers of `{ld.text}` is computed at run time")

    def batching_function_shuffle(self, loop: ast.AST | None) -> None:
        """shuffle from a batching function of the script's own the training loop iterates (``batches(x, y, 64,
        shuffle=False)``): the value passed, else the parameter's default, else :func:`generator_shuffle`; first,
        batches cut as windows of a permutation (:func:`permuted_window`) are shuffled."""
        if (perm := permuted_window(loop, _permutations(self.tree))) is not None:
            return self.add_finding("shuffle", True, perm, f"each batch is a window of the random order drawn at "
                                                           f"line {perm}")
        if not isinstance(loop, (ast.For, ast.AsyncFor)):
            return
        defs = {n.name: n for n in ast.walk(self.tree) if isinstance(n, ast.FunctionDef)}
        for call in (n for n in ast.walk(loop.iter) if isinstance(n, ast.Call)):
            kw = next((k for k in call.keywords if k.arg == "shuffle"), None)
            fn = defs.get(call.func.id) if isinstance(call.func, ast.Name) else None
            if kw is not None:
                if isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, bool):
                    self.add_finding("shuffle", kw.value.value, call.lineno,
                                     f"shuffle={kw.value.value} passed to `{snippet(call, SNIPPET_CHARS)}` "
                                     f"(line {call.lineno}), which the training loop iterates")
                return
            if fn is None:
                continue
            args = fn.args.posonlyargs + fn.args.args
            names = [a.arg for a in args]
            if "shuffle" not in names:
                continue
            i = names.index("shuffle")
            if i < len(call.args):
                v = call.args[i]
                if isinstance(v, ast.Constant) and isinstance(v.value, bool):
                    self.add_finding("shuffle", v.value, call.lineno,
                                     f"shuffle={v.value} passed to `{snippet(call, SNIPPET_CHARS)}` "
                                     f"(line {call.lineno}), which the training loop iterates")
                return
            defaults = fn.args.defaults
            j = i - (len(args) - len(defaults))
            if 0 <= j < len(defaults) and isinstance(defaults[j], ast.Constant) \
                    and isinstance(defaults[j].value, bool):
                self.add_finding("shuffle", defaults[j].value, call.lineno,
                                 f"`{snippet(call, SNIPPET_CHARS)}` (line {call.lineno}) leaves shuffle at "
                                 f"{defaults[j].value}, the default of `{fn.name}` (line {fn.lineno})")
            return
        generator_shuffle(self.tree, loop, self)

    def sorted_data_facts(self) -> None:
        """data_sorted: the script puts rows in sorted order — an ``argsort`` whose result indexes
        arrays (``order = torch.argsort(y); x, y = x[order], y[order]``), ``x[np.argsort(y)]``, or a
        DataFrame's ``sort_values`` — outside evaluation code (a function named for evaluation,
        metrics or ranking, or a ``no_grad`` block, sorts predictions, not data) and not cut to a
        top-k. Only ever true: a script that sorts nothing says nothing about the order of its data."""
        skip = self._evaluation_nodes()
        orders: dict[str, ast.AST] = {}
        for n in ast.walk(self.tree):
            if id(n) in skip:
                continue
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                    and _is_sort_call(n.value, "argsort"):
                orders[n.targets[0].id] = n
        orders = window_orders(self.tree, orders, skip)
        for n in ast.walk(self.tree):
            if id(n) in skip:
                continue
            if isinstance(n, ast.Subscript):
                idx = n.slice
                by_name = isinstance(idx, ast.Name) and idx.id in orders
                if by_name or _is_sort_call(idx, "argsort"):
                    first = orders[idx.id] if by_name else n
                    self.add_finding("data_sorted", True, first.lineno,
                                     f"`{snippet(first, SNIPPET_CHARS)}` (line {first.lineno}) puts the rows in sorted "
                                     f"order and `{snippet(n, SHORT_SNIPPET_CHARS)}` (line {n.lineno}) "
                                     "reorders the data by it")
                    return
            if isinstance(n, ast.Assign) and _is_sort_call(n.value, "sort_values"):
                self.add_finding("data_sorted", True, n.lineno,
                                 f"`{snippet(n, SNIPPET_CHARS)}` (line {n.lineno}) sorts the table's rows")
                return

    def class_block_facts(self) -> None:
        """data_sorted, also when the script builds its rows class by class: labels made as constant
        blocks (``ys.append(np.full(n, c))`` in a loop then concatenated, ``torch.cat([torch.zeros(n),
        torch.ones(n)])``, ``np.repeat(np.arange(k), n)``), so the rows sit in label order from the
        start. Not when the script mixes its rows anywhere (a split, a permutation, a shuffle call),
        nor for blocks made inside the training loop (a GAN's real/fake targets) or in evaluation code."""
        if any(isinstance(n, ast.Call) and _callee(n) in _MIXERS for n in ast.walk(self.tree)):
            return
        skip = self._evaluation_nodes()
        for loop in ast.walk(self.tree):
            if isinstance(loop, (ast.For, ast.While)) and any(
                    isinstance(c, ast.Call) and _callee(c) == "backward" for c in ast.walk(loop)):
                skip.update(id(c) for c in ast.walk(loop))
        hit = _class_blocks(self.tree, skip) or _class_loop_appends(self.tree, skip)
        if hit is not None:
            self.add_finding("data_sorted", True, hit.lineno,
                             f"`{snippet(hit, SNIPPET_CHARS)}` (line {hit.lineno}) builds the labels class by "
                             "class, as constant blocks, so the rows sit in label order")

    def label_order_split_facts(self) -> None:
        """split_in_label_order: labels built class by class are cut by one bound into a first and a
        second part (``y[:n]`` / ``y[n:]``, or ``idx[:n]`` / ``idx[n:]`` of a row-order index list that
        then indexes them) with nothing mixing them first, so the parts hold other classes. Only ever true."""
        node = _label_order_cut(self.tree)
        if node is not None:
            self.add_finding("split_in_label_order", True, node.lineno,
                             f"`{snippet(node, SNIPPET_CHARS)}` (line {node.lineno}) cuts rows whose labels were "
                             "built class by class, unmixed, into two parts that hold different classes")

    def held_out_split_facts(self) -> None:
        """held_out_from_train_index and train_features_from_labels: the held-out split is not held out."""
        words = self.params["logs.split_words"]
        held_out = held_out_from_train_index(self.tree, words)
        if held_out is not None:
            self.add_finding("held_out_from_train_index", True, held_out[0].lineno, held_out_detail(held_out))
        leak = train_features_from_labels(self.tree, words)
        if leak is not None:
            self.add_finding("train_features_from_labels", True, leak[0].lineno, label_feature_detail(leak))

    def _evaluation_nodes(self) -> set:
        """ids of the nodes inside evaluation code: functions named for evaluation/metrics/ranking
        and ``with torch.no_grad()`` / ``inference_mode()`` blocks."""
        out: set = set()
        for n in ast.walk(self.tree):
            inside = False
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inside = bool(_EVAL_NAME.search(n.name)) or any(
                    "no_grad" in snippet(d) or "inference_mode" in snippet(d) for d in n.decorator_list)
            elif isinstance(n, ast.With):
                inside = any("no_grad" in snippet(i.context_expr) or "inference_mode" in snippet(i.context_expr)
                             for i in n.items)
            if inside:
                out.update(id(c) for c in ast.walk(n))
        return out

    def permuted_alone_facts(self) -> None:
        """permuted_alone: a random permutation reorders one array of a features/labels pair and not
        its partner, so the rows no longer belong together. Four shapes: an array reordered in place
        (``x = x[perm]``, ``y = y[torch.randperm(n)]``) while the array it goes into a dataset, a
        ``zip`` or a split with is not reordered by that same permutation; a tuple assignment that
        reorders its arrays by different permutations (``X, y = X[randperm(n)], y[randperm(n)]``:
        two draws) or only some of them; a dataset built from a reordered array beside one that is
        not (``TensorDataset(x[perm], y)``); and a helper that draws a fresh permutation for each
        array it is given (``[t[torch.randperm(len(t))] for t in tensors]``) called with two or more.
        Only ever true."""
        perms = _permutations(self.tree)

        def key_of(v: ast.AST, name: str | None = None) -> str | None:
            """The permutation ``v`` reorders its array by (``name``'s, when given), else None."""
            return _reorder_key(v, perms, name)

        reordered: dict[str, list] = {}   # permutation key -> [(array, assignment)]
        for n in ast.walk(self.tree):
            if not (isinstance(n, ast.Assign) and len(n.targets) == 1):
                continue
            tgt = n.targets[0]
            if isinstance(tgt, ast.Name):
                key = key_of(n.value, tgt.id)
                if key:
                    reordered.setdefault(key, []).append((tgt.id, n))
            elif isinstance(tgt, ast.Tuple) and isinstance(n.value, ast.Tuple) and len(tgt.elts) == len(n.value.elts):
                what = ("reorders the arrays it assigns by different permutations"
                        if self._tuple_misaligned(tgt, n.value, key_of) else
                        "pairs an array reordered at random with one left in its order"
                        if _view_beside_reordered(n.value, key_of) else None)
                if what:
                    self._permuted_alone(n, what)
                    return
        for c in (c for c in ast.walk(self.tree) if isinstance(c, ast.Call) and _pairs_arrays(c)):
            keys = {key_of(a) for a in c.args if key_of(a) or _root_name(a)}
            if len(keys) > 1 and any(keys):
                self._permuted_alone(c, "puts a reordered array beside one that is not reordered with it")
                return
        call = self._fresh_permutation_per_array()
        if call is not None:
            self._permuted_alone(call, "hands its arrays to a helper that draws a new permutation for each")
        elif reordered:
            self._reordered_without_partner(reordered)
        self._sorted_without_partner()     # a finding made above stands (add_finding keeps the first)
        add_shuffled_alone(self)           # an array shuffled in place apart from its partner (shuffled_alone.py)

    def _sorted_without_partner(self) -> None:
        """``order = torch.argsort(t); t, e = t[order], e[order]`` (or ``order = torch.randperm(n)``)
        while ``x``, which came out of the same call as ``t`` and ``e`` (``x, t, e = make_data()``) or
        goes into the same dataset, keeps its order: reordering some arrays of a row-aligned group and
        not the others misaligns rows. Evaluation code, and a row-wise sort (``rand(b, n).argsort(1)``),
        sort something else."""
        skip = self._evaluation_nodes()
        moved: dict[str, dict] = {}      # order name -> {array: assignment}
        orders = {n.targets[0].id for n in ast.walk(self.tree) if id(n) not in skip and isinstance(n, ast.Assign)
                  and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                  and (_whole_sort(n.value) or _is_perm_call(n.value))}
        for n in (n for n in ast.walk(self.tree) if id(n) not in skip and isinstance(n, ast.Assign)):
            for t, v in _assigned_pairs(n):
                order = _order_reordering(v, t)
                if order in orders:
                    moved.setdefault(order, {})[t] = n
        groups = [(n, [_root_name(e) for e in n.targets[0].elts]) for n in ast.walk(self.tree)
                  if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Tuple)
                  and isinstance(n.value, ast.Call)]
        groups += [(c, [_root_name(a) for a in c.args]) for c in ast.walk(self.tree)
                   if isinstance(c, ast.Call) and _pairs_arrays(c)]
        for arrays in moved.values():
            # a group made in another function binds other variables that only share a name
            scopes = {id(self._scope_of(n)) for n in arrays.values()}
            for g in (set(filter(None, g)) for at, g in groups if id(self._scope_of(at)) in scopes):
                if not g & set(arrays):
                    continue
                a, node = next((a, n) for a, n in arrays.items() if a in g)
                left = sorted(g - set(arrays) - self._derived_after(a, node, self._scope_of(node)))
                if left:
                    self.add_finding("permuted_alone", True, node.lineno,
                                     f"`{snippet(node, SNIPPET_CHARS)}` (line {node.lineno}) "
                                     f"reorders {', '.join(sorted(arrays))} "
                                     f"but not {left[0]}, which came with them: the rows no longer match")
                    return

    def _reordered_without_partner(self, reordered: dict) -> None:
        """``x = x[perm]`` while an array that goes into one call (or comes out of one assignment)
        with ``x`` is not reordered by the same permutation. A reordering inside a function is
        judged inside it (its calls, tuple assignments and the tuple it returns): what its caller
        unpacks are the function's results, already paired there."""
        for arrays in reordered.values():
            moved = {a for a, _ in arrays}
            for a, node in arrays:
                scope = self._scope_of(node)
                # a partner built after the reordering from the reordered array (features drawn
                # from labels shuffled first) is made in the new order: it still matches
                left = sorted(self._partners(scope).get(a, set()) - moved - self._derived_after(a, node, scope))
                if left:
                    self.add_finding("permuted_alone", True, node.lineno,
                                     f"`{snippet(node, SNIPPET_CHARS)}` (line {node.lineno}) reorders {a} at random "
                                     f"but not {left[0]}, which it is paired with: the rows no longer "
                                     f"match")
                    return

    def _scope_of(self, node: ast.AST) -> ast.AST:
        """The innermost function holding ``node``, else the module."""
        return min((f for f in ast.walk(self.tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and f.lineno <= node.lineno <= (f.end_lineno or f.lineno)),
                   key=lambda f: (f.end_lineno or f.lineno) - f.lineno, default=self.tree)

    def _partners(self, scope: ast.AST) -> dict:
        """Arrays that go together in ``scope``: into one call, out of one tuple assignment, or
        (in a function) out of one returned tuple."""
        partners: dict[str, set] = {}
        groups = [[_root_name(a) for a in c.args] for c in ast.walk(scope) if isinstance(c, ast.Call)]
        groups += [[_root_name(e) for e in n.targets[0].elts] for n in ast.walk(scope)
                   if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Tuple)]
        if scope is not self.tree:
            groups += [[_root_name(e) for e in r.value.elts] for r in ast.walk(scope)
                       if isinstance(r, ast.Return) and isinstance(r.value, ast.Tuple)]
        for g in groups:
            names = [a for a in g if a]
            for a in names:
                partners.setdefault(a, set()).update(b for b in names if b != a)
        return partners

    @staticmethod
    def _derived_after(name: str, node: ast.AST, scope: ast.AST) -> set:
        """Names assigned, after ``node`` and in ``scope``, from ``name`` or from a name so derived
        (in line order: ``same = labels == ...; adj = f(same)``)."""
        later = sorted((n for n in ast.walk(scope) if isinstance(n, ast.Assign)
                        and n.lineno > (getattr(node, "end_lineno", None) or node.lineno)),
                       key=lambda n: (n.lineno, n.col_offset))
        derived = {name}
        for n in later:
            used = {x.id for x in ast.walk(n.value) if isinstance(x, ast.Name)}
            if used & derived:
                derived |= {x.id for t in n.targets for x in ast.walk(t) if isinstance(x, ast.Name)}
        return derived - {name}

    @staticmethod
    def _tuple_misaligned(tgt: ast.Tuple, val: ast.Tuple, key_of) -> bool:
        """``A, B = A[p], B[q]`` with p, q two permutations (two inline draws are two), or ``A, B =
        A[p], B``: a pair of arrays reassigned together, not reordered together."""
        keys = []
        for t, v in zip(tgt.elts, val.elts):
            if not isinstance(t, ast.Name):
                return False
            k = key_of(v, t.id)
            if k is None and not (isinstance(v, ast.Name) and v.id == t.id):
                return False
            keys.append(k)
        return any(keys) and len(set(keys)) > 1

    def _fresh_permutation_per_array(self) -> ast.Call | None:
        """A call, with two or more arrays, of a function that returns each of its ``*args``
        reordered by a permutation drawn inside the comprehension (a new one per array)."""
        for fn in (f for f in ast.walk(self.tree) if isinstance(f, ast.FunctionDef) and f.args.vararg):
            star = fn.args.vararg.arg
            per_array = any(
                isinstance(comp, (ast.ListComp, ast.GeneratorExp)) and len(comp.generators) == 1
                and isinstance(comp.generators[0].target, ast.Name)
                and isinstance(comp.generators[0].iter, ast.Name) and comp.generators[0].iter.id == star
                and isinstance(comp.elt, ast.Subscript) and isinstance(comp.elt.value, ast.Name)
                and comp.elt.value.id == comp.generators[0].target.id and _is_perm_call(comp.elt.slice)
                for comp in ast.walk(fn))
            if not per_array:
                continue
            for c in ast.walk(self.tree):
                if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == fn.name \
                        and sum(1 for a in c.args if _root_name(a)) >= 2:
                    return c
        return None

    def _permuted_alone(self, node: ast.AST, what: str) -> None:
        self.add_finding("permuted_alone", True, node.lineno,
                         f"`{snippet(node, SNIPPET_CHARS)}` (line {node.lineno}) {what}: features and labels no "
                         f"longer belong to the same rows")

    def item_fetch_facts(self) -> None:
        """item_fetch_blocking: a Dataset's ``__getitem__`` that waits (``time.sleep``) or reads a
        file, an image or a URL for every item — the work a DataLoader with ``num_workers=0`` does
        between steps, one item at a time. Only ever a non-empty list."""
        for cls in (n for n in ast.walk(self.tree) if isinstance(n, ast.ClassDef)):
            get = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__getitem__"), None)
            if get is None:
                continue
            found = []
            for c in (n for n in ast.walk(get) if isinstance(n, ast.Call)):
                name = snippet(c.func)
                last = name.rsplit(".", 1)[-1]
                if last in _BLOCKING_CALLS or name in _BLOCKING_NAMES:
                    found.append((c.lineno, "sleep" if last == "sleep" else name))
            if found:
                kinds = sorted({k for _, k in found})
                line = found[0][0]
                self.add_finding("item_fetch_blocking", kinds, line,
                                 f"`{cls.name}.__getitem__` calls {', '.join(f'`{k}`' for k in kinds)} for "
                                 f"every item (line {line})")
                return

    @staticmethod
    def slices_by(loop: ast.AST) -> bool:
        tgt = loop.target.id if isinstance(loop.target, ast.Name) else None
        if tgt is None:
            return False
        for n in ast.walk(loop):
            if isinstance(n, ast.Slice) and isinstance(n.lower, ast.Name) and n.lower.id == tgt:
                return True
        return False

    def manual_batches_shuffle(self, loop: ast.AST) -> None:
        """shuffle for batches sliced by batch number: a permutation in reach mixes them, else none."""
        perm = self.permutes(loop)
        if perm:
            self.add_finding("shuffle", True, perm, f"the data is permuted (line {perm}) before manual batching")
        else:
            self.add_finding("shuffle", False, loop.lineno,
                             f"manual batching by batch number at line {loop.lineno} "
                             f"(`{snippet(loop.iter, HEAD_SNIPPET_CHARS)}`) with no permutation of the data")

    def permutes(self, loop: ast.AST) -> int | None:
        """The line of a permutation that orders the batches of ``loop`` (:func:`permutation_in_reach`)."""
        srt = next((f for f in self.findings if f.fact == "data_sorted"), None)
        return permutation_in_reach(self.tree, loop, int(srt.source.rsplit(":", 1)[1]) if srt else None)

    def input_scale_facts(self) -> None:
        """input_scale: the inputs the script makes itself and hands to a ``TensorDataset`` or to the
        model, when their magnitude is followed from random draws and constants through simple
        arithmetic (``2048 + 900 * x``, ``x * units + units``); the largest such bound."""
        recs = self.records["input_scale"]
        if not recs:
            return
        bn = self.records["input_bn"]
        if bn:
            # the raw inputs reach a BatchNorm before any weight: it standardises each feature with
            # the batch's statistics, so their scale is not what the first weights see
            line, text = bn[0]
            self.add_finding("inputs_normalized", True, line,
                             f"`{text}` (line {line}) is applied to the raw inputs first: a BatchNorm "
                             f"standardises each feature before any weight sees it")
            return
        line, scale, text = max(recs, key=lambda r: r[1])
        self.add_finding("input_scale", round(scale, _SCALE_DECIMALS), line,
                         f"`{text}` (line {line}) gets inputs the script made on a scale of about "
                         f"{scale:.4g} (followed from its random draws and constants)")

    def nan_data_facts(self) -> None:
        """nan_written_to_data: the script stores NaN into an array (``x[mask] = float("nan")``,
        ``a[i] = np.nan``, or an array made with NaN where a mask holds: ``np.where(mask, np.nan, x)``)
        and nothing in it removes or masks NaN afterwards (nan_to_num, isnan, fillna ...). A script
        that cleans its NaN says nothing either way."""
        tree = self.tree
        if _cleans_nan(tree):
            return
        for n in ast.walk(tree):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(
                n, ast.AugAssign) else []
            if targets and (any(isinstance(t, ast.Subscript) for t in targets) and _is_nan(n.value)
                            or _where_nan(n.value)):
                self.add_finding("nan_written_to_data", True, n.lineno,
                                 f"`{snippet(n, SNIPPET_CHARS)}` (line {n.lineno}) stores NaN in the data, and "
                                 f"nothing in {self.basename} removes or masks it")
                return

    def std_division_facts(self) -> None:
        """std_division_unguarded: the script divides by a spread it computes from the data, a standard
        deviation (``(x - mean) / x.std(dim)``, or ``/ std`` with ``std = x.std(...)``) or a range
        (``(x - x.min(0)) / (x.max(0) - x.min(0))``, min-max scaling), with no epsilon, clamp or
        floor, and nothing in it removes NaN: any slice with no spread (a blank image, a constant
        feature) becomes 0/0 = NaN in the data."""
        tree = self.tree
        if _cleans_nan(tree):
            return
        stds = {}
        for n in ast.walk(tree):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
                stds.setdefault(n.targets[0].id, []).append(_is_std_call(n.value))
        for n in ast.walk(tree):
            if not (isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div)):
                continue
            r = n.right
            bare = _is_std_call(r) or (isinstance(r, ast.Name) and stds.get(r.id) and all(stds[r.id]))
            if bare:
                self.add_finding("std_division_unguarded", True, n.lineno,
                                 f"`{snippet(n, SNIPPET_CHARS)}` (line {n.lineno}) divides by a spread of the data "
                                 f"(a standard deviation, a max - min range, a peak or a norm) with no epsilon: "
                                 f"a slice with no spread becomes NaN")
                return


def _multiple_size(tree: ast.AST, loop: ast.For) -> tuple[int, str] | None:
    """The batch size of ``x[b * B:(b + 1) * B]`` slicing in ``loop`` (over ``b``): B, where it is a whole
    number written in the script or a name bound once to one (``minibatch_size = 1``), with the text."""
    tgt = loop.target.id
    bound = numbers_bound_once(tree)
    for n in ast.walk(loop):
        if isinstance(n, ast.Slice) and isinstance(n.lower, ast.BinOp) and isinstance(n.lower.op, ast.Mult):
            sides = (n.lower.left, n.lower.right)
            if not any(isinstance(v, ast.Name) and v.id == tgt for v in sides):
                continue
            other = next(v for v in sides if not (isinstance(v, ast.Name) and v.id == tgt))
            size = bound.get(other.id) if isinstance(other, ast.Name) else stated_number(other)
            if size is not None and size >= 1 and float(size).is_integer():
                return int(size), snippet(n.lower, SHORT_SNIPPET_CHARS)
    return None


def _cleans_nan(tree: ast.AST) -> bool:
    """Whether the script names a NaN cleaner (nan_to_num, isnan, fillna ...) anywhere but inside a
    ``print(...)``, or inside the mask of a statistic (``p[~torch.isnan(p)].mean()``): a share of finite
    values printed as a report measures NaN, and a mean over the finite values imputes nothing until the
    script writes it back, so neither removes any."""
    measured = {id(n) for c in ast.walk(tree) if isinstance(c, ast.Call) and (
                    _callee(c) == "print" or _statistic_of_a_selection(c) or _resizes(c))
                for n in ast.walk(c)}
    return any(id(n) not in measured and (isinstance(n, ast.Attribute) and n.attr in _NAN_CLEANERS
                                          or isinstance(n, ast.Name) and n.id in _NAN_CLEANERS)
               for n in ast.walk(tree))


def _resizes(c: ast.Call) -> bool:
    """``F.interpolate(img, size=...)``: torch's resampling of an image or a signal, which removes no
    NaN (pandas' ``df.interpolate()`` fills them; it takes no size or scale factor, nor a tensor first)."""
    return _callee(c) == "interpolate" and (
        any(k.arg in _RESIZE_KEYWORDS for k in c.keywords)
        or isinstance(c.func, ast.Attribute) and ast.unparse(c.func.value) in _TORCH_FUNCTIONAL)


def _statistic_of_a_selection(c: ast.Call) -> bool:
    """``x[mask].mean()`` (any of :data:`_STATISTICS` over a masked selection)."""
    return isinstance(c.func, ast.Attribute) and c.func.attr in _STATISTICS and isinstance(c.func.value, ast.Subscript)


def _is_std_call(v: ast.AST) -> bool:
    """A spread computed from the data itself (not ``x.std() + 1e-8``, not a clamp): a standard
    deviation (``x.std(...)``, ``torch.std(x)``, ``np.std(x)``) or a range (``x.max(0) - x.min(0)``,
    ``np.ptp(x)``, ``x.ptp()``: min-max scaling), zero on a slice whose values are all alike. A
    standard deviation written out is one too: the square root of a variance (``np.sqrt(x.var(0))``)
    or of a mean square less a squared mean (``np.sqrt(sq_sum / n - mean * mean)``, which can even
    come out negative under the root by rounding). A peak or a norm of the data is one too
    (``x / np.abs(x).max(1, keepdims=True)``, peak normalisation; ``x / x.norm(dim=1, keepdim=True)``):
    zero on a silent clip, a blank image or an all-zero row."""
    if _is_peak_or_norm(v):
        return True
    if isinstance(v, ast.BinOp) and isinstance(v.op, ast.Sub):
        return _callee_name(v.left) in _MAXIMA and _callee_name(v.right) in _MINIMA
    if _callee_name(v) == "sqrt" and len(v.args) == 1:
        inner = v.args[0]
        return _callee_name(inner) in _VARIANCES or (
            isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Sub) and _squared(inner.right))
    return _callee_name(v) in _SPREADS


def _is_peak_or_norm(v: ast.AST) -> bool:
    """``np.abs(x).max(...)``, ``x.abs().max()``, ``np.max(np.abs(x))``, ``torch.amax(x.abs())``: the
    largest magnitude of the data; ``x.norm(...)``, ``np.linalg.norm(x, ...)``: its length."""
    name = _callee_name(v)
    if name in _NORMS:
        return True
    if name not in _MAXIMA:
        return False
    inner = v.func.value if isinstance(v.func, ast.Attribute) and isinstance(v.func.value, ast.Call) else (
        v.args[0] if v.args else None)
    return _callee_name(inner) in _MAGNITUDES


def _squared(v: ast.AST) -> bool:
    """``m * m`` or ``m ** 2`` (the same expression twice): a squared mean."""
    if isinstance(v, ast.BinOp) and isinstance(v.op, ast.Mult):
        return ast.dump(v.left) == ast.dump(v.right)
    return isinstance(v, ast.BinOp) and isinstance(v.op, ast.Pow) and isinstance(v.right, ast.Constant) \
        and v.right.value == 2


def _callee_name(v: ast.AST) -> str:
    """The last name of a call's callee (``x.max(axis=0)`` -> ``max``), or "" for anything else."""
    return _callee(v) if isinstance(v, ast.Call) else ""


#: reductions a script computes a statistic of its data with (imputation and standardisation constants)
_STATISTICS = {"mean", "std", "var", "median", "sum", "min", "max", "quantile"}
#: calls that compute a spread of their data; a range is written as a maximum minus a minimum
_SPREADS = {"std", "ptp"}
#: calls that compute a variance: its square root is a standard deviation
_VARIANCES = {"var"}
_MAXIMA = {"max", "amax", "nanmax"}
_MINIMA = {"min", "amin", "nanmin"}
#: calls that take the magnitude of each value: their maximum is the data's peak
_MAGNITUDES = {"abs", "absolute", "fabs"}
#: calls that compute a vector's length
_NORMS = {"norm"}


#: names of evaluation code, where a sort orders predictions rather than data
_EVAL_NAME = re.compile(r"eval|valid|test|metric|score|predict|rank|top_?k|recall|precision|ndcg|map_at|"
                        r"au(?:c|roc|prc)|roc_?auc|accuracy|f1",
                        re.IGNORECASE)

#: calls in a ``__getitem__`` that wait or read storage for every item: by their last name, and
#: (for names too common to match alone, like ``open`` and ``load``) whole
_BLOCKING_CALLS = {"sleep", "imread", "imdecode", "urlopen", "urlretrieve", "read_csv", "read_parquet",
                   "loadmat", "load_image", "decode_image", "read_image", "read_file"}
_BLOCKING_NAMES = {"open", "io.open", "Image.open", "PIL.Image.open", "np.load", "numpy.load",
                   "torch.load", "np.fromfile", "numpy.fromfile", "requests.get"}


#: calls that put rows in a random order or split them at random: after one, the order built is gone
_MIXERS = {"random_split", "train_test_split", "randperm", "permutation", "shuffle", "sample",
           "KFold", "StratifiedKFold", "ShuffleSplit", "StratifiedShuffleSplit", "GroupKFold"}
#: label blocks added end to end are a class-by-class order from two of them on (one block is one class)
_MIN_BLOCKS = 2
#: calls that join arrays end to end
_JOINERS = {"cat", "concatenate", "concat", "hstack", "vstack"}


_callee = callee_name


def _constant_block(v: ast.AST) -> bool:
    """A block of one label: ``np.full(n, c)``, ``torch.zeros(n)``, ``np.ones(n) * c``, ``[c] * n``."""
    if isinstance(v, ast.BinOp) and isinstance(v.op, ast.Mult):
        return _constant_block(v.left) or _constant_block(v.right) or (
            isinstance(v.left, ast.List) and len(v.left.elts) == 1)
    if not isinstance(v, ast.Call):
        return False
    name = _callee(v)
    shape = v.args[0] if v.args else None
    one_axis = not isinstance(shape, (ast.Tuple, ast.List)) or len(shape.elts) == 1
    return one_axis and ((name == "full" and len(v.args) == 2) or (name in ("zeros", "ones") and len(v.args) == 1))


def _class_blocks(tree: ast.AST, skip: set) -> ast.AST | None:
    """The first node that builds labels as blocks: a constant block appended in a loop to a list
    that is then joined, a joined list of two or more blocks, or ``repeat(arange(k), n)`` given to a
    dataset as its labels."""
    joined = {a.id for n in ast.walk(tree) if isinstance(n, ast.Call) and _callee(n) in _JOINERS
              for a in n.args[:1] if isinstance(a, ast.Name)}
    # a repeated range is labels only where it is a dataset's second array (a grid of coordinates is not)
    labels = {a.id for n in ast.walk(tree) if isinstance(n, ast.Call) and _callee(n).endswith("Dataset")
              for a in n.args[1:] if isinstance(a, ast.Name)}
    # ... or the second of the pair a data-making function returns (``return x, y``)
    labels |= {n.value.elts[1].id for n in ast.walk(tree) if isinstance(n, ast.Return)
               and isinstance(n.value, ast.Tuple) and len(n.value.elts) == 2 and isinstance(n.value.elts[1], ast.Name)}
    for n in ast.walk(tree):
        if id(n) in skip:
            continue
        if isinstance(n, (ast.For, ast.While)):
            for c in ast.walk(n):
                if isinstance(c, ast.Call) and _callee(c) == "append" and isinstance(c.func, ast.Attribute) \
                        and isinstance(c.func.value, ast.Name) and c.func.value.id in joined \
                        and len(c.args) == 1 and _constant_block(c.args[0]):
                    return c
        if isinstance(n, ast.Call) and _callee(n) in _JOINERS and n.args \
                and isinstance(n.args[0], (ast.List, ast.Tuple)) and len(n.args[0].elts) >= 2 \
                and all(_constant_block(e) for e in n.args[0].elts):
            return n
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                and n.targets[0].id in labels and isinstance(n.value, ast.Call) and _repeats_each_label(n.value):
            return n
    return None


def _class_loop_appends(tree: ast.AST, skip: set) -> ast.AST | None:
    """The first ``labels.append(c)`` inside an inner loop of ``for c in range(k)``: every class's rows
    are made one after another (``for c in range(k): for _ in range(n): ...; ys.append(c)``), so the
    labels come out as a block per class."""
    for outer in ast.walk(tree):
        if id(outer) in skip or not (isinstance(outer, ast.For) and isinstance(outer.target, ast.Name)
                                     and isinstance(outer.iter, ast.Call) and _callee(outer.iter) == "range"):
            continue
        var = outer.target.id
        for inner in ast.walk(outer):
            if inner is outer or not isinstance(inner, (ast.For, ast.While)):
                continue
            for c in ast.walk(inner):
                if isinstance(c, ast.Call) and _callee(c) == "append" and isinstance(c.func, ast.Attribute) \
                        and len(c.args) == 1 and isinstance(c.args[0], ast.Name) and c.args[0].id == var:
                    return c
    return None


def _label_order_cut(tree: ast.AST) -> ast.AST | None:
    """The cut of :meth:`DataFacts.label_order_split_facts`: the first node cutting class-ordered rows."""
    ordered = _label_block_names(tree)
    if not ordered:
        return None
    # a converted copy (``yt = torch.tensor(y)``) keeps the rows in their label order
    ordered |= {name for n in ast.walk(tree) if isinstance(n, ast.Assign) for name, v in _assigned_pairs(n)
                if any(_keeps_row_order(v, base) for base in ordered)}
    rows = {name for n in ast.walk(tree) if isinstance(n, ast.Assign)
            for name, v in _assigned_pairs(n) if _is_index_range(v)}
    mixed = {_root_name(c.args[0]) for c in ast.walk(tree)
             if isinstance(c, ast.Call) and _callee(c) in _MIXERS and c.args}
    # an array assigned again (``y = y[perm]``) may have been reordered since it was built; a conversion
    # of itself (``y = torch.tensor(y)``, ``y = y.astype(int)``) keeps its rows where they were
    assigned = [name for n in ast.walk(tree) if isinstance(n, ast.Assign) for name, v in _assigned_pairs(n)
                if not _keeps_row_order(v, name)]
    mixed |= {name for name in set(assigned) if assigned.count(name) > 1}
    used = [n.slice for n in ast.walk(tree) if isinstance(n, ast.Subscript)
            and isinstance(n.value, ast.Name) and n.value.id in ordered]
    for base, node in _cut_pairs(tree, (ordered | rows) - mixed):
        if base in ordered or any(_derived_from(tree, idx, base) or any(
                isinstance(c, ast.Name) and c.id == base for c in ast.walk(idx)) for idx in used):
            return node
    return None


def _label_block_names(tree: ast.AST) -> set:
    """Names assigned labels built class by class: a repeated range (``arange(k).repeat_interleave(n)``,
    ``np.repeat(np.arange(k), n)``) or a join of constant blocks (``cat([zeros(n), ones(n)])``, or of a
    comprehension of ``full(n, c)``)."""
    out: set = set()
    for n in ast.walk(tree):
        if not isinstance(n, ast.Assign):
            continue
        for name, v in _assigned_pairs(n):
            if _added_blocks(v):
                out.add(name)
                continue
            if not isinstance(v, ast.Call):
                continue
            if _repeats_each_label(v):
                out.add(name)
            elif _callee(v) in _JOINERS and v.args:
                parts = v.args[0]
                if isinstance(parts, (ast.List, ast.Tuple)) and len(parts.elts) >= 2 \
                        and all(_constant_block(e) for e in parts.elts):
                    out.add(name)
                elif isinstance(parts, (ast.ListComp, ast.GeneratorExp)) and _constant_block(parts.elt):
                    out.add(name)
    return out


def _added_blocks(v: ast.AST) -> bool:
    """Labels as lists of one label each, added end to end: ``[0] * n + [1] * m``, also inside a
    conversion (``np.array([0] * 10 + [1] * 10, dtype=np.int64)``, ``torch.tensor(...)``)."""
    if isinstance(v, ast.Call) and _callee(v) in _ROW_ORDER_KEEPERS and v.args:
        v = v.args[0]
    parts = []
    while isinstance(v, ast.BinOp) and isinstance(v.op, ast.Add):
        parts.append(v.right)
        v = v.left
    parts.append(v)
    return len(parts) >= _MIN_BLOCKS and all(
        isinstance(p, ast.BinOp) and isinstance(p.op, ast.Mult) and any(
            isinstance(e, ast.List) and len(e.elts) == 1 and isinstance(e.elts[0], ast.Constant)
            for e in (p.left, p.right)) for p in parts)


def _is_index_range(v: ast.AST) -> bool:
    """An index list in row order: ``list(range(n))``, ``range(n)``, ``np.arange(n)``, ``torch.arange(n)``."""
    if isinstance(v, ast.Call) and _callee(v) == "list" and len(v.args) == 1:
        v = v.args[0]
    return isinstance(v, ast.Call) and _callee(v) in ("range", "arange") and len(v.args) == 1


def _cut_pairs(tree: ast.AST, names: set) -> list:
    """``(name, node)`` for each name cut by one bound into a head and a tail (``a[:k]`` and ``a[k:]``)."""
    heads: dict = {}
    tails: dict = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id in names \
                and isinstance(n.slice, ast.Slice) and n.slice.step is None:
            lo, hi = n.slice.lower, n.slice.upper
            if lo is None and hi is not None:
                heads.setdefault((n.value.id, snippet(hi)), n)
            elif hi is None and lo is not None:
                tails.setdefault((n.value.id, snippet(lo)), n)
    pairs = [(key[0], heads[key]) for key in heads if key in tails]
    # a head by a count and a tail by a count from the end (``a[:10]``, ``a[-10:]``): the two ends
    # (not a shift by one, ``a[:-1]`` / ``a[1:]``, whose head bound is negative)
    ends = {name for name, lo in tails if _int_bound(lo) is not None and _int_bound(lo) < 0}
    pairs += [(key[0], heads[key]) for key in heads if key[0] in ends and (_int_bound(key[1]) or 0) > 0
              and (key[0], heads[key]) not in pairs]
    return pairs


def _int_bound(text: str) -> int | None:
    """The integer a slice bound's text states (``10``, ``-10``), else None."""
    try:
        return int(text)
    except ValueError:
        return None


def _derived_from(tree: ast.AST, idx: ast.AST, base: str) -> bool:
    """``idx`` is a name assigned (directly or in a tuple) from an expression that cuts ``base``."""
    if not isinstance(idx, ast.Name):
        return False
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign):
            for name, v in _assigned_pairs(n):
                if name == idx.id and any(isinstance(c, ast.Subscript) and isinstance(c.value, ast.Name)
                                          and c.value.id == base for c in ast.walk(v)):
                    return True
    return False


def _repeats_each_label(n: ast.Call) -> bool:
    """``np.repeat(np.arange(k), n)``, ``torch.repeat_interleave(torch.arange(k), n)`` or
    ``torch.arange(k).repeat_interleave(n)``: each label n times in a row (a tensor's ``.repeat``
    tiles instead, and is not this)."""
    name = _callee(n)
    own = getattr(n.func, "value", None)
    is_arange = [isinstance(a, ast.Call) and _callee(a) == "arange" for a in (*n.args[:1], own)]
    module = isinstance(own, ast.Name) and own.id in ("np", "numpy", "torch")
    if name == "repeat_interleave":
        return any(is_arange)
    return name == "repeat" and module and bool(n.args) and is_arange[0]


def _is_sort_call(v: ast.AST, attr: str) -> bool:
    """``torch.argsort(..)``, ``np.argsort(..)``, ``y.argsort(..)`` (attr ``argsort``) or
    ``df.sort_values(..)`` (attr ``sort_values``) itself: ``np.argsort(s)[:k]`` (a top-k) is a
    subscript, not this call."""
    return isinstance(v, ast.Call) and isinstance(v.func, (ast.Attribute, ast.Name)) and (
        (v.func.attr if isinstance(v.func, ast.Attribute) else v.func.id) == attr)


def _root_name(v: ast.AST) -> str | None:
    """The array an argument carries: ``x``, ``torch.from_numpy(x)``, ``x.float()``, ``x.to(dev)``."""
    if isinstance(v, ast.Name):
        return v.id
    if isinstance(v, ast.Call):
        if isinstance(v.func, ast.Attribute) and not (isinstance(v.func.value, ast.Name)
                                                     and v.func.value.id in ("torch", "np", "numpy")):
            return _root_name(v.func.value)
        return _root_name(v.args[0]) if len(v.args) == 1 else None
    return None


def _whole_sort(v: ast.AST) -> bool:
    """An ``argsort`` of whole rows: ``torch.argsort(t)``, ``t.argsort(descending=True)``, not one
    along another axis (``rand(b, n).argsort(1)``, ``argsort(s, dim=1)``: a sort within each row)."""
    if not _is_sort_call(v, "argsort"):
        return False
    own = isinstance(v.func, ast.Attribute) and snippet(v.func.value) not in ("torch", "np", "numpy")
    if len(v.args) > (0 if own else 1):
        return False
    return not any(k.arg in ("dim", "axis") and not (isinstance(k.value, ast.Constant) and k.value.value == 0)
                   for k in v.keywords)


#: calls that convert an array (its type, device or dtype) and keep its rows in their order
_ROW_ORDER_KEEPERS = {"tensor", "as_tensor", "from_numpy", "array", "asarray", "ascontiguousarray", "astype",
                      "float", "double", "long", "int", "to", "cuda", "cpu", "numpy", "copy", "clone",
                      "detach", "LongTensor", "FloatTensor", "Tensor"}


def _keeps_row_order(v: ast.AST, name: str) -> bool:
    """``v`` is ``name`` converted by a row-order keeping call: ``torch.tensor(y)``, ``np.asarray(y)``,
    ``y.long()``, ``torch.from_numpy(y).to(dev)``."""
    while isinstance(v, ast.Call) and _callee(v) in _ROW_ORDER_KEEPERS:
        if isinstance(v.func, ast.Attribute) and not (isinstance(v.func.value, ast.Name)
                                                      and v.func.value.id in ("torch", "np", "numpy")):
            v = v.func.value
        elif v.args:
            v = v.args[0]
        else:
            return False
    return isinstance(v, ast.Name) and v.id == name


def _assigned_pairs(n: ast.Assign) -> list:
    """``(target name, value)`` for ``a = v`` and for each element of ``a, b = v, w``."""
    if len(n.targets) != 1:
        return []
    t = n.targets[0]
    if isinstance(t, ast.Name):
        return [(t.id, n.value)]
    if isinstance(t, ast.Tuple) and isinstance(n.value, ast.Tuple) and len(t.elts) == len(n.value.elts):
        return [(e.id, v) for e, v in zip(t.elts, n.value.elts) if isinstance(e, ast.Name)]
    return []


def _pairs_arrays(c: ast.Call) -> bool:
    """A call that binds arrays row by row: a ``*Dataset(...)`` constructor or ``zip(...)``."""
    name = snippet(c.func).rsplit(".", 1)[-1]
    return name == "zip" or name.endswith("Dataset")


def _is_perm_call(v: ast.AST) -> bool:
    """``torch.randperm(n)``, ``np.random.permutation(n)``, ``rng.permutation(n)``."""
    return isinstance(v, ast.Call) and snippet(v.func).rsplit(".", 1)[-1] in ("randperm", "permutation")


#: calls that find, replace or drop NaN. A NaN-skipping statistic (``np.nanmean``, ``np.nanstd``) is
#: none: it computes a constant over the finite values and leaves every NaN in the data (writing the
#: constant back takes one of these: ``np.where(np.isnan(x), mu, x)``, ``df.fillna(mu)``)
#: ``where(condition, x, y)`` takes three arguments (with one it returns the condition's indices)
_WHERE_ARGS = 3
_NAN_CLEANERS = {"nan_to_num", "nan_to_num_", "isnan", "isfinite", "fillna", "dropna", "SimpleImputer",
                 "interpolate"}
#: keywords of torch's ``interpolate`` (a resampling), never of pandas' NaN-filling one
_RESIZE_KEYWORDS = {"size", "scale_factor", "align_corners", "recompute_scale_factor", "antialias"}
#: the names torch.nn.functional is called through
_TORCH_FUNCTIONAL = {"F", "functional", "nn.functional", "torch.nn.functional"}


def _where_nan(v: ast.AST) -> bool:
    """``np.where(mask, np.nan, x)``, ``torch.where(mask, x, float("nan"))`` (or an array full of NaN
    in that place: ``torch.full((n,), float("nan"))``): an array that holds NaN wherever (or wherever
    not) the mask holds."""
    return (isinstance(v, ast.Call) and _callee(v) == "where" and len(v.args) == _WHERE_ARGS
            and any(_is_nan(a) or _nan_filled(a) for a in v.args[1:]))


def _nan_filled(v: ast.AST) -> bool:
    """``torch.full((n,), float("nan"))``, ``np.full_like(x, np.nan)``: an array made of NaN."""
    if not (isinstance(v, ast.Call) and _callee(v) in ("full", "full_like")):
        return False
    fill = v.args[1] if len(v.args) > 1 else next((k.value for k in v.keywords if k.arg == "fill_value"), None)
    return fill is not None and _is_nan(fill)


def _is_nan(v: ast.AST) -> bool:
    """``float("nan")``, ``np.nan``, ``math.nan``, ``torch.nan``, ``numpy.NaN``."""
    if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "float" and v.args \
            and isinstance(v.args[0], ast.Constant) and str(v.args[0].value).strip().lower() == "nan":
        return True
    return isinstance(v, ast.Attribute) and v.attr.lower() == "nan"


def _permutations(tree: ast.AST) -> dict:
    """Names holding a random permutation of row indices: assigned from ``randperm``/``permutation``,
    or an index range (``list(range(n))``, ``np.arange(n)``) shuffled in place (``rng.shuffle(p)``)."""
    perms: dict[str, ast.AST] = {}
    ranges: dict[str, ast.AST] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            if _is_perm_call(n.value):
                perms[n.targets[0].id] = n
            elif _is_index_range_call(n.value):
                ranges[n.targets[0].id] = n
    for c in ast.walk(tree):
        if isinstance(c, ast.Call) and callee_name(c) == "shuffle" and len(c.args) == 1 \
                and isinstance(c.args[0], ast.Name) and c.args[0].id in ranges:
            perms.setdefault(c.args[0].id, ranges[c.args[0].id])
    return perms


def _is_index_range_call(v: ast.AST) -> bool:
    """``range(n)``, ``list(range(n))``, ``np.arange(n)``, ``torch.arange(n)``."""
    if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "list" and len(v.args) == 1:
        v = v.args[0]
    return isinstance(v, ast.Call) and callee_name(v) in ("range", "arange")


def _perm_index_key(idx: ast.AST, perms: dict) -> str | None:
    """The permutation an index is: a draw in place (``randperm(n)``), a permutation's name, or a
    slice of one (``perm[:n_train]``)."""
    if _is_perm_call(idx):
        return f"inline:{idx.lineno}:{idx.col_offset}"
    if isinstance(idx, ast.Subscript):
        idx = idx.value
    return idx.id if isinstance(idx, ast.Name) and idx.id in perms else None


def _reorder_key(v: ast.AST, perms: dict, name: str | None = None) -> str | None:
    """The permutation ``v`` reorders its array by, else None: ``x[perm]``, ``x[perm[:n]]``,
    ``x[randperm(n)][:, 1:]`` (a view of the reordered rows) or ``[x[i] for i in perm]``; with
    ``name``, only when the reordered array is ``name``."""
    if isinstance(v, ast.ListComp) and len(v.generators) == 1 and isinstance(v.generators[0].target, ast.Name):
        g = v.generators[0]
        elt = v.elt
        if isinstance(elt, ast.Subscript) and isinstance(elt.slice, ast.Name) and elt.slice.id == g.target.id \
                and isinstance(elt.value, ast.Name) and (name is None or elt.value.id == name):
            return _perm_index_key(g.iter, perms)
        return None
    while isinstance(v, ast.Subscript) and isinstance(v.value, ast.Subscript):
        key = _perm_index_key(v.slice, perms)
        if key:
            return None     # a permutation applied to a view: not the rows of a named array
        v = v.value
    if not (isinstance(v, ast.Subscript) and isinstance(v.value, ast.Name) and (name is None or v.value.id == name)):
        return None
    return _perm_index_key(v.slice, perms)


def _order_reordering(v: ast.AST, name: str) -> str | None:
    """The name of the index array ``v`` reorders the array ``name`` by: ``name[order]``, or the same
    rows gathered one by one, ``[name[i] for i in order]`` (a Python list of documents reordered with
    its label tensor); else None."""
    if isinstance(v, ast.ListComp) and len(v.generators) == 1 and isinstance(v.generators[0].target, ast.Name) \
            and not v.generators[0].ifs and isinstance(v.generators[0].iter, ast.Name):
        g = v.generators[0]
        elt = v.elt
        if isinstance(elt, ast.Subscript) and isinstance(elt.value, ast.Name) and elt.value.id == name \
                and isinstance(elt.slice, ast.Name) and elt.slice.id == g.target.id:
            return g.iter.id
        return None
    if isinstance(v, ast.Subscript) and isinstance(v.value, ast.Name) and v.value.id == name \
            and isinstance(v.slice, ast.Name):
        return v.slice.id
    return None


def _plain_view(v: ast.AST) -> bool:
    """An array as it is, or a slice of its rows or columns (``x``, ``labels[:n]``, ``s[:, :-1]``):
    no index that reorders or picks single rows."""
    while isinstance(v, ast.Subscript):
        parts = v.slice.elts if isinstance(v.slice, ast.Tuple) else [v.slice]
        if not all(isinstance(p, ast.Slice) for p in parts):
            return False
        v = v.value
    return isinstance(v, ast.Name)


def _view_beside_reordered(val: ast.Tuple, key_of) -> bool:
    """``inputs, targets = s[:, :-1], s[randperm(n)][:, 1:]`` or ``texts_tr, labels_tr = [texts[i] for i
    in perm[:n]], labels[:n]``: arrays assigned together as a pair, one reordered at random and
    another taken in its original order."""
    keys = [key_of(e) for e in val.elts]
    return any(keys) and any(k is None and _plain_view(e) and not isinstance(e, ast.Name)
                             for k, e in zip(keys, val.elts))

def add_switched_off_rescaling(facts) -> None:
    """inputs_normalized False and rescaling_switched_off, added to ``facts`` (the code reader's
    ``code:data`` findings; the reading is normalize_flag.switched_off_rescaling): the script rescales
    its data only behind a switch it binds to a false constant, so the rescaling never runs. Unsaid where
    another finding already says whether the inputs are normalised (a BatchNorm standardising the raw
    inputs)."""
    if any(f.fact == "inputs_normalized" for f in facts.findings):
        return
    hit = switched_off_rescaling(facts.tree)
    if hit is None:
        return
    line, text, flag_line, flag = hit
    facts.add_finding("inputs_normalized", False, line,
                      f"`{text}` (line {line}) would rescale the data, but only under `if {flag}:`, "
                      f"and `{flag}` is bound to a false constant (line {flag_line}): the inputs reach "
                      f"the network in their raw units")
    facts.add_finding("rescaling_switched_off", True, line,
                      f"the rescaling at line {line} runs only under `if {flag}:`, and `{flag}` = a false "
                      f"constant (line {flag_line})")


def add_discarded_shuffle(facts) -> None:
    """shuffle_discarded, added to ``facts`` (the code reader's ``code:data`` findings): only ever true."""
    hits = discarded_shuffles(facts.tree)   # (line, text) of each, facts/discarded_shuffle.py
    if not hits:
        return
    line, text = hits[0]
    facts.add_finding("shuffle_discarded", True, line,
                      f"`{text}` (line {line}) shuffles a new object made in the call and keeps nothing: "
                      f"shuffle() reorders its argument in place and returns None, so the data keeps its "
                      f"original order", lines=[h[0] for h in hits])
