"""`traindx mcp`: the engine as MCP tools over stdio, driven by the official SDK's own client.

Each test starts the real server (`python -m traindx.engine mcp`) as a subprocess and talks to it
with `mcp.client.stdio.stdio_client` + `ClientSession`. Two tests need no `mcp` at all: the CLI
must import without it, and `traindx mcp` without it is a one-line usage error (exit 2).
"""

import json
import math
import os
import subprocess
import sys

import pytest


REQUIRED_TOOLS = {"start_diagnosis", "add_facts", "next_question", "answer", "get_report", "explain", "why", "how",
                  "list_sessions", "end_session"}
TIMEOUT = 25


def _mcp():
    return pytest.importorskip("mcp")


def _drive(tmp_path, scenario, *server_args):
    """Start the server, initialize a ClientSession, run ``await scenario(client)``, return its result."""
    _mcp()
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "traindx.engine", "mcp", *server_args],
                                   env=dict(os.environ), cwd=str(tmp_path))
    errlog_path = tmp_path / "server-stderr.txt"

    async def main():
        with open(errlog_path, "w") as errlog, anyio.fail_after(TIMEOUT):
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as client:
                    await client.initialize()
                    return await scenario(client)

    try:
        return anyio.run(main)
    except BaseException:
        if errlog_path.exists():
            sys.stderr.write("server stderr:\n" + errlog_path.read_text()[-4000:])
        raise


async def call(client, name, **arguments):
    """A tool call that must succeed: its JSON result (structured content and text agree)."""
    res = await client.call_tool(name, arguments)
    text = res.content[0].text if res.content else ""
    assert not res.is_error, f"{name} failed: {text}"
    data = json.loads(text)
    if isinstance(data, dict):
        assert res.structured_content == data
    return data


async def fail(client, name, **arguments):
    """A tool call that must be an error result with a one-line message: (message, structured content)."""
    res = await client.call_tool(name, arguments)
    assert res.is_error, f"{name}({arguments}) should have failed, got {res.content}"
    assert len(res.content) == 1 and res.content[0].type == "text"
    message = res.content[0].text
    assert message and "\n" not in message and "Traceback" not in message, message
    return message, res.structured_content


# ------------------------------------------------------------------------------------------ no mcp
def test_cli_imports_without_mcp():
    code = ("import sys; sys.modules['mcp'] = None\n"
            "import traindx.engine.frontends.cli, traindx.engine.frontends.mcp_server\n"
            "print(sorted(m for m in sys.modules if m == 'torch' or m.startswith('mcp.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_mcp_command_without_the_sdk_is_a_usage_error():
    code = ("import sys; sys.modules['mcp'] = None\n"
            "from traindx.engine.frontends.cli import main\n"
            "main(['mcp'], prog_name='traindx')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                         stdin=subprocess.DEVNULL)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install 'traindx[mcp]'" in lines[0], out.stderr
    assert out.stdout == ""


# ------------------------------------------------------------------------------------------ the server
def test_lists_documented_tools(tmp_path):
    async def scenario(client):
        return (await client.list_tools()).tools

    tools = {t.name: t for t in _drive(tmp_path, scenario)}
    assert REQUIRED_TOOLS <= set(tools)
    assert {"read_code", "read_config", "read_log"} <= set(tools)
    for t in tools.values():
        assert t.description and len(t.description) > 40, t.name
        schema = t.input_schema
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        for prop, spec in schema["properties"].items():
            assert spec.get("description"), f"{t.name}.{prop} has no description"
    assert set(tools["start_diagnosis"].input_schema["properties"]) == {"complaint", "facts", "kb_dirs"}
    assert tools["start_diagnosis"].input_schema["required"] == []
    assert set(tools["answer"].input_schema["required"]) == {"session_id", "question_id", "answer"}
    assert tools["get_report"].input_schema["properties"]["format"]["enum"][:2] == ["json", "markdown"]
    assert tools["explain"].annotations.read_only_hint is True


def test_full_diagnosis(tmp_path):
    async def scenario(client):
        start = await call(client, "start_diagnosis", complaint="loss flat from epoch 0")
        assert set(start) >= {"session_id", "understood", "symptom", "next_question", "misdiagnosis", "pressure",
                              "deferral"}
        assert start["understood"]["symptom"]["id"] == "not_learning"
        assert start["understood"]["symptom"]["phrase"] in "loss flat from epoch 0"
        sid = start["session_id"]
        assert start["symptom"]["id"] == "not_learning"
        assert start["deferral"] is None and start["misdiagnosis"] is None and start["pressure"] is None
        q = start["next_question"]
        assert q["id"] in ("learning_rate", "loss_value") and q["text"] and q["hint"] and q["why"]
        assert await call(client, "next_question", session_id=sid) == q

        why = await call(client, "why", session_id=sid, question_id="learning_rate")
        assert "lr_too_low" in why["text"]

        a1 = await call(client, "answer", session_id=sid, question_id="learning_rate", answer="1e-7")
        assert a1["accepted"] is True and a1["recorded"] == [{"fact": "learning_rate", "value": 1e-7, "source": "user"}]
        a2 = await call(client, "answer", session_id=sid, question_id="loss_value", answer="2.302, 10")
        assert a2["accepted"] is True and {r["fact"] for r in a2["recorded"]} == {"current_loss", "num_classes"}
        assert a2["leading"][0]["id"] == "lr_too_low"

        report = await call(client, "get_report", session_id=sid, format="json")
        assert report["status"] == "diagnosed"
        assert report["root_causes"][0]["id"] == "lr_too_low"
        assert [qq["id"] for qq in report["questions"]][:2] == ["learning_rate", "loss_value"]
        assert (await call(client, "get_report", session_id=sid))["root_causes"][0]["id"] == "lr_too_low"

        res = await client.call_tool("get_report", {"session_id": sid, "format": "markdown"})
        assert not res.is_error
        markdown = res.content[0].text
        assert "### Root Cause" in markdown and "### Symptom Identified" in markdown and "lr_too_low" in markdown

        how = await call(client, "how", session_id=sid)
        assert how["text"].startswith("lr_too_low") and "learning_rate" in how["text"]
        assert "symptom" in (await call(client, "how", session_id=sid, cause="symptom"))["text"]

        listed = await call(client, "list_sessions")
        assert [s["session_id"] for s in listed["sessions"]] == [sid]
        assert listed["sessions"][0]["symptom"] == "not_learning"

        back = await call(client, "back", session_id=sid)
        assert back["undone"] == "loss_value"
        # lr=1e-7 alone may already decide; otherwise the undone question comes back
        assert back["next_question"] is None or back["next_question"]["id"] == "loss_value"

        assert await call(client, "end_session", session_id=sid) == {"ended": sid}
        message, _ = await fail(client, "next_question", session_id=sid)
        assert "unknown session" in message
        return True

    assert _drive(tmp_path, scenario)


def test_explain(tmp_path):
    async def scenario(client):
        rc = await call(client, "explain", id="lr_too_low")
        assert rc["kind"] == "root_cause" and rc["text"].startswith("lr_too_low") and "What NOT to do" in rc["text"]
        q = await call(client, "explain", id="learning_rate")
        assert q["kind"] in ("question", "fact") and "learning" in q["text"]
        facts = await call(client, "explain", id="facts")
        assert facts["kind"] == "list" and "learning_rate" in {i["id"] for i in facts["items"]}
        message, _ = await fail(client, "explain", id="lr_too_lo")
        assert "lr_too_low" in message          # did you mean
        return True

    assert _drive(tmp_path, scenario)


def test_malformed_requests_are_error_results_and_the_server_keeps_serving(tmp_path):
    async def scenario(client):
        sid = (await call(client, "start_diagnosis", complaint="loss flat from epoch 0"))["session_id"]

        message, _ = await fail(client, "next_question", session_id="no-such-session")
        assert "unknown session" in message and "no-such-session" in message
        message, _ = await fail(client, "answer", session_id="no-such-session", question_id="learning_rate",
                                answer="1e-3")
        assert "unknown session" in message

        message, data = await fail(client, "answer", session_id=sid, question_id="learning_rate", answer="fast")
        assert "learning_rate" in message and "fast" in message
        assert data["accepted"] is False and data["next_question"]["id"] == "learning_rate"

        message, _ = await fail(client, "answer", session_id=sid, question_id="no_such_question", answer="1")
        assert "unknown question" in message

        message, _ = await fail(client, "add_facts", session_id=sid, facts={"learning_rat": 0.1})
        assert "unknown fact 'learning_rat'" in message and "learning_rate" in message
        # all or nothing: a bad fact next to a good one adds neither
        message, _ = await fail(client, "add_facts", session_id=sid, facts={"batch_size": 32, "uses_amp": "perhaps"})
        assert "uses_amp" in message

        message, _ = await fail(client, "answer", session_id=sid, question_id="learning_rate")
        assert "missing argument 'answer'" in message
        message, _ = await fail(client, "add_facts", session_id=sid, facts="lr=0.1")
        assert "'facts' must be an object" in message
        message, _ = await fail(client, "start_diagnosis", complaint=42)
        assert "'complaint' must be a string" in message
        message, _ = await fail(client, "get_report", session_id=sid, format="html")
        assert "markdown" in message
        message, _ = await fail(client, "next_question", session_id=sid, sesion_id=sid)
        assert "unknown argument 'sesion_id'" in message
        message, _ = await fail(client, "how", session_id=sid, cause="not_a_cause")
        assert "not a root cause" in message
        message, _ = await fail(client, "why", session_id=sid, question_id="nope")
        assert "unknown question" in message
        message, _ = await fail(client, "read_log", session_id=sid, path="missing.csv")
        assert "not found" in message
        message, _ = await fail(client, "no_such_tool")
        assert "unknown tool" in message

        # still serving, and the failed calls changed nothing
        q = await call(client, "next_question", session_id=sid)
        assert q["id"] == "learning_rate"
        ok = await call(client, "answer", session_id=sid, question_id="learning_rate", answer="1e-7")
        assert ok["accepted"] is True
        report = await call(client, "get_report", session_id=sid)
        assert "batch_size" not in {f["fact"] for f in report["facts"]}
        return True

    assert _drive(tmp_path, scenario)


def test_facts_and_files_feed_the_session(tmp_path):
    with open(tmp_path / "metrics.csv", "w") as fh:
        fh.write("step,loss\n")
        for i in range(200):
            fh.write(f"{i},{math.log(10) + 0.002 * math.sin(i)}\n")
    (tmp_path / "config.yaml").write_text("optimizer: adam\nlr: 1.0e-7\nbatch_size: 64\n")

    async def scenario(client):
        start = await call(client, "start_diagnosis", facts={"num_classes": 10})
        sid = start["session_id"]
        assert start["symptom"] is None and start["next_question"]["id"] == "loss_behavior"
        log = await call(client, "read_log", session_id=sid, path="metrics.csv")
        assert log["symptom"]["id"] == "not_learning"
        assert any(a["source"].startswith("log:metrics.csv") for a in log["added"])
        cfg = await call(client, "read_config", session_id=sid, path=str(tmp_path / "config.yaml"))
        assert {"fact": "learning_rate", "value": 1e-7} in [{k: a[k] for k in ("fact", "value")} for a in cfg["added"]]
        assert cfg["leading"][0]["id"] == "lr_too_low"
        added = await call(client, "add_facts", session_id=sid, facts={"frozen_params": []}, source="probe:grads")
        assert added["added"][0]["source"] == "probe:grads"
        report = await call(client, "get_report", session_id=sid)
        assert report["root_causes"][0]["id"] == "lr_too_low"
        assert report["root_causes"][0]["confidence"] >= 0.5
        return True

    assert _drive(tmp_path, scenario)


def test_start_diagnosis_says_what_it_understood_and_takes_a_correction():
    """The agent sees the symptom with the phrase it came from and each fact with its span, and
    corrects a misreading with add_facts (engine layer: no mcp package needed)."""
    from traindx.engine.frontends.mcp_server import Engine
    e = Engine()
    text = "my val loss started climbing after epoch 12 while training loss kept falling; bs=64, adamw at 3e-4"
    start = e.call("start_diagnosis", {"complaint": text})
    u = start["understood"]
    assert u["symptom"]["id"] == "overfitting"
    a, b = u["symptom"]["span"]
    assert text[a:b] == u["symptom"]["phrase"] and "climbing" in u["symptom"]["phrase"]
    facts = {f["fact"]: f for f in u["facts"]}
    assert facts["batch_size"]["value"] == 64 and facts["optimizer"]["value"] == "adamw"
    assert facts["learning_rate"]["value"] == 3e-4
    for f in u["facts"]:
        a, b = f["span"]
        assert text[a:b] == f["phrase"]
    fixed = e.call("add_facts", {"session_id": start["session_id"], "facts": {"learning_rate": 3e-3}})
    assert fixed["added"][0]["value"] == 3e-3
    report = e.call("get_report", {"session_id": start["session_id"]})
    assert {"fact": "learning_rate", "value": 3e-3, "source": "user"} in report["facts"]
