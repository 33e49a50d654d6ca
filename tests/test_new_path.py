"""A new capture path is one new harness module: nothing else changes (issue 10).

The test copies the harness (python/opsweep) to a temporary folder, adds one file,
opsweep/paths/toy.py, and drives the unchanged binary with a real worker (real torch) over a tiny
library: the toy path is planned, keyed with its own fields, scheduled, merged into the snapshot's
header and records, and shown on the page with its title and description. The library is a
single-file module that is not an installed distribution, so the page also shows an unversioned
library (issue 11, item 9).
"""

import filecmp
import json
import os
import pathlib
import shutil
import sqlite3
import subprocess
import textwrap


REPO = pathlib.Path(__file__).resolve().parents[1]
HARNESS = REPO / "python" / "opsweep"

TOY_PATH = '''
"""The ``toy`` path: the target called a second time, compared with the eager reference."""

from __future__ import annotations

from opsweep.paths.context import ProbeContext
from opsweep.paths.spec import Outcome, PathSpec


def probe_toy(ctx: ProbeContext) -> Outcome:
    import torch

    ctx.step = "rerun"
    with torch.no_grad():
        out = ctx.module(flat_outputs=True)(*ctx.inputs())
    return ctx.judge(list(out))


PATH = PathSpec(
    id="toy",
    title="Toy rerun",
    label="toy",
    description="the target called a second time and compared with the first call",
    steps=("rerun", "compare"),
    expected_seconds=0.5,
    probe=probe_toy,
    env=lambda: {"toyversion": "1.0"},
    order=40,
)
'''

LIBRARY = '''
import torch


def double(x):
    return x * 2


def coin(x):
    return x + torch.rand_like(x)


def broken(x):
    raise ValueError("broken on purpose")
'''

REGISTRY = '''
import torch

import toylib
from opsweep import case

CASES = [
    case("double", "arith", toylib.double, [torch.arange(6.0).reshape(2, 3)]),
    case("coin[random]", "arith", toylib.coin, [torch.zeros(2, 3)], check=False),
    case("broken", "misc", toylib.broken, [torch.zeros(2)]),
]
'''



def test_a_toy_path_is_one_new_module(binary, tmp_path, python_with_torch):
    python = python_with_torch
    site = tmp_path / "site"
    shutil.copytree(HARNESS, site / "opsweep", ignore=shutil.ignore_patterns("__pycache__"))
    (site / "opsweep" / "paths" / "toy.py").write_text(TOY_PATH.lstrip(), encoding="utf-8")
    (site / "toylib.py").write_text(textwrap.dedent(LIBRARY).lstrip(), encoding="utf-8")
    registry = tmp_path / "cases_toy.py"
    registry.write_text(textwrap.dedent(REGISTRY).lstrip(), encoding="utf-8")

    # The copy differs from the harness by exactly one new file.
    def differences(cmp, prefix=""):
        out = [f"{prefix}{n}" for n in cmp.left_only + cmp.right_only + cmp.diff_files]
        for name, sub in cmp.subdirs.items():
            out += differences(sub, f"{prefix}{name}/")
        return out

    cmp = filecmp.dircmp(HARNESS, site / "opsweep", ignore=["__pycache__"])
    assert differences(cmp) == ["paths/toy.py"]

    env = dict(os.environ, PYTHONPATH=str(site), OPSWEEP_PYTHON=python)
    env.pop("OPSWEEP_WORKER_CMD", None)
    db = tmp_path / "r.db"
    run = subprocess.run([str(binary), "run", "--cases", str(registry), "--paths", "toy,export", "--db", str(db),
                          "-j", "1", "--timeout", "300"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    # Planned: 3 cases x 2 paths.
    assert "6 jobs planned (from 3 cases x 2 paths): 6 to run: 6 new; 0 current" in run.stderr

    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = {(c, p): (s, json.loads(k), json.loads(r))
                for c, p, s, k, r in con.execute("SELECT case_name, path, status, key_fields_json, record_json FROM results")}
        runs = [json.loads(p) for (p,) in con.execute("SELECT paths_json FROM runs")]
    finally:
        con.close()
    assert {k: v[0] for k, v in rows.items()} == {
        ("double", "toy"): "ok", ("double", "export"): "ok",
        ("coin[random]", "toy"): "ok-unverified", ("coin[random]", "export"): "ok-unverified",
        ("broken", "toy"): "n/a", ("broken", "export"): "n/a"}
    # Keyed: the toy path's own tags, its env field included; the export key does not carry it.
    toy_key = rows[("double", "toy")][1]
    assert list(toy_key) == ["case", "path", "harness", "python", "torch", "numpy", "device", "toyversion", "library"]
    assert toy_key["toyversion"] == "1.0"
    assert "toyversion" not in rows[("double", "export")][1]
    assert toy_key["harness"] != rows[("double", "export")][1]["harness"]
    toy = next(p for p in runs[0] if p["id"] == "toy")
    assert toy["title"] == "Toy rerun" and toy["steps"] == ["rerun", "compare"] and toy["harness"] == toy_key["harness"]

    # Merged: the header describes the toy path; records carry its outcome.
    snapshot = tmp_path / "snapshot.json"
    merge = subprocess.run([str(binary), "merge", "--db", str(db), "-o", str(snapshot)], capture_output=True, text=True,
                           timeout=120)
    assert merge.returncode == 0, merge.stderr
    data = json.loads(snapshot.read_text(encoding="utf-8"))
    assert [p["id"] for p in data["paths"]] == ["export", "toy"]  # by order: export 20, toy 40
    assert data["paths"][1] == {"id": "toy", "title": "Toy rerun", "label": "toy",
                                "description": "the target called a second time and compared with the first call",
                                "steps": ["rerun", "compare"], "env": ["python", "torch", "numpy", "device", "toyversion"],
                                "subverdicts": [], "order": 40}
    assert data["environment"]["toyversion"] == "1.0"
    assert data["library"]["name"] == "toylib" and data["library"]["version"] == ""
    records = {r["name"]: r for r in data["records"]}
    assert records["double"]["paths"]["toy"]["status"] == "ok"
    assert records["broken"]["paths"]["toy"]["reason"] == "eager-failure"

    # Rendered: the title and description come from the toy module; the library is unversioned.
    page = tmp_path / "page.md"
    html = tmp_path / "index.html"
    render = subprocess.run([str(binary), "render", str(snapshot), "--md", str(page), "--html", str(html)],
                            capture_output=True, text=True, timeout=120)
    assert render.returncode == 0, render.stderr
    md = page.read_text(encoding="utf-8")
    assert "\n# toylib (unversioned): torch.export and Toy rerun support\n" in md
    assert "| Toy rerun | 2 | 2 | 100.0% |" in md
    text = html.read_text(encoding="utf-8")
    assert "<h2>Toy rerun</h2>" in text
    assert "the target called a second time and compared with the first call" in text
    assert '<option value="toy:ok">' in text
