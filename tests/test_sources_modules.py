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
    if facts is None and sid.startswith("code:"):
        pytest.skip("the code reader declares its sources once the `codereader` split lands")
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
