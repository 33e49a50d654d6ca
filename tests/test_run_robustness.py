"""`opsweep run` under abuse: kill -9 of the engine, Ctrl-C, SIGTERM, damaged or foreign databases,
the memory limit, poisoned workers. Fake workers only (no torch)."""

import os
import signal
import sqlite3
import subprocess
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
    # A terminal's Ctrl-C sends SIGINT to the foreground process group: the engine's. The workers
    # have groups of their own (and ignore SIGINT besides), so the signal never interrupts a job in
    # a worker (the fake worker would die of a KeyboardInterrupt, a real one could record it as the
    # job's failure); the engine alone handles it: it kills the workers, keeps what finished and
    # exits 130 (src/exec/posix_worker_pool.h).
    reg = h.write_registry(tmp_path, slow_cases(40, 0.2))
    db = tmp_path / "g.db"
    # Started the way a shell with job control starts a command: in a process group of its own,
    # which the terminal's Ctrl-C is sent to.
    proc = subprocess.Popen([h.binary(), "run", "--cases", reg, "--db", str(db), "--paths", "onnx", "-j", "2"],
                            cwd=str(tmp_path), env=h.fake_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, process_group=0)
    try:
        h.wait_for_results(db, 2)
        assert os.getpgid(proc.pid) == proc.pid
        workers = [w for w in h.live_processes_mentioning(reg) if w != proc.pid]
        assert len(workers) == 2, workers
        assert all(os.getpgid(w) == w for w in workers)
        # The engine held stopped, its SIGINT stays pending while every process the signal reached
        # has time to act on it: the workers must live on through it.
        os.kill(proc.pid, signal.SIGSTOP)
        os.killpg(proc.pid, signal.SIGINT)
        time.sleep(1.0)
        survivors = h.live_processes_mentioning(reg)
        assert set(workers) <= set(survivors), f"Ctrl-C reached workers {sorted(set(workers) - set(survivors))}"
        logs = list((tmp_path / "logs").glob("worker-*.log"))
        assert logs and not any("KeyboardInterrupt" in log.read_text(errors="replace") for log in logs)
        os.kill(proc.pid, signal.SIGCONT)
        out, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        h.kill_leftovers(reg)
    # The engine handled it: interrupted, the workers gone with it, the finished results kept.
    assert proc.returncode == 130, err
    assert "interrupted" in err.strip().splitlines()[-1]
    assert not h.wait_until_gone(reg)
    kept = h.results(db)
    assert 2 <= len(kept) < 40
    assert all(r["status"] == "ok" for r in kept.values())
    assert h.runs(db)[-1]["finished"]


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


def test_workers_that_load_different_cases_stop_the_run_naming_the_case(tmp_path):
    # The second worker's registry draws other inputs (another fingerprint for one case): the run
    # stops, and the message says which case differs, how, and in which workers.
    state = tmp_path / "state"
    state.mkdir()
    cases = [{"name": f"ok_{i}", "sleep": 0.2} for i in range(6)]
    cases[2]["name"] = "rgb_to_grayscale"
    cases[2]["fingerprint"] = "9d8e7f6a5b4c3d2e1f00aa"
    cases[2]["later"] = {"fingerprint": "3f2a9c0d1e4b5a6c7d8ebb"}
    reg = h.write_registry(tmp_path, cases, state_dir=str(state))
    db = tmp_path / "d.db"
    p = h.run(["--cases", reg, "--db", str(db), "--paths", "onnx", "-j", "2"], tmp_path)
    assert p.returncode == 2, p.stderr
    last = p.stderr.strip().splitlines()[-1]
    assert last.endswith(
        "worker 1 loaded different cases than worker 0: case 'rgb_to_grayscale' has fingerprint 3f2a9c0d1e4b... in "
        "worker 1 and 9d8e7f6a5b4c... in worker 0 (does its registry draw random inputs without a seed, or did it "
        "change during the run?)"), p.stderr


def test_a_case_missing_in_a_later_worker_is_named(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    cases = [{"name": f"ok_{i}", "sleep": 0.2} for i in range(6)]
    cases[4]["later"] = None  # left out by every worker but the first
    reg = h.write_registry(tmp_path, cases, state_dir=str(state))
    p = h.run(["--cases", reg, "--db", str(tmp_path / "d.db"), "--paths", "onnx", "-j", "2"], tmp_path)
    assert p.returncode == 2, p.stderr
    assert p.stderr.strip().splitlines()[-1].endswith(
        "worker 1 loaded different cases than worker 0: case 'ok_4' is in worker 0's inventory but not in worker 1's "
        "(did a registry change during the run?)"), p.stderr
