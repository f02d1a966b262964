"""--script under every way a script can misbehave: each run ends in a result, nothing is left running.

Scripts that flood stdout, read stdin, change directory, install signal handlers, call os._exit,
close their output, or leave background processes behind. The runner's verdict is asserted, and
every process the script started is checked dead afterwards (by pid, from a file the script
writes). Timeouts are only a backstop: no test waits for one unless the script hangs on purpose,
and no assertion compares durations.
"""

from __future__ import annotations

import os

import pytest

from test_runner import run_fake, wait_dead, write

STEPS = """
import torch
m = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(m.parameters(), lr=0.1)
for _ in range(3):
    opt.zero_grad(); m(torch.randn(4, 2)).pow(2).mean().backward(); opt.step()
"""


def _pids(path):
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def test_flooding_stdout_neither_blocks_nor_fills_memory(tmp_path):
    script = write(tmp_path / "flood.py", STEPS + """
import sys
line = "x" * 199 + "\\n"
for _ in range(150_000):            # 30 MB through the pipe
    sys.stdout.write(line)
sys.stdout.flush()
print("the end", flush=True)
""")
    r = run_fake(script, timeout=600)
    assert r.stopped_reason == "finished", (r.stopped_reason, r.stderr_tail[-500:])
    assert r.steps == 3
    assert r.stdout_tail.endswith("the end")
    assert len(r.stdout_tail) < 64_000          # a tail, not the 30 MB


def test_reading_stdin_gets_end_of_input_not_a_hang(tmp_path):
    script = write(tmp_path / "ask.py", STEPS + """
answer = input("continue? ")
print("got", repr(answer), flush=True)
""")
    r = run_fake(script, timeout=600)
    assert r.stopped_reason in ("crashed", "finished") and r.stopped_reason != "timeout"
    assert r.steps == 3
    if r.stopped_reason == "crashed":
        assert r.finding("error_message").value.startswith("EOFError")


def test_changing_directory_keeps_the_evidence_flowing(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    script = write(tmp_path / "cd.py", f"import os\nos.chdir({str(elsewhere)!r})\n" + STEPS + """
import os
os.chdir("/")
print("cwd", os.getcwd(), flush=True)
""")
    r = run_fake(script, timeout=600)
    assert r.stopped_reason == "finished"
    assert r.steps == 3 and r.finding("train_loss") is not None
    assert r.stdout_tail == "cwd /"


@pytest.mark.parametrize("code,reason", [(0, "finished"), (3, "crashed")])
def test_os_exit_mid_run_ends_in_a_result(tmp_path, code, reason):
    script = write(tmp_path / "bail.py", STEPS + f"""
import os, sys
sys.stdout.write("bye\\n"); sys.stdout.flush()
os._exit({code})
""")
    r = run_fake(script, timeout=600)
    assert r.stopped_reason == reason and r.exit_code == code
    # os._exit skips the child's exit hooks: evidence not yet sent may be lost, but the run ends in
    # a result with the script's own output and status (not a hang, not a traindx traceback)
    assert r.stdout_tail == "bye"
    if code:
        assert f"status {code}" in r.finding("error_message").value


def test_signal_handlers_in_the_script_do_not_stop_the_runner(tmp_path):
    """A script that ignores SIGINT/SIGTERM/SIGHUP and swallows every exception is still stopped
    (at --max-steps: no clock involved) and killed, with the evidence so far."""
    pidfile = tmp_path / "pids"
    script = write(tmp_path / "sigs.py", """
import os, signal, sys, time
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1):
    signal.signal(s, signal.SIG_IGN)
signal.signal(signal.SIGCHLD, lambda *a: None)
open(sys.argv[1], "w").write(str(os.getpid()))
""" + STEPS + """
while True:
    try:
        time.sleep(1000)
    except BaseException:
        pass
""")
    r = run_fake(script, [str(pidfile)], max_steps=2, timeout=600, grace=0.5)
    assert r.stopped_reason == "max_steps" and r.steps == 2
    assert r.finding("train_loss") is not None
    assert len(_pids(pidfile)) == 1 and wait_dead(_pids(pidfile), seconds=10) == []


def test_background_processes_left_by_a_finished_script_are_stopped(tmp_path):
    """The script exits normally but leaves a child in its process group and a daemon in its own
    session behind: neither outlives the run."""
    pidfile = tmp_path / "pids"
    script = write(tmp_path / "leave.py", STEPS + """
import subprocess, sys
a = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)"])
b = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)"], start_new_session=True)
open(sys.argv[1], "w").write(f"{a.pid} {b.pid}")
print("leaving", flush=True)
""")
    r = run_fake(script, [str(pidfile)], timeout=600)
    assert r.stopped_reason == "finished"
    pids = _pids(pidfile)
    assert len(pids) == 2
    assert wait_dead(pids, seconds=10) == []


def test_a_script_that_closes_its_output_still_reports(tmp_path):
    script = write(tmp_path / "quiet.py", """
import os
os.close(1); os.close(2)
""" + STEPS)
    r = run_fake(script, timeout=600)
    assert r.stopped_reason == "finished" and r.steps == 3


def test_crash_inside_a_child_process_of_the_script(tmp_path):
    """A worker process that dies (as a DataLoader worker can) while the main script goes on."""
    script = write(tmp_path / "worker.py", STEPS + """
import multiprocessing as mp, os
def work():
    os._exit(9)
if __name__ == "__main__":
    p = mp.get_context("fork").Process(target=work)
    p.start(); p.join()
    print("worker exit", p.exitcode, flush=True)
""")
    r = run_fake(script, timeout=600)
    assert r.stopped_reason == "finished" and r.stdout_tail == "worker exit 9"


def test_script_raising_keyboard_interrupt_or_system_exit_with_text(tmp_path):
    for name, tail, expect_code in (("ki.py", "raise KeyboardInterrupt", None),
                                    ("se.py", "raise SystemExit('config missing')", 1)):
        script = write(tmp_path / name, STEPS + tail + "\n")
        r = run_fake(script, timeout=600)
        assert r.stopped_reason == "crashed", (name, r.stopped_reason)
        assert r.steps == 3
        if expect_code is not None:
            assert r.exit_code == expect_code
    assert os.path.exists(tmp_path / "se.py")
