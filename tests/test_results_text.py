"""The committed text form of a results database (`opsweep results export|import`, merge reading
FILE.jsonl), and `opsweep run --dry-run`, end to end with the fake worker."""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_workers"))
import run_helpers as h  # noqa: E402

DEPS = {"functions": {"lib/a.py:f": "d1", "lib/b.py:g": "d2"}, "modules": {"lib/a.py": "m1"}}
INDEX = {"functions": {"lib/a.py:f": "d1", "lib/b.py:g": "d2"}, "modules": {"lib/a.py": "m1"}}


def opsweep(*args, cwd, check=True):
    p = subprocess.run([h.binary(), *args], cwd=str(cwd), env=h.fake_env(), capture_output=True, text=True, timeout=60)
    if check:
        assert p.returncode == 0, p.stdout + p.stderr
    return p


def survey(tmp_path, index=INDEX):
    reg = h.write_registry(tmp_path, [{"name": "ok_a", "deps": DEPS}, {"name": "fail_b", "deps": DEPS},
                                      {"name": "ok_c"}], index=index)
    db = tmp_path / "a.db"
    p = h.run(["--cases", reg, "--db", str(db)], tmp_path)
    assert p.returncode == 0, p.stderr
    return reg, db


def test_export_import_export_is_byte_identical_and_merges_the_same(tmp_path):
    reg, db = survey(tmp_path)
    opsweep("results", "export", "--db", str(db), "-o", "a.jsonl", cwd=tmp_path)
    text = (tmp_path / "a.jsonl").read_bytes()
    assert text.count(b"\n") == 1 + 1 + 3 + 3 + 2 + 9  # header, the run, 3 cases, 3 entries, 2 depsets, 9 results
    assert str(tmp_path).encode() not in text  # no absolute paths (the run's registries are file names)
    p = opsweep("results", "import", "a.jsonl", "--db", "b.db", cwd=tmp_path)
    assert "9 added" in p.stderr
    opsweep("results", "export", "--db", "b.db", "-o", "b.jsonl", cwd=tmp_path)
    assert (tmp_path / "b.jsonl").read_bytes() == text

    opsweep("merge", "--db", str(db), "-o", "s1.json", cwd=tmp_path)
    opsweep("merge", "--db", "b.db", "-o", "s2.json", cwd=tmp_path)
    opsweep("merge", "a.jsonl", "-o", "s3.json", cwd=tmp_path)  # merge reads the text form directly
    s1 = (tmp_path / "s1.json").read_bytes()
    assert (tmp_path / "s2.json").read_bytes() == s1
    assert (tmp_path / "s3.json").read_bytes() == s1
    assert (tmp_path / "s2.timings.json").read_bytes() == (tmp_path / "s1.timings.json").read_bytes()


def test_a_fresh_clone_reprobes_nothing_after_import(tmp_path):
    reg, db = survey(tmp_path)
    opsweep("results", "export", "--db", str(db), "-o", "results.jsonl", cwd=tmp_path)
    opsweep("results", "import", "results.jsonl", "--db", "clone/results.db", cwd=tmp_path)
    p = h.run(["--cases", reg, "--db", "clone/results.db"], tmp_path)
    assert p.returncode == 0, p.stderr
    assert "9 jobs planned (from 3 cases x 3 paths): 0 to run; 9 current" in p.stderr
    # and a changed function re-probes the two cases that ran it
    edited = dict(INDEX, functions={"lib/a.py:f": "d1-edited", "lib/b.py:g": "d2"})
    reg = h.write_registry(tmp_path, [{"name": "ok_a", "deps": DEPS}, {"name": "fail_b", "deps": DEPS},
                                      {"name": "ok_c"}], index=edited)
    p = h.run(["--cases", reg, "--db", "clone/results.db", "--dry-run", "--explain"], tmp_path)
    assert p.returncode == 0, p.stderr
    assert "6 to run: 6 library code changed; 3 current" in p.stderr
    assert sorted(p.stdout.splitlines()) == sorted(f"{c} {path}: lib/a.py:f changed"
                                                   for c in ("ok_a", "fail_b") for path in ("onnx", "export", "compile"))


def test_importing_twice_changes_nothing(tmp_path):
    reg, db = survey(tmp_path)
    opsweep("results", "export", "--db", str(db), "-o", "a.jsonl", cwd=tmp_path)
    opsweep("results", "import", "a.jsonl", "--db", "b.db", cwd=tmp_path)
    p = opsweep("results", "import", "a.jsonl", "--db", "b.db", cwd=tmp_path)
    assert "0 added, 0 replaced (older), 9 kept" in p.stderr and "0 runs added" in p.stderr
    opsweep("results", "export", "--db", "b.db", "-o", "b.jsonl", cwd=tmp_path)
    assert (tmp_path / "b.jsonl").read_bytes() == (tmp_path / "a.jsonl").read_bytes()


def test_a_truncated_file_is_imported_as_far_as_it_goes_and_said_so(tmp_path):
    reg, db = survey(tmp_path)
    opsweep("results", "export", "--db", str(db), "-o", "a.jsonl", cwd=tmp_path)
    text = (tmp_path / "a.jsonl").read_bytes()
    (tmp_path / "cut.jsonl").write_bytes(text[: len(text) - 40])
    p = opsweep("results", "import", "cut.jsonl", "--db", "c.db", cwd=tmp_path, check=False)
    assert p.returncode == 1, p.stderr
    assert "incomplete (the file ends without a newline: truncated?); skipped" in p.stderr
    assert "holds 8 of the 9 results its header announces" in p.stderr
    assert len(h.results(tmp_path / "c.db")) == 8
    # merge refuses a damaged text form and leaves the snapshot alone
    p = opsweep("merge", "cut.jsonl", "-o", "s.json", cwd=tmp_path, check=False)
    assert p.returncode == 2 and "damaged" in p.stderr and not (tmp_path / "s.json").exists()
    # not this format at all
    (tmp_path / "x.jsonl").write_text("hello\n")
    p = opsweep("results", "import", "x.jsonl", "--db", "d.db", cwd=tmp_path, check=False)
    assert p.returncode == 2 and "not an opsweep results text file" in p.stderr
    assert not (tmp_path / "d.db").exists()


def test_a_dry_run_writes_no_database(tmp_path):
    reg = h.write_registry(tmp_path, [{"name": "ok_a"}, {"name": "ok_b"}])
    p = h.run(["--cases", reg, "--db", "none/results.db", "--dry-run", "--explain"], tmp_path)
    assert p.returncode == 0, p.stderr
    assert "6 to run: 6 new; 0 current (dry run: nothing probed, no result written)" in p.stderr
    assert sorted(p.stdout.splitlines()) == sorted(f"{c} {path}: no stored result"
                                                   for c in ("ok_a", "ok_b") for path in ("onnx", "export", "compile"))
    assert not os.path.exists(tmp_path / "none" / "results.db")


def test_force_reprobes_the_selected_current_jobs_and_nothing_else(tmp_path):
    reg, db = survey(tmp_path)
    before = h.results(db)
    p = h.run(["--cases", reg, "--db", str(db), "--only", "ok_a", "--paths", "onnx,export", "--force",
               "--dry-run", "--explain"], tmp_path)
    assert p.returncode == 0, p.stderr
    assert "2 jobs planned (from 1 case x 2 paths): 2 to run: 2 --force; 0 current" in p.stderr
    assert sorted(p.stdout.splitlines()) == [f"ok_a {path}: the stored result (ok) is current, and --force re-probes it"
                                             for path in ("export", "onnx")]
    p = h.run(["--cases", reg, "--db", str(db), "--only", "ok_a", "--paths", "onnx,export", "--force"], tmp_path)
    assert p.returncode == 0, p.stderr
    after = h.results(db)
    assert after.keys() == before.keys()
    rerun = {k for k in after if after[k]["run_id"] != before[k]["run_id"]}
    assert rerun == {("ok_a", "onnx"), ("ok_a", "export")}
    # without --force the same selection is current again
    p = h.run(["--cases", reg, "--db", str(db), "--dry-run"], tmp_path)
    assert "9 jobs planned (from 3 cases x 3 paths): 0 to run; 9 current" in p.stderr


def test_exact_selects_whole_case_names_and_refuses_a_name_no_case_has(tmp_path):
    reg = h.write_registry(tmp_path, [{"name": "jit"}, {"name": "jit[random]"}, {"name": "jitter"}])
    db = tmp_path / "a.db"
    assert h.run(["--cases", reg, "--db", str(db), "--paths", "export"], tmp_path).returncode == 0

    def forced(*only):
        p = h.run(["--cases", reg, "--db", str(db), "--paths", "export", "--force", "--dry-run", "--explain", *only],
                  tmp_path)
        assert p.returncode == 0, p.stderr
        return sorted(line.split(" export: ")[0] for line in p.stdout.splitlines())

    assert forced("--only", "jit") == ["jit", "jit[random]", "jitter"]  # a prefix
    assert forced("--only", "jit", "--exact") == ["jit"]
    assert forced("--only", "jit[random]", "--only", "jitter", "--exact") == ["jit[random]", "jitter"]
    before = h.results(db)
    for args, message in [(["--only", "ji", "--exact"], "--only 'ji' --exact: no case has that name"),
                          (["--exact"], "--exact needs --only NAME")]:
        p = h.run(["--cases", reg, "--db", str(db), "--paths", "export", "--force", *args], tmp_path)
        assert p.returncode == 2 and message in p.stderr, p.stderr
        assert len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert h.results(db) == before  # nothing probed, nothing lost


def test_a_dry_run_keeps_its_worker_log_apart_from_a_runs(tmp_path):
    # checking a running survey with --dry-run must not append its worker's output to the survey's worker log
    reg = h.write_registry(tmp_path, [{"name": "ok_a"}])
    p = h.run(["--cases", reg, "--paths", "export"], tmp_path)
    assert p.returncode == 0, p.stderr
    logs = tmp_path / ".opsweep" / "logs"
    before = (logs / "worker-0.log").read_bytes()
    assert before
    p = h.run(["--cases", reg, "--dry-run"], tmp_path)
    assert p.returncode == 0, p.stderr
    assert (logs / "worker-0.log").read_bytes() == before
    assert (logs / "dry-run" / "worker-0.log").stat().st_size > 0


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COMMITTED = [os.path.join(ROOT, "snapshots", "kornia", "results.jsonl"),
             os.path.join(ROOT, "snapshots", "kornia", "partial", "results.jsonl")]


def test_the_committed_survey_stores_import_whole_and_export_byte_identical(tmp_path):
    # What the README tells a fresh clone to import: every case and result read, no line skipped
    # (a case naming a run the file lacks was once committed, and its inventory silently lost).
    for i, path in enumerate(p for p in COMMITTED if os.path.exists(p)):
        with open(path, "rb") as f:
            text = f.read()
        header = json.loads(text.split(b"\n", 1)[0])
        db = tmp_path / f"{i}.db"
        p = opsweep("results", "import", path, "--db", str(db), cwd=tmp_path)
        assert "warning" not in p.stderr, p.stderr[-2000:]
        assert f"{header['results']} results read" in p.stderr and f"{header['results']} added" in p.stderr, p.stderr
        assert "inventory replaced" in p.stderr, p.stderr
        opsweep("results", "export", "--db", str(db), "-o", f"{i}.jsonl", cwd=tmp_path)
        assert (tmp_path / f"{i}.jsonl").read_bytes() == text, path
