"""Every evidence source in kb/sources.yaml names the module that produces it, and that module
declares the same facts (one probe class per ``probe:*`` source, or ``SOURCE_ID``/``FACTS``)."""
import importlib

import pytest

from traindx.engine.loader import load_kb

KB = load_kb(entry_point_packs=False)


def _generated(cls):
    """The facts a probe generates per knowledge-base entry (``fact_prefix``: the experiment probe's
    ``exp_<id>``, one per experiment of kb/experiments.yaml, as the loader adds them)."""
    prefix = getattr(cls, "fact_prefix", None)
    if not prefix:
        return ()
    from traindx.engine.loader import experiment_fact

    assert prefix == experiment_fact(""), cls
    return tuple(experiment_fact(e) for e in KB.experiments)


def _declared(module, sid):
    """The facts ``module`` declares for source ``sid`` (None if it declares none)."""
    from traindx.probes.live.probe import Probe

    for obj in vars(module).values():
        if isinstance(obj, type) and issubclass(obj, Probe) and obj.source == sid:
            return tuple(obj.facts) + _generated(obj)
    if getattr(module, "SOURCE_ID", None) == sid:
        return tuple(module.FACTS)
    return None


@pytest.mark.parametrize("sid", sorted(KB.sources))
def test_source_module_declares_its_facts(sid):
    src = KB.sources[sid]
    if sid.startswith("probe:"):
        pytest.importorskip("torch")
    module = importlib.import_module(src["module"])
    facts = _declared(module, sid)
    assert facts is not None, f"{src['module']} declares nothing for {sid}"
    assert sorted(facts) == sorted(src["facts"]), sid


def test_every_live_probe_is_a_source_and_a_watched_run_emits_only_declared_facts():
    torch = pytest.importorskip("torch")
    import traindx.probes as tp
    from traindx.probes.live.monitor import Monitor

    declared = {cls.source: set(cls.facts) | set(_generated(cls)) for cls in Monitor.PROBES + Monitor.COSTLY}
    assert set(declared) <= set(KB.sources)
    assert len(declared) == len(Monitor.PROBES) + len(Monitor.COSTLY)     # one probe per source
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    opt = torch.optim.SGD(model.parameters(), lr=1e-6)
    x, y = torch.randn(64, 4), torch.randint(0, 3, (64,))
    data = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=16)
    with tp.watch(model, opt, train_loader=data, val_loader=data) as w:
        for _ in range(20):
            for xb, yb in w.loader(data):
                out = model(xb)
                loss = torch.nn.functional.cross_entropy(out, yb)
                w.observe(loss, outputs=out, targets=yb)
                loss.backward()
                opt.step()
                opt.zero_grad()
    found = w.findings()
    assert len({f.source for f in found}) >= 10
    for f in found:
        assert f.fact in declared[f.source], (f.source, f.fact)


def _emitted(path):
    """The fact names a code-reader module passes as a literal to ``add_finding`` or ``Finding``."""
    import ast

    out = set()
    for n in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        if isinstance(n, ast.Call) and n.args and isinstance(n.args[0], ast.Constant):
            f = n.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            if name in ("add_finding", "Finding") and isinstance(n.args[0].value, str):
                out.add(n.args[0].value)
    return out


def test_each_code_fact_module_emits_exactly_the_facts_of_its_source():
    """One fact module per ``code:*`` source: what each module's code emits is what its source
    declares, and the shared parts (the reader, the conclusions) emit only facts some code source
    declares (``num_classes`` and ``rl_training``, declared by code:model)."""
    import pathlib

    import traindx.probes.readers.code as code

    root = pathlib.Path(code.__file__).parent
    declared = {}
    for sid, src in KB.sources.items():
        if sid.startswith("code:"):
            module = importlib.import_module(src["module"])
            emitted = _emitted(module.__file__)
            assert emitted <= set(src["facts"]), (sid, sorted(emitted - set(src["facts"])))
            declared[sid] = set(src["facts"]) - emitted
    shared = set()
    for path in root.rglob("*.py"):
        if path.parent.name != "facts" or path.name in ("common.py", "__init__.py"):
            shared |= _emitted(path)
    assert shared == declared["code:model"] == {"num_classes", "rl_training"}
    assert all(not rest for sid, rest in declared.items() if sid != "code:model"), declared
