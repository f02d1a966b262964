"""The decision graph: symptoms → questions → facts → rules → root causes → fixes → references.

Built with networkx from a loaded knowledge base. ``traindx kb check`` uses it to find what no
path reaches; ``traindx kb graph`` exports it as DOT, Mermaid or JSON (node-link).
"""

from __future__ import annotations

import json

import networkx as nx


def node(kind: str, ident: str) -> str:
    return f"{kind}:{ident}"


def build_graph(kb) -> nx.DiGraph:
    g = nx.DiGraph()
    for sid, s in kb.symptoms.items():
        g.add_node(node("symptom", sid), kind="symptom", label=s["name"])
        for qid in s.get("questions", []):
            g.add_edge(node("symptom", sid), node("question", qid), rel="asks")
        for cid, p in s.get("priors", {}).items():
            g.add_edge(node("symptom", sid), node("root_cause", cid), rel="usually", weight=p)
    for qid, q in kb.questions.items():
        g.add_node(node("question", qid), kind="question", label=q["text"])
        for f in q["facts"]:
            g.add_edge(node("question", qid), node("fact", f), rel="sets")
        for src in q.get("answered_by", []):
            g.add_edge(node("source", src), node("question", qid), rel="answers")
    for sid, src in kb.sources.items():
        g.add_node(node("source", sid), kind="source", label=src["description"])
        for f in src["facts"]:
            g.add_edge(node("source", sid), node("fact", f), rel="measures")
    for fid, f in kb.facts.items():
        g.add_node(node("fact", fid), kind="fact", label=f["description"])
    for rid, r in kb.rules.items():
        g.add_node(node("rule", rid), kind="rule", label=r.description, salience=r.salience)
        for f in sorted(r.reads | r.set_reads):
            g.add_edge(node("fact", f), node("rule", rid), rel="read by")
        for f in r.sets:
            g.add_edge(node("rule", rid), node("fact", f), rel="derives")
        for cause, lr in r.evidence:
            g.add_edge(node("rule", rid), node("root_cause", cause), rel="supports" if lr > 1 else "argues against",
                       weight=lr)
    for cid, c in kb.root_causes.items():
        g.add_node(node("root_cause", cid), kind="root_cause", label=c["name"])
        g.add_edge(node("root_cause", cid), node("fix", c["fix"]), rel="fixed by")
    for fid, f in kb.fixes.items():
        g.add_node(node("fix", fid), kind="fix", label=f["summary"])
        g.add_edge(node("fix", fid), node("reference", f["reference"]), rel="reference")
    for ref in kb.references:
        g.add_node(node("reference", ref), kind="reference", label=ref)
    return g


def check_graph(kb, g: nx.DiGraph | None = None) -> list[str]:
    """Warnings about what the graph shows no path to (errors were raised at load time)."""
    g = g or build_graph(kb)
    warnings = []
    for qid in kb.questions:
        n = node("question", qid)
        facts = [v for v in g.successors(n)]
        if not any(g.out_degree(f) for f in facts) and not g.in_degree(n):
            warnings.append(f"question {qid}: no symptom asks it and no rule reads what it sets")
    for ref in kb.references:
        if not g.in_degree(node("reference", ref)) and not any(s.get("reference") == ref for s in kb.symptoms.values()):
            warnings.append(f"reference {ref}: no fix or symptom points to it")
    for fid in kb.fixes:
        if not g.in_degree(node("fix", fid)):
            warnings.append(f"fix {fid}: no root cause uses it")
    for cid in kb.root_causes:
        supported = [u for u, _, d in g.in_edges(node("root_cause", cid), data=True) if d.get("rel") == "supports"]
        if not supported:
            warnings.append(f"root cause {cid}: only priors reach it — no evidence rule supports it")
    return warnings


def subgraph_for_symptom(g: nx.DiGraph, symptom: str) -> nx.DiGraph:
    """Everything reachable from one symptom, plus the rules and sources feeding what it reaches."""
    start = node("symptom", symptom)
    keep = set(nx.descendants(g, start)) | {start}
    causes = {n for n in keep if n.startswith("root_cause:")}
    for c in causes:
        for u in g.predecessors(c):
            if u.startswith("rule:"):
                keep.add(u)
                keep |= {f for f in g.predecessors(u)}
    return g.subgraph(keep).copy()


def _mermaid_id(n: str) -> str:
    return n.replace(":", "__").replace("-", "_")


def export(g: nx.DiGraph, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(nx.node_link_data(g, edges="edges"), indent=1, default=str)
    if fmt == "mermaid":
        lines = ["flowchart LR"]
        for n, d in g.nodes(data=True):
            label = n.split(":", 1)[1]
            shape = {"symptom": ("([", "])"), "root_cause": ("[[", "]]"), "rule": ("{{", "}}"),
                     "question": ("[/", "/]")}.get(
                d.get("kind", ""), ("[", "]"))
            lines.append(f"  {_mermaid_id(n)}{shape[0]}\"{label}\"{shape[1]}")
        for u, v, d in g.edges(data=True):
            lines.append(f"  {_mermaid_id(u)} -->|{d.get('rel', '')}| {_mermaid_id(v)}")
        return "\n".join(lines) + "\n"
    if fmt == "dot":
        lines = ["digraph traindx {", "  rankdir=LR;", "  node [fontsize=10];"]
        shapes = {"symptom": "ellipse", "question": "parallelogram", "fact": "note", "rule": "hexagon",
                  "root_cause": "box3d", "fix": "component", "reference": "folder", "source": "cds"}
        for n, d in g.nodes(data=True):
            lines.append(f'  "{n}" [shape={shapes.get(d.get("kind", ""), "box")}];')
        for u, v, d in g.edges(data=True):
            lines.append(f'  "{u}" -> "{v}" [label="{d.get("rel", "")}"];')
        lines.append("}")
        return "\n".join(lines) + "\n"
    raise ValueError(f"unknown graph format {fmt!r}")
