"""The CI workflows of docs/ci/ (docs/ci-gate.md): their YAML cannot run here, so this runs the exact
`run:` text of their opsweep steps, with the expressions GitHub would substitute filled in, against a
fake survey (fake workers, no torch): the pull-request gate on an unchanged, a regressing and a fixing
pull request, and the torch matrix (torch release x shard, merged, history rendered)."""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

import pytest
import yaml

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "fake_workers"))
import run_helpers as h  # noqa: E402

PR_YAML = REPO / "docs" / "ci" / "opsweep-pr.yml"
MATRIX_YAML = REPO / "docs" / "ci" / "opsweep-matrix.yml"


def workflow(path):
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads the key `on` as true
    return data


def step(job, name):
    return next(s for s in job["steps"] if s.get("name") == name)


def substitute(text, values):
    """Fills in ${{ expression }} as GitHub would; an expression the test did not give fails."""
    def one(match):
        expr = match.group(1).strip()
        assert expr in values, f"the test does not know ${{{{ {expr} }}}}"
        return str(values[expr])
    out = re.sub(r"\$\{\{(.*?)\}\}", one, text)
    assert "${{" not in out
    return out


def run_step(text, cwd, env):
    return subprocess.run(["bash", "-e", "-o", "pipefail", "-c", text], cwd=str(cwd), env=env, capture_output=True,
                          text=True, timeout=300)


@pytest.fixture()
def workspace(tmp_path, binary):
    """A checkout of the library's repository with opsweep beside it at .opsweep-tool, as the
    workflows lay them out, and opsweep on PATH."""
    (tmp_path / ".opsweep-tool").symlink_to(REPO)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "opsweep").symlink_to(binary)
    env = h.fake_env({"PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"})
    return tmp_path, env


CASES = [{"name": n, "group": g} for n, g in [("ok_a", "color"), ("ok_b", "color"), ("fail_c", "filters"),
                                              ("mismatch_d", "geometry"), ("ok_e", "geometry"), ("na_f", "feature")]]


def registry(directory, cases, torch="2.13.0+cpu", name="reg.json", journal_name="journal"):
    return h.write_registry(directory, cases, filename=name, env={"torch": torch},
                            journal=str(pathlib.Path(directory) / journal_name))


def journal(directory, name="journal"):
    path = pathlib.Path(directory) / name
    jobs = sorted(set(path.read_text().splitlines())) if path.exists() else []
    if path.exists():
        path.unlink()
    return jobs


def test_the_workflows_call_the_tested_scripts_and_agree_with_the_checkout():
    pr, matrix = workflow(PR_YAML), workflow(MATRIX_YAML)
    assert "pull_request" in pr["on"]
    gate = step(pr["jobs"]["gate"], "Refresh, merge and compare")
    assert "scripts/ci/pr-gate.sh" in gate["run"] and gate["id"] == "gate"
    assert step(pr["jobs"]["gate"], "Gate")["run"] == 'exit "${{ steps.gate.outputs.status }}"'
    legs = matrix["jobs"]["survey"]["strategy"]["matrix"]
    main_torch = re.search(r"^torch==([0-9.]+)", (REPO / "requirements.txt").read_text(), re.M).group(1)
    releases = subprocess.run(["bash", str(REPO / "scripts" / "torch-env.sh"), "--list"], capture_output=True,
                              text=True, check=True).stdout.split()
    assert main_torch in legs["torch"] and set(legs["torch"]) <= set(releases), (legs["torch"], releases)
    assert legs["shard"] == list(range(1, int(matrix["env"]["SHARDS"]) + 1))
    for job in (pr["jobs"]["gate"], matrix["jobs"]["survey"], matrix["jobs"]["merge"]):
        for s in job["steps"]:
            for script in re.findall(r"\.opsweep-tool/(scripts/[\w/.-]+\.sh)", s.get("run", "")):
                assert (REPO / script).is_file(), script
    merge = step(matrix["jobs"]["merge"], "Merge, compare and render")["run"]
    assert "--current " + main_torch in merge


def test_pull_request_gate(workspace):
    ws, env = workspace
    pr = workflow(PR_YAML)
    gate = step(pr["jobs"]["gate"], "Refresh, merge and compare")["run"]
    final = step(pr["jobs"]["gate"], "Gate")["run"]
    snapshot, results = pathlib.Path(pr["env"]["SNAPSHOT"]), pathlib.Path(pr["env"]["RESULTS"])
    # The default branch: a full survey, merged, its snapshot and its results committed.
    reg = registry(ws, CASES)
    assert h.run(["--cases", reg, "--db", "main.db", "-j", "1"], ws).returncode == 0
    (ws / snapshot).parent.mkdir(parents=True)
    for verb in (["merge", "--db", "main.db", "-o", str(ws / snapshot)],
                 ["results", "export", "--db", "main.db", "-o", str(ws / results)]):
        assert subprocess.run([h.binary(), *verb], cwd=ws, capture_output=True).returncode == 0, verb
    journal(ws)

    def pull_request(cases, fail_on="regression"):
        shutil.rmtree(ws / ".opsweep", ignore_errors=True)  # a fresh runner: only what is committed
        registry(ws, cases)
        output = ws / "github_output"
        output.write_text("")
        run_env = {**env, **pr["env"], "FAIL_ON": fail_on, "GITHUB_OUTPUT": str(output),
                   "OPSWEEP_RUN_ARGS": f"--cases {reg} -j 1"}
        p = run_step(substitute(gate, {}), ws, run_env)
        assert p.returncode == 0, p.stdout + p.stderr  # the step records the status, the Gate step fails
        status = dict(line.split("=", 1) for line in output.read_text().splitlines())["status"]
        ended = run_step(substitute(final, {"steps.gate.outputs.status": status}), ws, run_env).returncode
        report = (ws / ".opsweep" / "pr" / "report.md").read_text()
        return ended, report, journal(ws)

    ended, report, jobs = pull_request(CASES)
    assert (ended, jobs) == (0, [])  # nothing changed: nothing re-run, nothing to report
    assert report.startswith("### opsweep diff: no change")
    # The pull request breaks ok_b (the code it runs changed, so its jobs are re-probed): a regression.
    broken = [dict(c, do="fail", fingerprint="fp-ok_b-2") if c["name"] == "ok_b" else c for c in CASES]
    ended, report, jobs = pull_request(broken)
    assert ended == 1
    assert jobs == ["ok_b|compile", "ok_b|export", "ok_b|onnx"]  # incremental: only what changed
    assert report.startswith("### opsweep diff: 3 regressions")
    assert "| `ok_b` | ONNX | ✓ ok → ✗ fail | fake fail |" in report
    assert (ws / ".opsweep" / "pr" / "report.json").is_file() and (ws / ".opsweep" / "pr" / "report.txt").is_file()
    # The refreshed survey, ready to commit: its results merge to its snapshot.
    refreshed = ws / ".opsweep" / "pr"
    again = subprocess.run([h.binary(), "merge", str(refreshed / "results.jsonl"), "-o", str(ws / "again.json")],
                           cwd=ws, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert (ws / "again.json").read_bytes() == (refreshed / "snapshot.json").read_bytes()
    # A pull request that fixes fail_c passes the default gate, and fails the two-way one.
    fixed = [dict(c, do="ok", fingerprint="fp-fail_c-2") if c["name"] == "fail_c" else c for c in CASES]
    ended, report, _ = pull_request(fixed)
    assert ended == 0 and report.startswith("### opsweep diff: 3 progressions")
    ended, _, jobs = pull_request(fixed, fail_on="change")
    assert ended == 1  # the same pull request, judged by the two-way gate
    assert jobs == ["fail_c|compile", "fail_c|export", "fail_c|onnx"]  # a fresh runner: from the committed results


def test_torch_matrix(workspace):
    ws, env = workspace
    matrix = workflow(MATRIX_YAML)
    leg = step(matrix["jobs"]["survey"], "Survey shard ${{ matrix.shard }} under torch ${{ matrix.torch }}")["run"]
    place = step(matrix["jobs"]["merge"], "Put the shards in place")["run"]
    merge = step(matrix["jobs"]["merge"], "Merge, compare and render")["run"]
    shards = 2
    torches = {"2.9.1": "2.9.1+cu128", "2.13.0": "2.13.0+cpu"}
    regs = {t: registry(ws, CASES if t == "2.13.0" else [dict(c, do="fail") if c["name"] == "ok_e" else c
                                                          for c in CASES], torch=label, name=f"reg-{t}.json",
                        journal_name=f"journal-{t}")
            for t, label in torches.items()}
    snapshots = ws / matrix["env"]["SNAPSHOTS"]
    # The committed snapshot and results of 2.13.0 from an earlier refresh, when ok_a still failed
    # (its code has changed since: another fingerprint).
    earlier = registry(ws, [dict(c, do="fail", fingerprint="fp-ok_a-old") if c["name"] == "ok_a" else c
                            for c in CASES], name="earlier.json", journal_name="journal-earlier")
    assert h.run(["--cases", earlier, "--db", "earlier.db", "-j", "1"], ws).returncode == 0
    (snapshots / "torch-2.13.0").mkdir(parents=True)
    subprocess.run([h.binary(), "merge", "earlier.db", "-o", str(snapshots / "torch-2.13.0" / "snapshot.json")],
                   cwd=ws, check=True, capture_output=True)
    subprocess.run([h.binary(), "results", "export", "--db", "earlier.db", "-o",
                    str(snapshots / "torch-2.13.0" / "results.jsonl")], cwd=ws, check=True, capture_output=True)
    time.sleep(1.1)  # results carry whole seconds: the refresh must be later than the committed survey

    procs = []
    for torch in torches:
        for shard in range(1, shards + 1):
            values = {"matrix.torch": torch, "matrix.shard": shard}
            run_env = {**env, **{k: str(v) for k, v in matrix["env"].items()}, "SHARDS": str(shards),
                       "OPSWEEP_MATRIX_PYTHON": sys.executable,  # instead of building that torch's environment
                       "OPSWEEP_RUN_ARGS": f"--cases {regs[torch]} -j 1"}
            procs.append(((torch, shard), subprocess.Popen(["bash", "-e", "-c", substitute(leg, values)], cwd=ws,
                                                           env=run_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                                           text=True)))
    for (torch, shard), p in procs:  # the legs run at the same time, as on CI
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, (torch, shard, err)
        db = ws / ".opsweep" / "matrix" / f"torch-{torch}" / f"shard-{shard}.db"
        assert out.splitlines()[-1] == str(db.relative_to(ws))
        # upload-artifact + download-artifact: one folder per leg
        art = ws / "artifacts" / f"shard-{torch}-{shard}"
        art.mkdir(parents=True)
        shutil.copy(db, art / db.name)
    # The 2.13.0 legs started from its committed results: only ok_a's jobs ran again; 2.9.1 had none.
    assert journal(ws, "journal-2.13.0") == ["ok_a|compile", "ok_a|export", "ok_a|onnx"]
    assert len(journal(ws, "journal-2.9.1")) == len(CASES) * 3
    run_env = {**env, **{k: str(v) for k, v in matrix["env"].items()}}
    p = run_step(substitute(place, {}), ws, run_env)
    assert p.returncode == 0, p.stderr
    p = run_step(substitute(merge, {}), ws, run_env)
    assert p.returncode == 0, p.stdout + p.stderr

    # Each release's snapshot is the one a single-database survey gives.
    for torch in torches:
        assert h.run(["--cases", regs[torch], "--db", f"one-{torch}.db", "-j", "1"], ws).returncode == 0
        one = ws / f"one-{torch}.json"
        subprocess.run([h.binary(), "merge", f"one-{torch}.db", "-o", str(one)], cwd=ws, check=True, capture_output=True)
        assert (snapshots / f"torch-{torch}" / "snapshot.json").read_bytes() == one.read_bytes(), torch
        # the release's committed results merge to its snapshot
        again = ws / f"again-{torch}.json"
        subprocess.run([h.binary(), "merge", str(snapshots / f"torch-{torch}" / "results.jsonl"), "-o", str(again)],
                       cwd=ws, check=True, capture_output=True)
        assert again.read_bytes() == one.read_bytes(), torch
    md = (snapshots / "page.md").read_text()
    assert "| torch 2.13.0 (shown) |" in md and "*broken since torch 2.13.0*" not in md
    assert "*since torch 2.13.0*" in md  # ok_e fails under 2.9.1, works under 2.13.0
    assert (snapshots / "index.html").is_file() and (snapshots / "page.rst").is_file()
    report = (ws / "matrix-report.md").read_text()
    assert report.startswith("## opsweep torch matrix\n")
    assert "### torch 2.9.1: new in the matrix" in report
    assert "### opsweep diff: 3 progressions" in report  # 2.13.0 against its committed snapshot: ok_a fixed
    assert not (snapshots / "matrix-report.md").exists()


def test_matrix_merge_refuses_a_release_with_a_shard_missing(workspace):
    ws, env = workspace
    reg = registry(ws, CASES)
    for shard in (1, 2):
        run_env = {**env, "OPSWEEP_MATRIX_PYTHON": sys.executable, "OPSWEEP_RUN_ARGS": f"--cases {reg} -j 1"}
        p = subprocess.run(["bash", str(REPO / "scripts" / "ci" / "matrix-shard.sh"), "2.13.0", str(shard), "3"],
                           cwd=ws, env=run_env, capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
    # shard 3 of 3 never came back
    p = subprocess.run(["bash", str(REPO / "scripts" / "ci" / "matrix-merge.sh"), "--shards", ".opsweep/matrix",
                        "--out", "out"], cwd=ws, env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "the shards of torch 2.13.0 do not make a complete survey" in p.stderr
    assert not (ws / "out" / "torch-2.13.0").exists()
    for bad in (["2.13", "1", "2"], ["2.13.0", "3", "2"], ["2.13.0", "1"]):
        p = subprocess.run(["bash", str(REPO / "scripts" / "ci" / "matrix-shard.sh"), *bad], cwd=ws, env=env,
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, (bad, p.stderr)


def test_torch_env_names_environments_and_refuses_bad_ones(tmp_path):
    """scripts/torch-env.sh: a torch release (X.Y.Z) or a named environment (envs/NAME.txt, its torch
    the file's torch== pin); a name that is neither, or has no file, is one line and exit 2, before
    anything is built."""
    script = str(REPO / "scripts" / "torch-env.sh")
    listed = subprocess.run(["bash", script, "--list"], capture_output=True, text=True, check=True).stdout.split()
    assert "torchvision-0.28.0" in listed and "2.13.0" in listed, listed
    env_file = (REPO / "envs" / "torchvision-0.28.0.txt").read_text()
    assert "# opsweep-env: pypi-only" in env_file and "torch==2.13.0" in env_file and "torchvision==0.28.0" in env_file
    for bad, says in (("Bad_Name", "is not a torch release"), ("nosuch-1.0", "no requirements file envs/nosuch-1.0.txt")):
        proc = subprocess.run(["bash", script, bad, "--root", str(tmp_path)], capture_output=True, text=True)
        assert proc.returncode == 2 and says in proc.stderr, (bad, proc.returncode, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not any(tmp_path.iterdir())  # nothing built
