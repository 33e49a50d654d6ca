"""A harness change that can alter only some results re-probes only those (harness migrations).

Editing a common harness module changes every path's harness digest, so every stored result stops
being current. When the change can only alter results of one kind (the randomness check reworked:
only results it called frozen), opsweep/harness_migrations.json says so: per path the digest before
and after, and the text that marks the results it can alter. The test copies the harness, surveys a
tiny library, edits a common module, and checks that `opsweep run` re-probes exactly the marked
result, that `--dry-run --explain`, `explain` and the plan line say why, that merge accepts the
carried-over results as one environment (from the descriptions the run stored), and that a damaged
migrations file stops the run with one line and nothing stored lost.
"""

import json
import os
import pathlib
import shutil
import sqlite3
import subprocess
import textwrap


REPO = pathlib.Path(__file__).resolve().parents[1]
HARNESS = REPO / "python" / "opsweep"

LIBRARY = '''
import random

import torch


def double(x):
    return x * 2


def coin(x):
    return x + torch.rand_like(x)


def python_coin(x):
    return x * random.random()
'''

REGISTRY = '''
import torch

import toylib
from opsweep import case

CASES = [
    case("double", "arith", toylib.double, [torch.arange(6.0).reshape(2, 3)]),
    case("coin[random]", "arith", toylib.coin, [torch.zeros(2, 3)], check=False),
    case("python_coin[random]", "arith", toylib.python_coin, [torch.ones(2, 3)], check=False),
]
'''

FROZEN = "randomness frozen at capture"



def test_a_harness_migration_re_probes_only_the_results_it_can_change(binary, tmp_path, python_with_torch):
    python = python_with_torch
    site = tmp_path / "site"
    shutil.copytree(HARNESS, site / "opsweep", ignore=shutil.ignore_patterns("__pycache__", "harness_migrations.json"))
    (site / "toylib.py").write_text(textwrap.dedent(LIBRARY).lstrip(), encoding="utf-8")
    registry = tmp_path / "cases_toy.py"
    registry.write_text(textwrap.dedent(REGISTRY).lstrip(), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(site), OPSWEEP_PYTHON=python)
    env.pop("OPSWEEP_WORKER_CMD", None)
    db = tmp_path / "r.db"

    def opsweep(*args, ok=True):
        proc = subprocess.run([str(binary), *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
        if ok:
            assert proc.returncode == 0, proc.stderr
        return proc

    def run(*extra, ok=True):
        return opsweep("run", "--cases", str(registry), "--paths", "export,compile", "--db", str(db), "-j", "1",
                       "--timeout", "300", *extra, ok=ok)

    def digests():
        out = subprocess.run([python, "-m", "opsweep.paths"], env=env, capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    def stored():
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            return {(c, p): (s, json.loads(k)["harness"], f)
                    for c, p, s, k, f in con.execute("SELECT case_name, path, status, key_fields_json, finished FROM results")}
        finally:
            con.close()

    first = run()
    assert "6 jobs planned (from 3 cases x 2 paths): 6 to run: 6 new; 0 current" in first.stderr
    before = stored()
    # torch.export reads Python's random once: frozen; Dynamo replays it per call
    assert before[("python_coin[random]", "export")][0] == "mismatch"
    assert before[("python_coin[random]", "compile")][0] == "ok-unverified"
    old = digests()
    assert {h for (_, p), (_, h, _) in before.items()} == {old["export"], old["compile"]}

    # A change to a common module: every path's digest changes, and without a migration every
    # result runs again.
    compare = site / "opsweep" / "compare.py"
    compare.write_text(compare.read_text(encoding="utf-8") + "\n# reworded, behaviour unchanged\n", encoding="utf-8")
    new = digests()
    assert new["export"] != old["export"] and new["compile"] != old["compile"]
    plan = run("--dry-run")
    assert "6 to run: 6 harness changed; 0 current" in plan.stderr

    # The migration: results the change can alter are those whose record says FROZEN.
    migrations = site / "opsweep" / "harness_migrations.json"
    migrations.write_text(json.dumps({"migrations": [{
        "id": "test-rewording", "why": "compare.py reworded",
        "rerun_if_record_contains": [FROZEN],
        "from": {p: old[p] for p in ("export", "compile")},
        "to": {p: new[p] for p in ("export", "compile")},
    }]}), encoding="utf-8")
    assert digests() == new  # the migrations file is in no digest
    plan = run("--dry-run", "--explain")
    assert "1 to run: 1 harness changed; 5 current" in plan.stderr
    assert plan.stdout.splitlines() == [
        "python_coin[random] export: the harness code of path export changed; migration test-rewording "
        f"re-runs the results whose record says '{FROZEN}', as this one does",
        "migration test-rewording (1 job): compare.py reworded"]
    explain = opsweep("explain", "double", "--path", "export", "--cases", str(registry), "--db", str(db))
    assert ("measured under an earlier harness of path export, which migration test-rewording carries over"
            in explain.stdout), explain.stdout

    # A run under the new harness that leaves the marked result (here: --only another case) records
    # the new descriptions; merge then names that result as stale, not as another environment.
    partial = run("--only", "double")
    assert "0 to run" in partial.stderr, partial.stderr
    early = opsweep("merge", "--db", str(db), "-o", str(tmp_path / "early.json"), ok=False)
    assert early.returncode != 0 and not (tmp_path / "early.json").exists()
    assert ("1 result measured under an earlier harness is stale: migration test-rewording re-runs the results whose "
            f"record says '{FROZEN}' (python_coin[random] / export); finish them with `opsweep run`") in early.stderr
    assert "different environments" not in early.stderr, early.stderr

    second = run()
    assert "1 to run: 1 harness changed; 5 current" in second.stderr
    after = stored()
    changed = {k for k in after if after[k] != before[k]}
    assert changed == {("python_coin[random]", "export")}
    assert after[("python_coin[random]", "export")][1] == new["export"]
    assert run("--dry-run").stderr.count("0 to run") == 1

    # Merge takes the carried-over results and the re-probed one as one environment.
    snapshot = tmp_path / "snapshot.json"
    merge = opsweep("merge", "--db", str(db), "-o", str(snapshot))
    records = {r["name"]: r for r in json.loads(snapshot.read_text(encoding="utf-8"))["records"]}
    assert records["double"]["paths"]["export"]["status"] == "ok", merge.stderr
    assert records["python_coin[random]"]["paths"]["export"]["status"] == "mismatch"

    # Merge needs no worker: the run stored each path's migrations with its description.
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        last = json.loads(con.execute("SELECT paths_json FROM runs ORDER BY id DESC LIMIT 1").fetchone()[0])
    finally:
        con.close()
    export = next(p for p in last if p["id"] == "export")
    assert export["harness"] == new["export"]
    assert export["migrations"] == [{"id": "test-rewording", "from": old["export"], "to": new["export"],
                                     "why": "compare.py reworded", "rerun_if_record_contains": [FROZEN]}]

    # A damaged migrations file: one line that names it, a non-zero exit, nothing stored changed.
    migrations.write_text('{"migrations": [{"id": "x"}]}', encoding="utf-8")
    bad = run(ok=False)
    assert bad.returncode != 0
    assert "harness_migrations.json: migration 1: needs a non-empty 'id' and 'why'" in bad.stderr
    assert stored() == after
