"""Incremental refresh, end to end: the real binary and real workers (torch) over a copy of the
``depfix`` fixture library (python/tests/fixtures/depfix, registry cases_deps.py) and a copy of the
harness, both in a temporary directory, so that edits of either are safe.

One module-scoped survey (export and compile paths), then edits, each followed by
``opsweep run --dry-run --explain`` (what would run, and why) and, for some, a real run that must
re-probe exactly those jobs: a function body used by two cases, a function only Dynamo traces, a
module-level constant, a new file, a harness path module. Then `opsweep explain`.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
HARNESS = os.path.join(REPO, "python", "opsweep")
FIXTURES = os.path.join(REPO, "python", "tests", "fixtures")
PATHS = ("export", "compile")
CASES = ("scale", "shift", "both", "double", "double_by_path", "cached_first", "cached_second", "lookup",
         "lazy_scaler", "skipped")


class Survey:
    def __init__(self, binary, root):
        self.binary = str(binary)
        self.root = root
        self.db = os.path.join(root, "work", "results.db")
        self.env = dict(os.environ, PYTHONPATH=os.path.join(root, "site"), OPSWEEP_PYTHON=sys.executable)
        self.env.pop("OPSWEEP_WORKER_CMD", None)
        self.args = ["--cases", os.path.join(root, "cases_deps.py"), "--paths", ",".join(PATHS), "--db", self.db,
                     "-j", "1", "--timeout", "300"]

    def opsweep(self, *args, check=True):
        p = subprocess.run([self.binary, *args], cwd=self.root, env=self.env, capture_output=True, text=True,
                           timeout=900)
        if check:
            assert p.returncode == 0, p.stdout + p.stderr
        return p

    def run(self, *extra):
        return self.opsweep("run", *self.args, *extra)

    def plan(self):
        """(plan line, {(case, path): why}) of a dry run with --explain."""
        p = self.run("--dry-run", "--explain")
        line = next(l for l in p.stderr.splitlines() if "to run" in l)
        why = {}
        for out in p.stdout.splitlines():
            job, _, reason = out.partition(": ")
            case, _, path = job.rpartition(" ")
            why[(case, path)] = reason
        return line, why

    def rows(self):
        con = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)
        try:
            return {(c, p): (run, json.loads(rec)) for c, p, run, rec in
                    con.execute("SELECT case_name, path, run_id, record_json FROM results")}
        finally:
            con.close()

    def last_run_jobs(self):
        rows = self.rows()
        last = max(run for run, _ in rows.values())
        return {k for k, (run, _) in rows.items() if run == last}

    def edit(self, rel, old, new):
        path = os.path.join(self.root, rel)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        assert old in text, (rel, old)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(old, new, 1))


@pytest.fixture(scope="module")
def survey(binary, tmp_path_factory):
    if subprocess.run([sys.executable, "-c", "import torch"], capture_output=True).returncode != 0:
        pytest.skip("this test runs real workers: it needs torch")
    root = str(tmp_path_factory.mktemp("incremental"))
    shutil.copytree(HARNESS, os.path.join(root, "site", "opsweep"), ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(os.path.join(FIXTURES, "depfix"), os.path.join(root, "site", "depfix"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(os.path.join(FIXTURES, "cases_deps.py"), os.path.join(root, "cases_deps.py"))
    # installed like kornia (a distribution's metadata names it): case fingerprints name its
    # functions instead of hashing their code, so an edit of it is the library's, not the case's
    info = os.path.join(root, "site", "depfix-0.1.dist-info")
    os.makedirs(info)
    with open(os.path.join(info, "METADATA"), "w") as f:
        f.write("Metadata-Version: 2.1\nName: depfix\nVersion: 0.1\n")
    with open(os.path.join(info, "top_level.txt"), "w") as f:
        f.write("depfix\n")
    s = Survey(binary, root)
    p = s.run()
    assert f"{len(CASES) * len(PATHS)} to run: {len(CASES) * len(PATHS)} new; 0 current" in p.stderr, p.stderr
    statuses = {k: rec["status"] for k, (_, rec) in s.rows().items()}
    assert statuses == {(c, p): ("n/a" if c == "skipped" else "ok") for c in CASES for p in PATHS}
    return s


def test_nothing_changed_nothing_runs(survey):
    line, why = survey.plan()
    assert "0 to run; 20 current" in line and why == {}
    p = survey.run()
    assert "0 to run; 20 current" in p.stderr


def line_digests(root):
    """The digests of lines of the fixture library's functions (what records before index version 4 hold)."""
    code = ("import json, sys; from opsweep.deps import LibraryIndex; from opsweep.library import Library; "
            "lib = Library(name='depfix', version='', root=sys.argv[1], is_package=True); "
            "print(json.dumps(LibraryIndex.build(lib).function_digests(lines=True)))")
    out = subprocess.run([sys.executable, "-c", code, os.path.join(root, "site", "depfix")], capture_output=True,
                         text=True, check=True, env=dict(os.environ, PYTHONPATH=os.path.join(root, "site")))
    return json.loads(out.stdout)


def test_records_of_lines_take_token_digests_on_the_next_run(survey):
    # records as a harness before index version 4 wrote them: functions by digests of their lines
    lines = line_digests(survey.root)
    con = sqlite3.connect(survey.db)
    with con:
        for case, path, rec in con.execute("SELECT case_name, path, record_json FROM results").fetchall():
            record = json.loads(rec)
            if record["deps"] and record["deps"]["functions"]:
                record["deps"]["functions"] = {n: lines[n] for n in record["deps"]["functions"]}
                con.execute("UPDATE results SET record_json=? WHERE case_name=? AND path=?",
                            (json.dumps(record), case, path))
    con.close()
    old = {k: rec for k, (_, rec) in survey.rows().items() if rec["deps"]["functions"]}
    assert old and all(not d.startswith("t:") for rec in old.values() for d in rec["deps"]["functions"].values())
    line, why = survey.plan()  # current against the lines, and a dry run writes nothing
    assert why == {} and "0 to run; 20 current" in line, line
    assert {k: rec for k, (_, rec) in survey.rows().items() if rec["deps"]["functions"]} == old
    p = survey.run()
    assert f"{len(old)} current records now list their functions by token digests" in p.stderr, p.stderr
    new = {k: (run, rec) for k, (run, rec) in survey.rows().items() if k in old}
    for k, (run, rec) in new.items():  # the same results, their functions now by tokens
        assert set(rec["deps"]["functions"]) == set(old[k]["deps"]["functions"])
        assert all(d.startswith("t:") for d in rec["deps"]["functions"].values()), k
        assert {f: v for f, v in rec.items() if f != "deps"} == {f: v for f, v in old[k].items() if f != "deps"}
    # so a comment in a function they ran re-probes nothing
    survey.edit("site/depfix/ops.py", "    return x * SCALE", "    # scaled\n    return x * SCALE")
    line, why = survey.plan()
    assert why == {} and "0 to run; 20 current" in line, line
    assert "token digests" not in survey.run().stderr  # nothing left to re-encode


def test_a_comment_or_a_rewrapped_call_reprobes_nothing(survey):
    # the same tokens: a function's digest reads tokens, not comments, blank lines or line breaks
    survey.edit("site/depfix/ops.py", "    return _plus(x, 3.0)", "    # three\n\n    return _plus(\n        x, 3.0)")
    line, why = survey.plan()
    assert why == {} and "0 to run; 20 current" in line, line


def test_a_function_body_reprobes_exactly_the_cases_that_ran_it(survey):
    # parentheses: the same behaviour, other tokens, so a change (the digest does not judge semantics)
    survey.edit("site/depfix/ops.py", "return x + value", "return (x + value)")
    line, why = survey.plan()
    want = {(c, p) for c in ("shift", "both") for p in PATHS}
    assert "4 to run: 4 library code changed; 16 current" in line, line
    assert why == {k: "depfix/ops.py:_plus changed" for k in want}
    p = survey.run()
    assert "4 to run: 4 library code changed; 16 current" in p.stderr, p.stderr
    assert survey.last_run_jobs() == want
    assert survey.plan()[1] == {}  # and now they are current


def test_code_only_dynamo_traces_reprobes_only_the_compile_job(survey):
    survey.edit("site/depfix/capture.py", "def only_dynamo(x: torch.Tensor) -> torch.Tensor:\n    return x * 2.0",
                "def only_dynamo(x: torch.Tensor) -> torch.Tensor:\n    return 2.0 * x")
    line, why = survey.plan()
    assert why == {("double_by_path", "compile"): "depfix/capture.py:only_dynamo changed"}
    survey.run()
    assert survey.last_run_jobs() == {("double_by_path", "compile")}


def test_a_module_level_constant_reprobes_its_importers(survey):
    survey.edit("site/depfix/constants.py", "OFFSET = 1.0", "OFFSET = 1.5")
    line, why = survey.plan()
    # ops.py imports SCALE from constants.py: every case that ran ops.py code reads its module
    assert why == {(c, p): "module-level code of depfix/constants.py changed"
                   for c in ("scale", "shift", "both") for p in PATHS}
    assert "6 to run: 6 library code changed; 14 current" in line, line
    survey.run()
    assert survey.last_run_jobs() == set(why)


def test_a_new_file_reprobes_nothing(survey):
    with open(os.path.join(survey.root, "site", "depfix", "brand_new.py"), "w") as f:
        f.write("def f(x):\n    return x\n")
    line, why = survey.plan()
    assert why == {} and "0 to run; 20 current" in line


def test_a_harness_path_module_reprobes_only_that_path(survey):
    survey.edit("site/opsweep/paths/export.py", "def probe_export(", "# edited\ndef probe_export(")
    line, why = survey.plan()
    assert set(why) == {(c, "export") for c in CASES}
    assert set(why.values()) == {"the harness code of path export changed"}
    assert "10 to run: 10 harness changed; 10 current" in line, line


def test_explain_says_whether_a_record_is_current_and_why_not(survey):
    survey.edit("site/depfix/import_time.py", "return [1.0, 5.0, 7.0]", "return [1.0, 5.0, 7.0,]")
    p = survey.opsweep("explain", "lookup", "--path", "compile", "--cases", os.path.join(survey.root, "cases_deps.py"),
                       "--db", survey.db)
    assert "lookup [compile]" in p.stdout
    assert "stored:  ok" in p.stdout and "reason:  none (supported)" in p.stdout
    # make_table builds TABLE at import: lookup never calls it, and depends on it all the same
    assert "current: no, it runs again: library code changed" in p.stdout, p.stdout
    assert "depfix/import_time.py:make_table changed" in p.stdout
    p = survey.opsweep("explain", "scale", "--path", "compile", "--cases", os.path.join(survey.root, "cases_deps.py"),
                       "--db", survey.db)
    assert "current: yes" in p.stdout, p.stdout
    p = survey.opsweep("explain", "scale", "--offline", "--db", survey.db)
    assert "current: not judged" in p.stdout and "scale [export]" in p.stdout and '"harness":' in p.stdout
    p = survey.opsweep("explain", "no_such_case", "--offline", "--db", survey.db, check=False)
    assert p.returncode == 2 and "no case named 'no_such_case'" in p.stderr
    # a --db that names no file: every job is new, and a note says why rather than nothing
    missing = os.path.join(survey.root, "work", "mistyped.db")
    p = survey.opsweep("explain", "scale", "--path", "export", "--cases", os.path.join(survey.root, "cases_deps.py"),
                       "--db", missing)
    assert "stored:  no result" in p.stdout and "current: no, it runs again: new" in p.stdout, p.stdout
    assert f"note: no database at {missing} (--db)" in p.stderr, p.stderr
    assert not os.path.exists(missing)
