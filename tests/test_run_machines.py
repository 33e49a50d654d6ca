"""Results carry across machines when only the CPU changed the inputs' bytes (docs/formats.md 4.2).

A case whose inputs are computed in float32 can get another fingerprint on another CPU. The worker
names each case's recipe (what its inputs are computed from, except the CPU); the database keeps
every (fingerprint, recipe, machine) it has seen. Here the fake worker plays the registry; the
first machine is simulated by rewriting the machine of the stored identities and runs, since a
test runs on one CPU.
"""

import json
import os
import sqlite3
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "fake_workers"))

from run_helpers import binary, fake_env, run, write_registry  # noqa: E402

OTHER = {"cpu": "Other CPU", "features": "avx2 fma"}


def test_a_fingerprint_the_same_recipe_gave_on_another_machine_keeps_its_results(tmp_path):
    db = str(tmp_path / "r.db")
    first = write_registry(tmp_path, [{"name": "lab", "do": "ok", "fingerprint": "lab-amd", "recipe": "R1"},
                                      {"name": "gray", "do": "ok", "fingerprint": "gray-1", "recipe": "R1"},
                                      {"name": "old", "do": "ok", "fingerprint": "old-amd"}], filename="first.json")
    done = run(["--cases", first, "--paths", "onnx,export", "--db", db, "-j", "1"], tmp_path)
    assert done.returncode == 0, done.stderr
    con = sqlite3.connect(db)
    try:
        identities = con.execute("SELECT fingerprint, recipe FROM case_identities ORDER BY 1").fetchall()
        # the case without a recipe (an older worker) has no identity
        assert identities == [("gray-1", "R1"), ("lab-amd", "R1")]
        # measured elsewhere: the runs and identities of that machine
        con.execute("UPDATE case_identities SET machine_json = ?", (json.dumps(OTHER),))
        con.execute("UPDATE runs SET machine_json = ?", (json.dumps(OTHER),))
        con.commit()
    finally:
        con.close()

    # This machine: lab's float32 inputs round otherwise (same recipe), old's too (no recipe known).
    second = write_registry(tmp_path, [{"name": "lab", "do": "ok", "fingerprint": "lab-intel", "recipe": "R1"},
                                       {"name": "gray", "do": "ok", "fingerprint": "gray-1", "recipe": "R1"},
                                       {"name": "old", "do": "ok", "fingerprint": "old-intel", "recipe": "R1"}],
                            filename="second.json")
    args = ["--cases", second, "--paths", "onnx,export", "--db", db, "-j", "1"]
    plan = run([*args, "--dry-run", "--explain"], tmp_path)
    assert plan.returncode == 0, plan.stderr
    assert "6 jobs planned (from 3 cases x 2 paths): 2 to run: 2 case changed (2 measured on another machine); 4 current" \
        in plan.stderr
    assert [line.split(":")[0] for line in plan.stdout.splitlines()] == ["old onnx", "old export"]

    explain = subprocess.run([binary(), "explain", "lab", "--path", "onnx", "--cases", second, "--db", db],
                             cwd=str(tmp_path), env=fake_env(), capture_output=True, text=True, timeout=60)
    assert explain.returncode == 0, explain.stderr
    assert ("current: its case's inputs, from the same sources, were computed on another machine "
            "(Other CPU, avx2 fma)") in explain.stdout, explain.stdout

    # Another recipe (a registry edit): lab's stored fingerprint no longer counts as the same case.
    third = write_registry(tmp_path, [{"name": "lab", "do": "ok", "fingerprint": "lab-intel", "recipe": "R2"},
                                      {"name": "gray", "do": "ok", "fingerprint": "gray-1", "recipe": "R2"},
                                      {"name": "old", "do": "ok", "fingerprint": "old-intel", "recipe": "R2"}],
                           filename="third.json")
    edited = run(["--cases", third, "--paths", "onnx,export", "--db", db, "-j", "1", "--dry-run"], tmp_path)
    assert "4 to run: 4 case changed (4 measured on another machine); 2 current" in edited.stderr, edited.stderr

    # The text form carries the identities: a fresh database from it plans the same.
    text = tmp_path / "results.jsonl"
    exported = subprocess.run([binary(), "results", "export", "--db", db, "-o", str(text)], capture_output=True,
                              text=True, timeout=60)
    assert exported.returncode == 0, exported.stderr
    assert text.read_text(encoding="utf-8").count('{"identity":') == 2
    fresh = str(tmp_path / "fresh.db")
    imported = subprocess.run([binary(), "results", "import", str(text), "--db", fresh], capture_output=True,
                              text=True, timeout=60)
    assert imported.returncode == 0, imported.stderr
    again = run(["--cases", second, "--paths", "onnx,export", "--db", fresh, "-j", "1", "--dry-run"], tmp_path)
    assert "2 to run: 2 case changed (2 measured on another machine); 4 current" in again.stderr, again.stderr

    # Run for real on this machine: lab's results stand, old's are measured again.
    real = run(args, tmp_path)
    assert real.returncode == 0, real.stderr
    assert "2 to run" in real.stderr and "4 current" in real.stderr

    # An edit of the library or a registry changes every recipe (R2). This machine has now computed
    # lab-intel under R1 (the run above recorded it); when it still computes lab-intel under R2, the
    # edit did not change lab's inputs, and the result measured elsewhere under R1 stands.
    edited = run(["--cases", third, "--paths", "onnx,export", "--db", db, "-j", "1", "--dry-run", "--explain"], tmp_path)
    assert "6 jobs planned (from 3 cases x 2 paths): 0 to run; 6 current" in edited.stderr, edited.stderr
    explain = subprocess.run([binary(), "explain", "lab", "--path", "onnx", "--cases", third, "--db", db],
                             cwd=str(tmp_path), env=fake_env(), capture_output=True, text=True, timeout=60)
    assert ("current: its case's inputs were computed on another machine (Other CPU, avx2 fma) from earlier "
            "sources, which gave this machine the inputs it computes now") in explain.stdout, explain.stdout
    # an edit that changes lab's inputs here too: the case changed
    fourth = write_registry(tmp_path, [{"name": "lab", "do": "ok", "fingerprint": "lab-intel-2", "recipe": "R2"},
                                       {"name": "gray", "do": "ok", "fingerprint": "gray-1", "recipe": "R2"},
                                       {"name": "old", "do": "ok", "fingerprint": "old-intel", "recipe": "R2"}],
                            filename="fourth.json")
    changed = run(["--cases", fourth, "--paths", "onnx,export", "--db", db, "-j", "1", "--dry-run", "--explain"], tmp_path)
    assert "2 to run: 2 case changed (2 measured on another machine); 4 current" in changed.stderr, changed.stderr
    assert [line.split(":")[0] for line in changed.stdout.splitlines()] == ["lab onnx", "lab export"]
