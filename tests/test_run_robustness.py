"""`opsweep run` under abuse: kill -9 of the engine, Ctrl-C, SIGTERM, damaged or foreign databases,
the memory limit, poisoned workers. Fake workers only (no torch)."""

import os
import signal
import sqlite3
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_workers"))
import run_helpers as h  # noqa: E402


def slow_cases(n, seconds):
    return [{"name": f"case{i:03d}", "group": "g", "do": "ok", "sleep": seconds} for i in range(n)]


def test_kill_9_then_rerun_loses_and_duplicates_nothing(tmp_path):
    journal = tmp_path / "journal"
    reg = h.write_registry(tmp_path, slow_cases(30, 0.1), journal=str(journal))
    db = tmp_path / "k.db"
    args = ["--cases", reg, "--db", str(db), "--paths", "onnx,export", "-j", "2"]
    proc = h.start(args, tmp_path)
    try:
        h.wait_for_results(db, 8)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        assert not h.wait_until_gone(reg), "workers outlived a kill -9 of the engine"
    finally:
        h.kill_leftovers(reg)
    before = h.results(db)
    assert len(before) >= 8
    started_first = journal.read_text().splitlines()
    journal.write_text("")
    p = h.run(args, tmp_path)
    assert p.returncode == 0, p.stderr
    after = h.results(db)
    assert len(after) == 60
    rerun = journal.read_text().splitlines()
    assert len(rerun) == len(set(rerun)) == 60 - len(before)
    for key, row in before.items():  # finished jobs kept as they were, not re-run
        assert f"{key[0]}|{key[1]}" not in rerun
        assert after[key]["finished"] == row["finished"] and after[key]["run_id"] == row["run_id"]
    assert set(started_first) | set(rerun) >= {f"{c}|{p}" for c, p in after}
    run_rows = h.runs(db)
    assert len(run_rows) == 2 and run_rows[0]["finished"] in (None, "") and run_rows[1]["finished"]


def interrupt_keeps_results(tmp_path, sig):
    reg = h.write_registry(tmp_path, slow_cases(40, 0.2))
    db = tmp_path / "i.db"
    proc = h.start(["--cases", reg, "--db", str(db), "--paths", "onnx", "-j", "2"], tmp_path)
    try:
        h.wait_for_results(db, 4)
        os.kill(proc.pid, sig)
        out, err = proc.communicate(timeout=15)
    finally:
        h.kill_leftovers(reg)
    assert proc.returncode == 130, err
    assert "interrupted" in err.strip().splitlines()[-1]
    assert not h.wait_until_gone(reg)
    kept = h.results(db)
    assert 4 <= len(kept) < 40
    assert all(r["status"] == "ok" for r in kept.values())  # in-flight jobs got no record
    assert h.runs(db)[-1]["finished"]


def test_ctrl_c_keeps_finished_results(tmp_path):
    interrupt_keeps_results(tmp_path, signal.SIGINT)


def test_sigterm_keeps_finished_results(tmp_path):
    interrupt_keeps_results(tmp_path, signal.SIGTERM)


def test_ctrl_c_reaches_only_the_engine(tmp_path):
    # A terminal's Ctrl-C goes to the foreground process group: the engine's, not the workers'.
    reg = h.write_registry(tmp_path, slow_cases(40, 0.2))
    db = tmp_path / "g.db"
    proc = h.start(["--cases", reg, "--db", str(db), "--paths", "onnx", "-j", "2"], tmp_path)
    try:
        h.wait_for_results(db, 2)
        workers = h.live_processes_mentioning(reg)
        assert workers and all(os.getpgid(w) == w for w in workers if w != proc.pid)
        assert os.getpgid(proc.pid) not in workers
    finally:
        proc.kill()
        proc.wait()
        assert not h.wait_until_gone(reg)
        h.kill_leftovers(reg)


def test_damaged_database_is_refused_untouched(tmp_path):
    reg = h.write_registry(tmp_path, [{"name": "ok_a"}, {"name": "ok_b"}])
    good = tmp_path / "good.db"
    assert h.run(["--cases", reg, "--db", str(good)], tmp_path).returncode == 0
    data = good.read_bytes()
    damaged = {
        "garbage.db": b"this is not a database at all\n" * 100,
        "truncated.db": data[: len(data) // 2],
        "header.db": data[:100],
    }
    con = sqlite3.connect(tmp_path / "foreign.db")
    con.execute("CREATE TABLE t(x)")
    con.commit()
    con.close()
    damaged["foreign.db"] = (tmp_path / "foreign.db").read_bytes()
    for name, content in damaged.items():
        path = tmp_path / name
        path.write_bytes(content)
        p = h.run(["--cases", reg, "--db", str(path)], tmp_path)
        assert p.returncode == 2, (name, p.stderr)
        lines = p.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("opsweep run: error: "), (name, p.stderr)
        assert path.read_bytes() == content, f"{name} was modified"
    assert not h.wait_until_gone(reg)


def test_unwritable_database_directory(tmp_path):
    reg = h.write_registry(tmp_path, [{"name": "ok_a"}])
    blocker = tmp_path / "file"
    blocker.write_text("x")
    p = h.run(["--cases", reg, "--db", str(blocker / "sub" / "r.db")], tmp_path)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_memory_limit_kills_the_worker(tmp_path):
    reg = h.write_registry(tmp_path, [{"name": "alloc_big"}, {"name": "ok_after"}])
    db = tmp_path / "m.db"
    t = time.time()
    p = h.run(["--cases", reg, "--db", str(db), "--paths", "onnx", "-j", "1", "--memory-limit", "200"], tmp_path)
    assert p.returncode == 0, p.stderr
    assert time.time() - t < 20
    res = h.results(db)
    assert res[("alloc_big", "onnx")]["status"] == "crash"
    assert res[("alloc_big", "onnx")]["record"]["detail"] == "worker exceeded the memory limit of 200 MiB"
    assert res[("ok_after", "onnx")]["status"] == "ok"


def test_poisoned_worker_is_replaced_and_the_job_requeued(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    reg = h.write_registry(tmp_path, [{"name": "poisononce_a"}, {"name": "ok_b"}], state_dir=str(state))
    db = tmp_path / "p.db"
    p = h.run(["--cases", reg, "--db", str(db), "--paths", "onnx", "-j", "1"], tmp_path)
    assert p.returncode == 0, p.stderr
    res = h.results(db)
    assert res[("poisononce_a", "onnx")]["status"] == "ok"
    assert res[("ok_b", "onnx")]["status"] == "ok"
    assert (state / "poisononce_a.onnx.poisoned").exists()


def test_a_schema_1_database_is_refused_as_older(tmp_path):
    reg = h.write_registry(tmp_path, [{"name": "ok_a"}])
    db = tmp_path / "old.db"
    assert h.run(["--cases", reg, "--db", str(db)], tmp_path).returncode == 0
    con = sqlite3.connect(db)
    con.execute("UPDATE meta SET value='1' WHERE key='schema'")
    con.commit()
    con.close()
    p = h.run(["--cases", reg, "--db", str(db)], tmp_path)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0] == (f"opsweep run: error: {db}: schema version 1 comes from an older opsweep, whose job keys and "
                        "path descriptions this one cannot read; re-measure into a new database")


def test_poisoned_worker_with_the_jobs_record_keeps_it_and_is_not_rerun(tmp_path):
    journal = tmp_path / "journal"
    reg = h.write_registry(tmp_path, [{"name": "poisonrecord_a"}, {"name": "ok_b"}], journal=str(journal))
    db = tmp_path / "p.db"
    p = h.run(["--cases", reg, "--db", str(db), "--paths", "onnx", "-j", "1"], tmp_path)
    assert p.returncode == 0, p.stderr
    assert sorted(journal.read_text().splitlines()) == ["ok_b|onnx", "poisonrecord_a|onnx"]  # ran once
    res = h.results(db)
    assert res[("poisonrecord_a", "onnx")]["status"] == "fail"
    assert res[("poisonrecord_a", "onnx")]["attempts"] == 0
    assert res[("ok_b", "onnx")]["status"] == "ok"


def test_restart_cap_stops_the_run(tmp_path):
    reg = h.write_registry(tmp_path, [{"name": f"segv_{i}"} for i in range(6)])
    db = tmp_path / "c.db"
    p = h.run(["--cases", reg, "--db", str(db), "--paths", "onnx", "-j", "1", "--max-restarts", "2"], tmp_path)
    assert p.returncode == 1
    assert "more than the cap of 2" in p.stderr.strip().splitlines()[-1]
    assert len(h.results(db)) == 3
    assert h.runs(db)[-1]["finished"]
