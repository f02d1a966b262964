"""``code:loop``: the training loop's zero_grad/backward/step order, clipping, scheduler placement,
graph cuts and train/eval mode.
"""

from __future__ import annotations

import ast

from ..naming import EVAL_FUNC
from ..text import callee_name
from ..torch_api.names import BN_LAYERS, DROPOUT_LAYERS, TRANSFORMER_LAYERS
from ..torch_api.schedule import collapse_point, trajectory
from ..values import Event, ListVal, ModuleVal, OptVal, SchedVal, TensorVal
from .common import stated_number

#: stock layers whose output depends on train/eval mode
MODE_LAYERS = DROPOUT_LAYERS | BN_LAYERS | TRANSFORMER_LAYERS | {
    "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LSTM", "GRU", "RNN"}


#: The evidence source this module produces (kb/sources.yaml names this module) and its facts.
SOURCE_ID = "code:loop"
FACTS = ("zero_grad_called", "optimizer_not_zeroed", "scheduler_step_per_batch", "scheduler", "clip_max_norm",
         "graph_cut", "model_mode_in_validation", "scheduler_designed_per_batch", "grads_cleared_before_step",
         "model_mode_in_training", "warmup", "lr_final_ratio", "lr_collapse_fraction", "scheduler_steps",
         "clip_on_scaled_gradients", "grad_scale", "validation_mode_free")

#: digits the LR course facts keep (presentation: the values are ratios of the initial LR)
_SHOWN_DIGITS = 4

class LoopFacts:
    """code:loop: zero_grad/backward/step order, clipping, schedulers, graph cuts, train/eval mode."""

    def first_iteration(self, loop_id: int) -> list[Event]:
        """The events of the first iteration of a loop, in order."""
        first = next((e for e in self.events if (loop_id, 0) in e.loops), None)
        if first is None:
            return []
        k = first.loops.index((loop_id, 0))
        prefix = first.loops[: k + 1]
        return [e for e in self.events if e.loops[: k + 1] == prefix]

    def loop_facts(self, backs: list[Event], steps: list[Event], step_loop: int | None,
                   loss_t: TensorVal | None, back: Event | None) -> None:
        """code:loop facts, from the events of the whole run and the loop that steps the optimizer."""
        reached: set = set()   # modules some backward reaches with the graph intact
        for b in backs:
            if isinstance(b.obj, TensorVal):
                reached |= set(b.obj.srcs)
        if step_loop is not None and (steps or backs):
            self.zeroing_facts(backs, steps, step_loop)
            self.step_order_facts(step_loop)
            self.scaled_clip_facts(step_loop)
        self.clipping_facts()
        self.scheduler_facts(step_loop)
        if loss_t is not None and back is not None:
            self.graph_cut_facts(loss_t, back, reached)

    def zeroing_facts(self, backs: list[Event], steps: list[Event], step_loop: int) -> None:
        """zero_grad_called and optimizer_not_zeroed: is every stepped optimizer zeroed in the loop?"""
        zeros = [e for e in self.events if e.kind == "zero"]
        lnode = self.loop_nodes.get(step_loop)
        lline = getattr(lnode, "lineno", 0)
        inside = [z for z in zeros if any(l == step_loop for l, _ in z.loops)]
        # an optimizer stepped in the loop whose own zero_grad never runs there, while another's
        # does (two optimizers, one forgotten): its gradients add up across iterations
        zeroed = {id(z.obj) for z in inside if isinstance(z.obj, OptVal)}
        covers_all = any(not isinstance(z.obj, OptVal) for z in inside)
        forgotten = [] if covers_all or not zeroed else [
            st for st in steps if isinstance(st.obj, OptVal) and id(st.obj) not in zeroed
            and any(l == step_loop for l, _ in st.loops)]
        if forgotten:
            st = forgotten[0]
            z = inside[0]
            self.add_finding("optimizer_not_zeroed", True, st.line,
                             f"`{st.text}` (line {st.line}) steps in the training loop (line {lline}) "
                             f"but its zero_grad() never runs there; only `{z.text}` (line {z.line}) "
                             f"does: that optimizer's gradients add up across iterations")
        elif inside:
            self.add_finding("optimizer_not_zeroed", False, inside[0].line,
                             "every optimizer stepped in the loop is zeroed there" if not covers_all else
                             f"`{inside[0].text}` (line {inside[0].line}) clears every gradient")
        if inside:
            z = inside[0]
            self.add_finding("zero_grad_called", True, z.line,
                             f"`{z.text}` (line {z.line}) runs inside the training loop (line "
                             f"{lline})")
        else:
            bl = backs[0].line if backs else "?"
            sl = steps[0].line if steps else "?"
            if zeros:
                z = zeros[0]
                self.add_finding("zero_grad_called", False, lline,
                                 f"`{z.text}` (line {z.line}) is outside the loop at line {lline} "
                                 f"where backward (line {bl}) and step (line {sl}) run: gradients "
                                 f"add up across its iterations")
            else:
                self.add_finding("zero_grad_called", False, lline,
                                 f"no zero_grad() or grad = None in the loop at line {lline} where "
                                 f"backward (line {bl}) and step (line {sl}) run")

    def step_order_facts(self, step_loop: int) -> None:
        """grads_cleared_before_step (zeroed between backward and step); notes on steps or clipping before backward."""
        it = [e for e in self.first_iteration(step_loop) if e.kind in ("backward", "zero",
                                                                       "step", "clip")]
        seqk = [e for e in it if e.kind in ("backward", "zero", "step")]
        for i, e in enumerate(seqk):
            if e.kind != "step":
                continue
            prev = None
            for j in range(1, len(seqk) + 1):
                cand = seqk[(i - j) % len(seqk)]
                if cand.kind in ("backward", "zero"):
                    prev = (cand, j > i)
                    break
            if prev and prev[0].kind == "zero":
                self.add_finding("grads_cleared_before_step", True, e.line,
                                 f"`{prev[0].text}` (line {prev[0].line}) clears the gradients "
                                 f"after backward and before `{e.text}` (line {e.line}): every step "
                                 f"sees zero gradients")
            elif prev and prev[0].kind == "backward" and prev[1]:
                self.add_note(f"line {e.line}: `{e.text}` runs before `{prev[0].text}` "
                              f"(line {prev[0].line}) in the same iteration: each step applies "
                              f"the previous batch's gradients")
            break
        for i, e in enumerate(it):
            if e.kind == "clip":
                before = [x for x in it[:i] if x.kind == "backward"]
                if not before and any(x.kind == "backward" for x in it[i:]):
                    self.add_note(f"line {e.line}: gradient clipping runs before backward in "
                                  f"the iteration: it clips the previous gradients")

    def scaled_clip_facts(self, step_loop: int) -> None:
        """clip_on_scaled_gradients and grad_scale: in the loop's iteration a GradScaler's
        ``scaler.scale(loss).backward()`` is followed by a gradient clip with no
        ``scaler.unscale_(optimizer)`` between them, so the clip measures the gradients times the
        scale; grad_scale is the scale it starts at (``init_scale=``, else torch's default,
        code.grad_scaler_init_scale). Only ever true."""
        it = [e for e in self.first_iteration(step_loop) if e.kind in ("backward", "clip")]
        back = next((e for e in it if e.kind == "backward" and ".scale(" in e.text), None)
        clip = next((e for e in it if e.kind == "clip" and back is not None and e.seq > back.seq), None)
        if clip is None or any(isinstance(n, ast.Call) and callee_name(n) == "unscale_"
                               and back.line <= n.lineno <= clip.line for n in ast.walk(self.tree)):
            return
        scale = self.params["code.grad_scaler_init_scale"]
        for n in ast.walk(self.tree):
            if isinstance(n, ast.Call) and callee_name(n) == "GradScaler":
                given = next((k.value for k in n.keywords if k.arg == "init_scale"), None)
                if given is not None:
                    scale = stated_number(given)
        if scale is None:       # an init_scale computed at run time: the scale is not known
            return
        self.add_finding("clip_on_scaled_gradients", True, clip.line,
                         f"`{clip.text}` (line {clip.line}) clips gradients `{back.text}` (line {back.line}) "
                         "left multiplied by the GradScaler's scale: no scaler.unscale_(optimizer) between them")
        self.add_finding("grad_scale", float(scale), clip.line,
                         f"the GradScaler starts at a scale of {scale:g}")

    def clipping_facts(self) -> None:
        """clip_max_norm: the first gradient clipping's threshold."""
        clips = [e for e in self.events if e.kind == "clip"]
        if clips:
            c = clips[0]
            val, src, name = c.value
            if val is not None:
                how = "value clipping: clip_value" if "value" in name else "max_norm"
                self.add_finding("clip_max_norm", val, c.line,
                                 f"`{c.text}` (line {c.line}){src}" + (
                             f" ({how})" if "value" in name else ""))
            else:
                self.add_unresolved(f"line {c.line}: clipping threshold of `{c.text}` is computed at run "
                                    f"time")

    def scheduler_facts(self, step_loop: int | None) -> None:
        """scheduler, scheduler_designed_per_batch, warmup and scheduler_step_per_batch."""
        scheds = [e for e in self.events if e.kind == "sched"]
        sched_obj = next((e.obj for e in scheds if isinstance(e.obj, SchedVal) and e.obj.kind),
                         None)
        if sched_obj is None and self.schedulers:
            sched_obj = self.schedulers[0]
            if not scheds and not step_passed(self.tree, sched_obj.line):
                self.add_note(f"line {sched_obj.line}: the scheduler `{sched_obj.text}` is never "
                              f"stepped")
        if sched_obj is None and not scheds:
            self.no_scheduler_fact(step_loop)
        if sched_obj is not None and self.scheduler_held(sched_obj, scheds, step_loop):
            return
        if sched_obj is not None and sched_obj.kind:
            self.add_finding("scheduler", sched_obj.kind, sched_obj.line,
                             f"`{sched_obj.text}` (line {sched_obj.line})")
            if sched_obj.per_batch is not None:
                self.add_finding("scheduler_designed_per_batch", sched_obj.per_batch, sched_obj.line,
                                 f"{sched_obj.why} (line {sched_obj.line})")
            if sched_obj.warmup:
                self.add_finding("warmup", True, sched_obj.line,
                                 f"`{sched_obj.text}` warms the learning rate up (line {sched_obj.line})")
        mine = [e for e in scheds if e.obj is sched_obj or not isinstance(e.obj, SchedVal)
                or e.obj.kind is None] if sched_obj is not None else scheds
        if mine and step_loop is not None:
            per_batch = [e for e in mine if any(l == step_loop for l, _ in e.loops)]
            lline = getattr(self.loop_nodes.get(step_loop), "lineno", 0)
            if per_batch:
                e = per_batch[0]
                cond = " (under a condition)" if e.cond else ""
                self.add_finding("scheduler_step_per_batch", True, e.line,
                                 f"`{e.text}` (line {e.line}) runs every batch, inside the loop at line "
                                 f"{lline}{cond}")
            else:
                e = mine[0]
                self.add_finding("scheduler_step_per_batch", False, e.line,
                                 f"`{e.text}` (line {e.line}) runs outside the batch loop (line {lline})")
        if mine and sched_obj is not None and sched_obj.decay is not None:
            self.schedule_course_facts(sched_obj, mine)

    def schedule_course_facts(self, sched: SchedVal, mine: list[Event]) -> None:
        """lr_final_ratio, lr_collapse_fraction and scheduler_steps from the code: a stock decaying schedule (StepLR,
        MultiStepLR, ExponentialLR, CosineAnnealingLR) with known numbers, stepped once per pass of loops
        whose ``range`` bounds are known (epochs, or epochs times batches), taken through the whole run."""
        e = mine[0]
        if e.cond or not e.loops:
            return
        steps = 1
        for nid in {n for n, _ in e.loops}:
            if nid not in self.loop_counts:
                return
            steps *= self.loop_counts[nid]
        lr0 = self.optimizers[0].lr[0] if len(self.optimizers) == 1 and self.optimizers[0].lr else None
        lrs = trajectory(sched.kind, sched.decay, steps, lr0) if steps > 1 else None
        if lrs is None:
            return
        where = f"`{sched.text}` (line {sched.line}), stepped at line {e.line} once in each of {steps} passes"
        self.add_finding("scheduler_steps", steps, sched.line, f"{where} of the run")
        self.add_finding("lr_final_ratio", float(f"{lrs[-1]:.{_SHOWN_DIGITS}g}"), sched.line,
                         f"{where}: the last pass runs at {lrs[-1]:.3g} of the initial learning rate")
        cut = self.params["curves.lr_collapse"]
        k = collapse_point(lrs, cut)
        if k is None:
            self.add_finding("lr_collapse_fraction", 1.0, sched.line,
                             f"{where}: the learning rate never stays at or below {cut:.0%} of its start")
        else:
            self.add_finding("lr_collapse_fraction", round(k / steps, _SHOWN_DIGITS), sched.line,
                             f"{where}: the learning rate is at or below {cut:.0%} of its start from pass {k + 1} "
                             f"on, {k / steps:.0%} of the way through the run")

    def scheduler_held(self, sched_obj, scheds: list, step_loop: int | None) -> bool:
        """scheduler = none for a scheduler that never moves the LR during training: built and never
        stepped, or stepped only outside every loop (once, before or after training), while the script
        steps its optimizer in a loop and nothing else sets a param group's lr, nor hands the scheduler's
        ``step`` to other code to call (``after_epoch=sched.step``: stepped where that code calls it).
        The LR of the run is held as if no scheduler existed (the live LR trace confirms it: ``lr_final_ratio`` 1)."""
        if step_loop is None or not any(e.kind == "step" for e in self.events):
            return False
        if any(e.loops for e in scheds):
            return False
        if self.assigns_lr() or step_passed(self.tree, sched_obj.line):
            return False
        how = ("is never stepped" if not scheds else
               f"is stepped only outside the training loop (line {scheds[0].line})")
        self.add_finding("scheduler", "none", sched_obj.line,
                         f"`{sched_obj.text}` (line {sched_obj.line}) {how}: the LR is held for the "
                         f"whole run")
        return True

    def assigns_lr(self) -> bool:
        """Whether the script assigns a param group's ``lr`` (``g["lr"] = ...``) anywhere."""
        for n in ast.walk(self.tree):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(
                n, (ast.AugAssign, ast.AnnAssign)) else []
            if any(isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant)
                   and t.slice.value in ("lr", "learning_rate") for t in targets):
                return True
        return False

    def no_scheduler_fact(self, step_loop: int | None) -> None:
        """scheduler = none: the script steps one optimizer it builds itself in a loop it writes, and
        nothing changes its LR (no scheduler, no assignment to a param group's ``lr``): the LR is
        held for the whole run."""
        if step_loop is None or len(self.optimizers) != 1 or self.schedulers:
            return
        if not any(e.kind == "step" for e in self.events) or self.assigns_lr():
            return
        opt = self.optimizers[0]
        self.add_finding("scheduler", "none", opt.line,
                         f"no LR scheduler and no assignment to a param group's lr in {self.basename}: "
                         f"the LR of `{opt.text}` (line {opt.line}) is held for the whole run")

    def graph_cut_facts(self, loss_t: TensorVal, back: Event, reached: set) -> None:
        """graph_cut: does the loss backpropagated reach the trainable parameters?"""
        lost = []
        # a parameter read through ``.data`` in a forward gets no gradient, whether or not its module
        # reaches the loss by its other parameters
        param_cuts = set(self.records["param_data"])
        for line, how, srcs in loss_t.cuts:
            gone = [s for s in srcs if (s not in reached or line in param_cuts) and self.is_trained(s)]
            if gone:
                lost.append((line, how))
        if not loss_t.srcs and (loss_t.calls or loss_t.cuts):
            cut = loss_t.cuts[0] if loss_t.cuts else (back.line, "?")
            self.add_finding("graph_cut", True, cut[0],
                             f"{cut[1]} (line {cut[0]}) cuts the graph: the loss backpropagated at "
                             f"line {back.line} reaches no trainable parameter")
        elif lost:
            self.add_finding("graph_cut", True, lost[0][0],
                             f"{lost[0][1]} (line {lost[0][0]}) cuts the graph between trainable "
                             f"layers and the loss backpropagated at line {back.line}")
        elif loss_t.srcs:
            self.add_finding("graph_cut", False, back.line,
                             f"the model output reaches `{back.text}` (line {back.line}) with the "
                             f"graph intact")

    def mode_sensitive(self, m: ModuleVal) -> bool:
        """Can ``m``'s output depend on train/eval mode? False only when every layer under it is
        a stock layer none of which is a dropout, a norm or a recurrent layer (whose ``dropout=``
        acts only in train mode) and the script calls no functional dropout; True otherwise."""
        if self.records.get("functional_dropout"):
            return True   # a functional dropout somewhere: which module calls it is not told
        seen, stack = set(), [m]
        while stack:
            cur = stack.pop()
            if cur.id in seen:
                continue
            seen.add(cur.id)
            if cur.kind in ("external", "opaque", "unknown"):
                return True
            if cur.kind == "layer" and cur.qual.rsplit(".", 1)[-1] in MODE_LAYERS:
                return True
            for v in list(cur.attrs.values()) + list(cur.layers):
                if isinstance(v, ModuleVal):
                    stack.append(v)
                elif isinstance(v, ListVal):
                    stack.extend(x for x in v.items if isinstance(x, ModuleVal))
        return False

    def mode_facts(self, train_calls: set, step_loop: int | None) -> None:
        calls = [(i, e) for i, e in enumerate(self.events) if e.kind == "call"]
        if not calls:
            return
        # a module run under no_grad inside the training step (a frozen teacher, a target
        # network) is not trained there: its eval mode is the intended one; nor is it validated
        # there: its output feeds the loss that is backpropagated (a GAN's generator making the
        # discriminator's fakes)
        feeds_loss = {i for i in train_calls if self.events[i].nograd}
        train_calls = {i for i in train_calls if not self.events[i].nograd}
        train_models = {self.events[i].obj.id for i in train_calls
                        if isinstance(self.events[i].obj, ModuleVal)}
        val_calls, tr_calls = [], []
        for i, e in calls:
            if i in train_calls:
                tr_calls.append(e)
                continue
            if i in feeds_loss:
                continue
            if not isinstance(e.obj, ModuleVal) or (train_models and e.obj.id not in
                                                    train_models):
                continue
            in_step_loop = step_loop is not None and e.loops and e.loops[-1][0] == step_loop
            eval_fn = any(EVAL_FUNC.search(f) for f in e.funcs)
            if e.nograd or eval_fn or (e.loops and not in_step_loop):
                val_calls.append(e)
        if val_calls:
            # a module with no mode-dependent layer computes the same in either mode: it is the
            # finding only when no module that does depend on the mode was validated correctly
            wrong = [e for e in val_calls if e.mode == "train"]
            bad = [e for e in wrong if self.mode_sensitive(e.obj)] or (
                wrong if not any(e.mode != "train" and self.mode_sensitive(e.obj) for e in val_calls)
                else [])
            if bad:
                e = bad[0]
                self.add_finding("model_mode_in_validation", "train", e.line,
                                 f"`{e.text}` (line {e.line}) runs validation with the model in train "
                                 f"mode: no model.eval() before it")
                if not any(self.mode_sensitive(x.obj) for x in bad):
                    self.add_finding("validation_mode_free", True, e.line,
                                     f"`{e.text}` (line {e.line}) is validated in train mode, but no layer it "
                                     "runs (dropout, a norm, a recurrent layer, a dropout following the "
                                     "module's mode) computes differently in train mode: its mode changes nothing")
            else:
                e = next((x for x in val_calls if self.mode_sensitive(x.obj)), val_calls[0])
                mode_ev = next((x for x in reversed(self.events[: self.events.index(e)])
                                if x.kind == "mode" and x.obj is e.obj), None)
                where = f" after `{mode_ev.text}` (line {mode_ev.line})" if mode_ev else ""
                self.add_finding("model_mode_in_validation", "eval", e.line,
                                 f"`{e.text}` (line {e.line}) runs validation in eval mode{where}")
        if tr_calls:
            wrong = [e for e in tr_calls if e.mode == "eval"]
            sens = [e for e in tr_calls if isinstance(e.obj, ModuleVal) and self.mode_sensitive(e.obj)]
            bad = [e for e in wrong if e in sens] or (wrong if not any(e.mode != "eval" for e in sens)
                                                      else [])
            if bad:
                e = bad[0]
                prior = [x for x in self.events[: self.events.index(e)]
                         if x.kind == "mode" and x.obj is e.obj and x.mode == "eval"]
                why = f" `{prior[-1].text}` (line {prior[-1].line}) is never undone by " \
                      f"model.train()" if prior else ""
                self.add_finding("model_mode_in_training", "eval", e.line,
                                 f"`{e.text}` (line {e.line}) trains with the model in eval mode:{why}")
            else:
                e = next((x for x in tr_calls if isinstance(x.obj, ModuleVal)
                          and self.mode_sensitive(x.obj)), tr_calls[0])
                self.add_finding("model_mode_in_training", "train", e.line,
                                 f"`{e.text}` (line {e.line}) trains with the model in train mode")


def step_passed(tree: ast.AST, line: int) -> bool:
    """Whether the scheduler built at ``line`` has its bound ``step`` handed on uncalled (a callback:
    ``run_epochs(..., after_epoch=sched.step)``, ``hooks.append(sched.step)``): it is stepped wherever
    the code it is handed to calls it, which this reader does not follow."""
    names = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) and n.lineno == line
             for t in n.targets if isinstance(t, ast.Name)}
    if not names:
        return False
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    return any(isinstance(n, ast.Attribute) and n.attr == "step" and isinstance(n.value, ast.Name)
               and n.value.id in names and id(n) not in called for n in ast.walk(tree))
