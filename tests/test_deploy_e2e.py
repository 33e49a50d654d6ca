"""The deployment paths end to end (docs/deployment.md): the unchanged engine runs the aoti and
executorch paths with a real worker (real torch, AOTInductor, ExecuTorch) over a tiny library,
merges them into a snapshot whose header carries their descriptions and whose executorch outcomes
carry what XNNPACK took (the path's facts), renders the page (the share beside the verdict, the
filter "runs, but not delegated" in headless Chromium), diffs two snapshots and renders a history
page like any path's. One run per module: an AOTInductor compile takes tens of seconds.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import sqlite3
import subprocess
import textwrap

import pytest
from selenium.webdriver.support.ui import Select

pytest.importorskip("executorch", reason="the executorch path needs executorch (requirements.txt)")

REPO = pathlib.Path(__file__).resolve().parents[1]
HARNESS = REPO / "python" / "opsweep"

LIBRARY = '''
import torch


def scale_shift(x):
    return x * 2.0 + 1.0


def running_sum(x):
    return x.cumsum(-1)


def noise(x):
    return x + torch.rand_like(x)
'''

REGISTRY = '''
import torch

import deploylib
from opsweep import case

torch.manual_seed(0)
CASES = [
    case("scale_shift", "arith", deploylib.scale_shift, [torch.rand(1, 3, 8, 8)]),
    case("running_sum", "arith", deploylib.running_sum, [torch.rand(2, 16)]),
    case("noise[random]", "misc", deploylib.noise, [torch.rand(2, 16)], check=False),
]
'''


@pytest.fixture(scope="module")
def survey(binary, tmp_path_factory, python_with_torch):
    """The run, its database and the merged snapshot."""
    tmp = tmp_path_factory.mktemp("deploy")
    site = tmp / "site"
    site.mkdir()
    (site / "deploylib.py").write_text(textwrap.dedent(LIBRARY).lstrip(), encoding="utf-8")
    registry = tmp / "cases_deploy.py"
    registry.write_text(textwrap.dedent(REGISTRY).lstrip(), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=f"{site}{os.pathsep}{REPO / 'python'}", OPSWEEP_PYTHON=python_with_torch)
    env.pop("OPSWEEP_WORKER_CMD", None)
    db = tmp / "r.db"
    run = subprocess.run([str(binary), "run", "--cases", str(registry), "--paths", "aoti,executorch", "--db", str(db),
                          "-j", "1", "--timeout", "1800", "--startup-timeout", "600"],
                         cwd=tmp, env=env, capture_output=True, text=True, timeout=7200)
    assert run.returncode == 0, run.stderr
    snapshot = tmp / "snapshot.json"
    merge = subprocess.run([str(binary), "merge", "--db", str(db), "-o", str(snapshot)], capture_output=True, text=True,
                           timeout=300)
    assert merge.returncode == 0, merge.stderr + merge.stdout
    return {"tmp": tmp, "db": db, "run": run, "snapshot": snapshot, "env": env, "registry": registry}


def records_of(db):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return {(c, p): (s, json.loads(k), json.loads(r))
                for c, p, s, k, r in con.execute("SELECT case_name, path, status, key_fields_json, record_json FROM results")}
    finally:
        con.close()


def test_both_paths_are_planned_keyed_and_run(survey):
    assert "6 jobs planned (from 3 cases x 2 paths)" in survey["run"].stderr
    rows = records_of(survey["db"])
    statuses = {k: (v[0], v[2]["step"]) for k, v in rows.items()}
    assert statuses[("scale_shift", "aoti")] == ("ok", "")
    assert statuses[("scale_shift", "executorch")] == ("ok", "")
    assert statuses[("running_sum", "executorch")] == ("ok", "")
    assert statuses[("noise[random]", "executorch")] == ("fail", "edge")
    # the keys hold each path's own environment field: an executorch upgrade re-keys executorch jobs only
    et_key, aoti_key = rows[("scale_shift", "executorch")][1], rows[("scale_shift", "aoti")][1]
    assert et_key["executorch"].startswith("1.5") and "executorch" not in aoti_key
    assert aoti_key["cxx"].startswith("g++") and "cxx" not in et_key
    # the records keep what the issue asks: package size and compile time; what XNNPACK took
    assert rows[("scale_shift", "aoti")][2]["aoti"]["package_kb"] > 0
    assert rows[("scale_shift", "aoti")][2]["aoti"]["compile_s"] > 0
    et = rows[("running_sum", "executorch")][2]["executorch"]
    assert (et["portable"], et["not_delegated"]) == ({"aten.cumsum.default": 1}, True)


def test_the_snapshot_carries_descriptions_facts_and_classified_failures(survey):
    data = json.loads(survey["snapshot"].read_text(encoding="utf-8"))
    assert [p["id"] for p in data["paths"]] == ["aoti", "executorch"]
    et_path = data["paths"][1]
    assert et_path["group"] == "deployment targets" and et_path["reproducible"] is True
    assert [f["id"] for f in et_path["facts"]] == ["delegated", "portable", "program_kb", "not_delegated",
                                                   "partly_delegated"]
    assert data["environment"]["executorch"].startswith("1.5") and data["environment"]["cxx"].startswith("g++")
    records = {r["name"]: r for r in data["records"]}
    facts = records["running_sum"]["paths"]["executorch"]["facts"]
    assert facts["delegated"] == 0 and facts["portable"] == {"aten.cumsum.default": 1} and facts["not_delegated"] is True
    assert records["scale_shift"]["paths"]["executorch"]["facts"]["delegated"] == 1
    assert "facts" not in records["scale_shift"]["paths"]["aoti"]  # a path without facts keeps its bytes
    noise = records["noise[random]"]["paths"]["executorch"]
    assert noise["reason"] == "executorch-edge-refused"
    assert noise["detail"].startswith("torch.rand_like is not a core ATen operator")
    assert "facts" not in noise


def test_the_page_shows_the_share_and_filters_runs_but_not_delegated(survey, binary, browser):
    out = survey["tmp"] / "page"
    render = subprocess.run([str(binary), "render", str(survey["snapshot"]), "-o", str(out)], capture_output=True,
                            text=True, timeout=120)
    assert render.returncode == 0, render.stderr
    md = (out / "page.md").read_text(encoding="utf-8")
    assert "yes, XNNPACK 0%" in md and "yes, XNNPACK 100%" in md
    assert "operators on portable kernels: aten.cumsum.default" in md
    assert "XNNPACK 0%" in (out / "page.rst").read_text(encoding="utf-8")
    browser.get("about:blank")
    browser.get((out / "index.html").as_uri())
    select = Select(browser.find_element("id", "f"))
    values = [o.get_attribute("value") for o in select.options]
    assert "executorch:flag:not_delegated" in values and "executorch:flag:partly_delegated" in values
    select.select_by_value("executorch:flag:not_delegated")
    shown = browser.execute_script(
        "return Array.from(document.querySelectorAll('tr[data-s]')).filter(tr => tr.checkVisibility())"
        ".map(tr => tr.dataset.name)")
    assert shown == ["running_sum"]
    assert select.first_selected_option.text.endswith("runs, but not delegated to XNNPACK (1)")
    assert browser.current_url.endswith("#f=executorch:flag:not_delegated")
    browser.get("about:blank")
    browser.get((out / "index.html").as_uri() + "#f=executorch:flag:not_delegated")  # the state comes back
    assert Select(browser.find_element("id", "f")).first_selected_option.get_attribute("value") == "executorch:flag:not_delegated"


def test_diff_and_history_treat_them_like_any_path(survey, binary):
    tmp = survey["tmp"]
    data = json.loads(survey["snapshot"].read_text(encoding="utf-8"))
    older = json.loads(json.dumps(data))
    older["environment"]["torch"] = "2.12.0"
    rs = next(r for r in older["records"] if r["name"] == "running_sum")
    rs["paths"]["executorch"]["facts"]["delegated"] = 0.5  # what XNNPACK took changed: a detail change
    ss = next(r for r in older["records"] if r["name"] == "scale_shift")
    ss["paths"]["aoti"].update(status="fail", step="compile", reason="aoti-compile-error", detail="", error="x")
    older["reasons"]["aoti-compile-error"] = {"title": "t", "cause": "c", "hint": "h", "component": "inductor"}
    old_path = tmp / "older" / "snapshot.json"
    old_path.parent.mkdir(exist_ok=True)
    old_path.write_text(json.dumps(older, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    d = subprocess.run([str(binary), "diff", str(old_path), str(survey["snapshot"]), "--format", "json"],
                       capture_output=True, text=True, timeout=120)
    assert d.returncode == 0, d.stderr  # a progression and a detail change: nothing regressed
    report = json.loads(d.stdout)
    kinds = {(c["case"], c["path"]): (c["kind"], c["fields"]) for c in report["changes"]}
    assert kinds[("scale_shift", "aoti")][0] == "progression"
    assert kinds[("running_sum", "executorch")] == ("detail", ["facts"])
    back = subprocess.run([str(binary), "diff", str(survey["snapshot"]), str(old_path)], capture_output=True, text=True,
                          timeout=120)
    assert back.returncode == 1  # the other way round, the aoti change is a regression
    assert "facts" in back.stdout and "delegated 0.5" in back.stdout
    page = tmp / "history"
    h = subprocess.run([str(binary), "render", str(old_path), str(survey["snapshot"]), "-o", str(page)],
                       capture_output=True, text=True, timeout=120)
    assert h.returncode == 0, h.stderr
    md = (page / "page.md").read_text(encoding="utf-8")
    assert "AOTInductor" in md and "ExecuTorch (XNNPACK)" in md and "2.12.0" in md


def test_repro_writes_a_standalone_script_for_each(survey, binary, tmp_path):
    for path, case_name, needle in (("executorch", "noise[random]", "to_edge_transform_and_lower"),
                                    ("aoti", "scale_shift", "aoti_compile_and_package")):
        out = tmp_path / path
        p = subprocess.run([str(binary), "repro", case_name, "--path", path, "--cases", str(survey["registry"]),
                            "-o", str(out)], cwd=survey["tmp"], env=survey["env"], capture_output=True, text=True,
                           timeout=1800)
        assert p.returncode == 0, p.stderr
        script = (out / "repro.py").read_text(encoding="utf-8")
        assert needle in script and "import opsweep" not in script and "from opsweep" not in script
    # the executorch script shows the edge failure by itself, without opsweep on the path
    env = {k: v for k, v in survey["env"].items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(survey["tmp"] / "site")
    ran = subprocess.run([survey["env"]["OPSWEEP_PYTHON"], "repro.py"], cwd=tmp_path / "executorch", env=env,
                         capture_output=True, text=True, timeout=1800)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "not in Core ATen opset" in ran.stdout + ran.stderr
    assert ran.stdout.strip().splitlines()[-1].startswith("opsweep-repro:")
