"""Nothing a user or a pack supplies is executed or unpickled, outside --script / --setup.

The source is read with :mod:`ast` (not grepped as text), so a comment or a string mentioning
``eval`` does not count and an aliased import (``from pickle import loads as l``) does.
"""

import ast
import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "probes")

#: module.function calls that run or unpickle data: never allowed
FORBIDDEN = {
    "pickle.load", "pickle.loads", "pickle.Unpickler", "cPickle.load", "cPickle.loads", "dill.load", "dill.loads",
    "marshal.load", "marshal.loads", "shelve.open", "yaml.load", "yaml.load_all", "yaml.unsafe_load",
    "yaml.unsafe_load_all", "yaml.full_load", "yaml.full_load_all", "yaml.Loader", "yaml.UnsafeLoader",
    "yaml.FullLoader", "yaml.CLoader", "yaml.CUnsafeLoader", "yaml.CFullLoader", "os.system", "os.popen",
    "numpy.load", "np.load", "joblib.load",
}
BUILTINS = {"eval", "exec", "compile", "__import__"}
#: (file, what): the one place a compile() is right — the --script runner checks the script's syntax
#: before it starts it (compiled, never executed there; the script runs only with --script)
ALLOWED = {("probes/runner/supervise.py", "compile()")}


def _sources():
    for pkg in PACKAGES:
        yield from sorted((ROOT / pkg).rglob("*.py"))


def _qualname(node, aliases):
    """'module.attr' for a Name/Attribute chain, with import aliases undone."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(aliases.get(node.id, node.id))
    return ".".join(reversed(parts))


def _violations(path: pathlib.Path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            fn = node.func
            if isinstance(fn, ast.Name) and fn.id in BUILTINS and fn.id not in aliases:
                out.append(f"{path.relative_to(ROOT)}:{node.lineno}: {fn.id}()")
            name = _qualname(fn, aliases)
            if name in FORBIDDEN:
                out.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}()")
            if name in ("torch.load",):
                kw = {k.arg: k.value for k in node.keywords}
                ok = isinstance(kw.get("weights_only"), ast.Constant) and kw["weights_only"].value is True
                if not ok:
                    out.append(f"{path.relative_to(ROOT)}:{node.lineno}: torch.load without weights_only=True")
            if name and name.startswith("subprocess.") and any(
                    k.arg == "shell" and not (isinstance(k.value, ast.Constant) and k.value.value is False)
                    for k in node.keywords):
                out.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}(shell=...)")
        elif isinstance(node, (ast.Attribute, ast.Name)):
            name = _qualname(node, aliases)
            if name in ("yaml.Loader", "yaml.UnsafeLoader", "yaml.FullLoader", "yaml.CLoader",
                        "yaml.CUnsafeLoader", "yaml.CFullLoader"):
                out.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}")
    return out


def test_no_eval_exec_pickle_or_unsafe_yaml_in_the_source():
    found = [v for p in _sources() for v in _violations(p)
             if (v.split(":", 1)[0], v.rsplit(": ", 1)[1]) not in ALLOWED]
    assert not found, "\n".join(found)


def test_the_checker_catches_what_it_is_for(tmp_path):
    """The AST check itself must fail on each forbidden form (a test that cannot fail proves nothing)."""
    bad = tmp_path / "bad.py"
    cases = ["eval('1')", "exec('x=1')", "import pickle\npickle.loads(b'')", "from pickle import loads as l\nl(b'')",
             "import yaml\nyaml.load('a', Loader=yaml.Loader)", "import yaml as y\ny.unsafe_load('a')",
             "import torch\ntorch.load('m.pt')", "import torch\ntorch.load('m.pt', weights_only=False)",
             "import subprocess\nsubprocess.run('ls', shell=True)", "import os\nos.system('ls')"]
    global ROOT
    old = ROOT
    ROOT = tmp_path
    try:
        for src in cases:
            bad.write_text(src + "\n")
            assert _violations(bad), src
        bad.write_text("import torch\ntorch.load('m.pt', weights_only=True)\nimport yaml\nyaml.safe_load('a')\n")
        assert not _violations(bad)
    finally:
        ROOT = old


def test_checkpoints_load_with_weights_only():
    """Every torch.load in the shipped code passes weights_only=True (also checked above); and the
    runner never unpickles what the user's script sends back (its events are JSON)."""
    text = (ROOT / "probes" / "runner" / "supervise.py").read_text()
    tree = ast.parse(text)
    calls = {_qualname(n.func, {}) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    assert "json.loads" in calls and not calls & {"pickle.loads", "pickle.load"}


def test_mcp_server_cannot_run_code():
    """The MCP tools read files (code with ast, configs, logs); none of them runs anything."""
    tree = ast.parse((ROOT / "engine" / "frontends" / "mcp_server.py").read_text())
    mods = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mods |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            mods.add(node.module)
    assert not {m for m in mods if m.startswith(("subprocess", "runpy", "multiprocessing", "traindx.probes.runner",
                                                  "traindx.probes.live", "importlib.import_module"))}, mods
    calls = {_qualname(n.func, {}) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    assert not calls & {"importlib.import_module", "runpy.run_path", "start_script", "run_setup"}, calls


def test_mcp_read_tools_never_execute_the_file(tmp_path):
    from traindx.engine.frontends.mcp_server import Engine
    marker = tmp_path / "EXECUTED"
    payload = f"import pathlib\npathlib.Path({str(marker)!r}).write_text('x')\n"
    script = tmp_path / "train.py"
    script.write_text(payload + "import torch\nopt = torch.optim.SGD([], lr=0.1)\n")
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text("lr: !!python/object/apply:os.system ['touch " + str(marker) + "']\n")
    e = Engine()
    sid = e.call("start_diagnosis", {"complaint": "loss is flat"})["session_id"]
    e.call("read_code", {"session_id": sid, "path": str(script)})
    e.call("read_config", {"session_id": sid, "path": str(cfg)})   # the tag is ignored: plain data
    assert not marker.exists()


@pytest.mark.parametrize("text", [
    "kind: facts\nfacts: !!python/object/apply:os.system ['echo pwned']\n",
    "kind: facts\nfacts: !!python/name:os.system\n",
    "kind: facts\nfacts: &a [*a]\n",
])
def test_pack_yaml_with_python_tags_is_refused(tmp_path, text):
    from traindx.engine.errors import KBError
    from traindx.engine.loader import load_kb
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "x.yaml").write_text(text)
    with pytest.raises(KBError) as ei:
        load_kb([pack], entry_point_packs=False)
    assert str(ei.value).startswith(str(pack / "x.yaml") + ":2:")


def test_kb_conditions_are_data_not_code(tmp_path):
    """A rule whose condition looks like Python is a validation error, never evaluated."""
    from traindx.engine.errors import KBError
    from traindx.engine.loader import load_kb
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "rules.yaml").write_text(
        "kind: rules\nrules:\n  - id: evil\n    description: x\n"
        "    when: \"__import__('os').system('echo pwned')\"\n"
        "    then: {set: {}}\n    cases: []\n")
    with pytest.raises(KBError):
        load_kb([pack], entry_point_packs=False)


def test_nothing_downloads_at_run_time():
    """No module in the package opens a network connection."""
    net = {"urllib.request", "requests", "http.client", "httpx", "urllib3", "socket.create_connection"}
    found = []
    for p in _sources():
        tree = ast.parse(p.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found += [f"{p}: {a.name}" for a in node.names if a.name in net]
            elif isinstance(node, ast.ImportFrom) and node.module in net:
                found.append(f"{p}: {node.module}")
    assert not found, found


def test_kb_path_stays_inside_its_folder_even_through_pack_yaml(tmp_path):
    """pack.yaml is read to name the pack before the load: a link out of the folder is not followed there either."""
    secret = tmp_path / "secret.yaml"
    secret.write_text("name: leaked\n")
    pack = tmp_path / "pack"
    pack.mkdir()
    os.symlink(secret, pack / "pack.yaml")
    from traindx.engine.errors import KBError
    from traindx.engine.loader import _pack_name, load_kb
    assert _pack_name(str(pack)) == "pack"
    with pytest.raises(KBError, match="outside the knowledge pack folder"):
        load_kb([pack], entry_point_packs=False)
