"""The kind of a crash a console log printed is knowledge (``console.error_kinds``): the shipped patterns
name the usual crashes, every kind they give is one the ``error_kind`` fact allows, and a pack teaches the
reader a message it does not know without code."""
import pytest

from traindx.engine.api import load_kb
from traindx.probes.readers.console import read_console_text

TRACE = ("epoch 1 loss 2.31\nepoch 2 loss 2.12\nTraceback (most recent call last):\n"
         "  File \"fit.py\", line 40, in <module>\n    out = net(x)\n{message}\n")


def _kind(message, params=None):
    log = read_console_text(TRACE.format(message=message), params=params)
    assert log.errors, "the exception was not read"
    return log.errors[-1]["kind"]


@pytest.mark.parametrize("message, kind", [
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", "cuda_oom"),
    ("RuntimeError: CUDA error: device-side assert triggered", "cuda_error"),
    ("RuntimeError: stack expects each tensor to be equal size, but got [3, 32, 32] at entry 0", "dataloader_error"),
    ("RuntimeError: mat1 and mat2 shapes cannot be multiplied (8x12 and 48x10)", "shape_error"),
    ("RuntimeError: expected scalar type Long but found Float", "dtype_error"),
    ("ModuleNotFoundError: No module named 'timm'", "import_error"),
    ("ValueError: the learning rate schedule ran out of milestones", "other_error"),
])
def test_a_printed_crash_gets_its_kind(message, kind):
    assert _kind(message) == kind


def test_every_kind_the_patterns_give_is_an_error_kind_the_fact_allows():
    kb = load_kb(entry_point_packs=False)
    allowed = set(kb.facts["error_kind"]["values"])
    kinds = set(kb.params()["console.error_kinds"].values())
    assert kinds and kinds <= allowed, kinds - allowed


def test_a_pack_teaches_the_reader_another_crash(tmp_path):
    message = "XlaRuntimeError: RESOURCE_EXHAUSTED: Out of HBM while trying to allocate 3.1G"
    assert _kind("RuntimeError: HBM exhausted on core 0") == "other_error"
    pack = tmp_path / "tpu"
    pack.mkdir()
    (pack / "words.yaml").write_text(
        "kind: parameters\nextends:\n  console.error_kinds:\n    'HBM exhausted|RESOURCE_EXHAUSTED': cuda_oom\n",
        encoding="utf-8")
    params = load_kb([str(pack)], entry_point_packs=False).params()
    assert _kind("RuntimeError: HBM exhausted on core 0", params) == "cuda_oom"
    assert _kind(message, params) == "cuda_oom"


@pytest.mark.parametrize("entry, says", [
    ("'(unclosed': cuda_oom", "does not compile"),
    ("'TPU fell over': tpu_trouble", "not a value of 'error_kind'"),
])
def test_a_pack_s_bad_crash_pattern_is_one_line_at_its_file_and_line(tmp_path, entry, says):
    from traindx.engine.errors import KBError
    pack = tmp_path / "bad"
    pack.mkdir()
    (pack / "words.yaml").write_text(f"kind: parameters\nextends:\n  console.error_kinds:\n    {entry}\n",
                                     encoding="utf-8")
    with pytest.raises(KBError) as exc:
        load_kb([str(pack)], entry_point_packs=False)
    line = str(exc.value)
    assert "words.yaml:4" in line and says in line and "\n" not in line, line


def test_a_map_taking_its_meanings_from_an_unknown_fact_is_an_error(tmp_path):
    from traindx.engine.errors import KBError
    pack = tmp_path / "own"
    pack.mkdir()
    (pack / "words.yaml").write_text(
        "kind: parameters\nparameters:\n  - id: mine.crash_kinds\n    value: {'TPU': cuda_oom}\n"
        "    unit: pattern -> error kind\n    description: x\n    used_by: [log:curves]\n"
        "    keys_are: pattern\n    meanings_are_values_of: error_kynd\n", encoding="utf-8")
    with pytest.raises(KBError) as exc:
        load_kb([str(pack)], entry_point_packs=False)
    assert "error_kynd" in str(exc.value) and "words.yaml" in str(exc.value) and "\n" not in str(exc.value)


# One table for both places a crash is seen: a traceback a finished run's console printed, and a
# script that crashed under --script. The same message gets the same kind in both.
@pytest.mark.parametrize("exc_type, message, kind", [
    ("RuntimeError", "mat1 and mat2 must have the same dtype, but got Double and Float", "dtype_error"),
    ("RuntimeError", "No CUDA GPUs are available", "cuda_error"),
    ("AssertionError", "Torch not compiled with CUDA enabled", "cuda_error"),
    ("RuntimeError", "Expected 4D (batched) or 3D (unbatched) input to conv2d, but got input of size: [8, 64]",
     "shape_error"),
    ("RuntimeError", "CUDA out of memory. Tried to allocate 20.00 MiB", "cuda_oom"),
    ("RuntimeError", "[enforce fail at alloc_cpu.cpp:114] DefaultCPUAllocator: can't allocate memory: "
     "you tried to allocate 8589934592 bytes", "other_error"),
    ("ValueError", "DataLoader with IterableDataset: expected unspecified shuffle option", "dataloader_error"),
])
def test_a_crash_gets_the_same_kind_printed_in_a_log_and_raised_under_script(exc_type, message, kind):
    from traindx.probes.runner.supervise import classify_crash
    assert _kind(f"{exc_type}: {message}") == kind
    assert classify_crash([exc_type, "Exception"], message, []) == kind


def test_a_pack_s_crash_pattern_reaches_a_crashing_script(tmp_path):
    from traindx.probes.runner.supervise import run_script
    script = tmp_path / "fit.py"
    script.write_text("raise RuntimeError('HBM exhausted on core 0')\n", encoding="utf-8")
    pack = tmp_path / "tpu"
    pack.mkdir()
    (pack / "words.yaml").write_text(
        "kind: parameters\nextends:\n  console.error_kinds:\n    'HBM exhausted': cuda_oom\n", encoding="utf-8")
    plain = run_script(script, max_steps=5, timeout=120)
    taught = run_script(script, max_steps=5, timeout=120,
                        params=load_kb([str(pack)], entry_point_packs=False).params())
    assert plain.stopped_reason == taught.stopped_reason == "crashed"
    assert plain.finding("error_kind").value == "other_error"
    assert taught.finding("error_kind").value == "cuda_oom"
