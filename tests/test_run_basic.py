"""`opsweep run` end to end with fake workers (no torch): statuses, records, reruns, filters, shards,
option errors. The binary comes from $OPSWEEP_BINARY (default build/tests/opsweep)."""

import json
import os
import stat
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_workers"))
import run_helpers as h  # noqa: E402

MIXED = [
    {"name": "ok_a", "group": "color"},
    {"name": "fail_b", "group": "geometry.epipolar"},
    {"name": "segv_c", "group": "geometry.transform"},
    {"name": "exit7_d", "group": "filters"},
    {"name": "hang_e", "group": "filters"},
    {"name": "badjson_f", "group": "misc"},
    {"name": "poisoned_g", "group": "misc"},
    {"name": "flood_h", "group": "misc"},
    {"name": "wrongid_i", "group": "misc"},
    {"name": "badstatus_j", "group": "misc"},
    {"name": "na_k", "group": "misc"},
    {"name": "poisonrecord_l", "group": "misc"},
]


def test_every_behaviour_becomes_a_record(tmp_path):
    reg = h.write_registry(tmp_path, MIXED)
    p = h.run(["--cases", reg, "--paths", "onnx", "--timeout", "1.5", "-j", "2"], tmp_path)
    assert p.returncode == 0, p.stderr
    res = h.results(tmp_path / ".opsweep" / "results.db")
    assert len(res) == len(MIXED)
    detail = {k[0]: (v["status"], v["record"]["detail"], v["record"]["step"]) for k, v in res.items()}
    assert detail["ok_a"][0] == "ok"
    assert detail["fail_b"][:2] == ("fail", "fake fail")
    assert detail["na_k"][0] == "n/a"
    assert detail["segv_c"] == ("crash", "worker exited with signal 11 (SIGSEGV) during the job", "worker")
    assert detail["exit7_d"] == ("crash", "worker exited with code 7 during the job", "worker")
    assert detail["hang_e"] == ("timeout", "no result after 1.5 s; the worker's process group was killed", "worker")
    assert detail["badjson_f"] == ("crash", "protocol error: a line that is not JSON", "worker")
    assert detail["poisoned_g"] == ("crash", "poisoned the worker twice: default dtype changed to float64", "worker")
    # Poison is not a crash: a worker found poisoned after a job it finished sends the job's record.
    assert detail["poisonrecord_l"] == ("fail", "fake fail", "export")
    assert res[("poisonrecord_l", "onnx")]["record"]["notes"] == [
        "the worker was found poisoned after this job (inference mode changed from False to True) and was replaced"]
    assert detail["flood_h"][0] == "ok"  # 8 MB on stdout went to the log, not the protocol
    assert detail["wrongid_i"][0] == "crash" and detail["wrongid_i"][1].startswith("protocol error: a 'result' for job")
    assert detail["badstatus_j"] == ("crash", "protocol error: record with status 'crash', which a worker may not report",
                                     "worker")
    onnx = json.loads(h.runs(tmp_path / ".opsweep" / "results.db")[0]["paths_json"])[0]
    for (case, path), row in res.items():
        assert row["status"] == row["record"]["status"]
        assert row["attempts"] == (1 if row["status"] in ("crash", "timeout") else 0)
        assert len(row["job_key"]) == 32
        fields = json.loads(row["key_fields_json"])
        # The onnx path's own tags, in its description's order: its harness digest, its env fields.
        assert list(fields) == ["case", "path", "harness", "python", "torch", "numpy", "device", "onnx", "onnxscript",
                                "onnxruntime", "opset", "openvino", "tract", "opsets", "library"]
        assert fields["case"] == "fp-" + case and fields["path"] == "onnx" and fields["opset"] == "18"
        assert fields["harness"] == onnx["harness"]
    assert res[("hang_e", "onnx")]["duration_s"] >= 1.5
    logs = tmp_path / ".opsweep" / "logs"
    assert sum(f.stat().st_size for f in logs.iterdir()) > 8_000_000
    assert "OMP=1" in (logs / "worker-0.log").read_text(errors="replace")
    run = h.runs(tmp_path / ".opsweep" / "results.db")
    assert len(run) == 1 and run[0]["finished"] and run[0]["shard"] == "1/1"
    assert [p["id"] for p in json.loads(run[0]["paths_json"])] == ["onnx"]
    assert json.loads(run[0]["paths_json"])[0]["title"] == "ONNX"
    assert json.loads(run[0]["env_json"])["torch"] == "2.13.0+cpu"
    summary = p.stderr.strip().splitlines()[-1]
    assert summary.startswith("opsweep run: 12 of 12 jobs ran (ok 2, fail 2, n/a 1, crash 6, timeout 1)"), summary
    assert not h.wait_until_gone(reg)


def test_rerun_reuses_current_results_and_retries_crashes_once(tmp_path):
    journal = tmp_path / "journal"
    reg = h.write_registry(tmp_path, [{"name": "ok_a"}, {"name": "segv_b"}, {"name": "fail_c"}], journal=str(journal))
    db = tmp_path / "out" / "r.db"
    args = ["--cases", reg, "--db", str(db), "-j", "2"]
    assert h.run(args, tmp_path).returncode == 0
    assert len(journal.read_text().splitlines()) == 9
    journal.write_text("")
    p = h.run(args, tmp_path)
    assert p.returncode == 0, p.stderr
    assert "9 jobs planned (from 3 cases x 3 paths): 3 to run: 3 retried; 6 current" in p.stderr
    assert sorted(journal.read_text().splitlines()) == ["segv_b|compile", "segv_b|export", "segv_b|onnx"]
    assert {r["attempts"] for k, r in h.results(db).items() if k[0] == "segv_b"} == {2}
    journal.write_text("")
    p = h.run(args, tmp_path)
    assert p.returncode == 0 and journal.read_text() == ""
    assert "0 to run; 9 current" in p.stderr
    # --retry-failed re-runs the crashes once more.
    p = h.run(args + ["--retry-failed"], tmp_path)
    assert p.returncode == 0 and len(journal.read_text().splitlines()) == 3
    # A changed case fingerprint or environment makes the result stale.
    reg = h.write_registry(tmp_path, [{"name": "ok_a", "fingerprint": "new"}, {"name": "segv_b"}, {"name": "fail_c"}],
                           journal=str(journal), env={"torch": "2.13.0+cpu"})
    journal.write_text("")
    assert h.run(args, tmp_path).returncode == 0
    assert sorted(journal.read_text().splitlines()) == ["ok_a|compile", "ok_a|export", "ok_a|onnx"]
    assert len(h.runs(db)) == 5
    # A field only the onnx path depends on re-probes the onnx jobs only.
    reg = h.write_registry(tmp_path, [{"name": "ok_a", "fingerprint": "new"}, {"name": "segv_b"}, {"name": "fail_c"}],
                           journal=str(journal), env={"onnxruntime": "1.99.0"})
    journal.write_text("")
    p = h.run(args, tmp_path)
    assert p.returncode == 0, p.stderr
    assert sorted(journal.read_text().splitlines()) == ["fail_c|onnx", "ok_a|onnx", "segv_b|onnx"]
    # An edited path module (its harness digest) re-probes that path only.
    reg = h.write_registry(tmp_path, [{"name": "ok_a", "fingerprint": "new"}, {"name": "segv_b"}, {"name": "fail_c"}],
                           journal=str(journal), env={"onnxruntime": "1.99.0"},
                           describe={"compile": {"harness": "edited"}})
    journal.write_text("")
    assert h.run(args, tmp_path).returncode == 0
    # (segv_b|onnx crashed once under its new key above: a crash is retried once, so it runs too)
    assert sorted(journal.read_text().splitlines()) == ["fail_c|compile", "ok_a|compile", "segv_b|compile",
                                                        "segv_b|onnx"]


def test_filters_and_shards(tmp_path):
    cases = [{"name": f"ok_{i}", "group": g} for i, g in enumerate(["color", "geometry", "geometry.epipolar",
                                                                    "geometryx", "filters"] * 8)]
    reg = h.write_registry(tmp_path, cases)
    p = h.run(["--cases", reg, "--groups", "geometry", "--paths", "onnx,compile", "--db", "g.db"], tmp_path)
    assert p.returncode == 0, p.stderr
    res = h.results(tmp_path / "g.db")
    assert len(res) == 32 and {k[1] for k in res} == {"onnx", "compile"}
    p = h.run(["--cases", reg, "--only", "ok_1", "--paths", "export", "--db", "o.db"], tmp_path)
    assert p.returncode == 0
    assert sorted(k[0] for k in h.results(tmp_path / "o.db")) == ["ok_1"] + [f"ok_{i}" for i in range(10, 20)]
    shard_jobs = []
    for i in (1, 2, 3):
        p = h.run(["--cases", reg, "--shard", f"{i}/3", "--db", f"s{i}.db", "-j", "1"], tmp_path)
        assert p.returncode == 0, p.stderr
        assert json.loads(json.dumps(h.runs(tmp_path / f"s{i}.db")[0]["shard"])) == f"{i}/3"
        shard_jobs.append(set(h.results(tmp_path / f"s{i}.db")))
    assert all(len(s) > 10 for s in shard_jobs)
    assert not (shard_jobs[0] & shard_jobs[1]) and not (shard_jobs[1] & shard_jobs[2]) and not (shard_jobs[0] & shard_jobs[2])
    assert len(shard_jobs[0] | shard_jobs[1] | shard_jobs[2]) == 120
    # Deterministic: the same shard again gets the same jobs.
    p = h.run(["--cases", reg, "--shard", "2/3", "--db", "again.db"], tmp_path)
    assert set(h.results(tmp_path / "again.db")) == shard_jobs[1]


def one_line_error(p, code, text):
    assert p.returncode == code, (p.returncode, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert text in lines[0], lines[0]
    assert lines[0].startswith("opsweep run: error: ")


def test_bad_options_are_one_line_errors(tmp_path):
    reg = h.write_registry(tmp_path, [{"name": "ok_a", "group": "color"}])
    for args, text in [
        (["--shard", "3/2"], "--shard '3/2'"),
        (["--shard", "0/2"], "--shard '0/2'"),
        (["--shard", "x"], "--shard 'x'"),
        (["-j", "0"], "-j '0'"),
        (["--threads", "0"], "--threads '0'"),
        (["--timeout", "abc"], "--timeout 'abc'"),
        (["--memory-limit", "-5"], "--memory-limit '-5'"),
        (["--paths", "onnx,tflite"], "unknown path 'tflite'"),
        (["--groups", "geometry"], "unknown group 'geometry'"),
        (["--only", "zzz"], "--only 'zzz' matches no case"),
    ]:
        one_line_error(h.run(["--cases", reg, *args], tmp_path), 2, text)
    one_line_error(h.run(["--cases", str(tmp_path / "missing.json")], tmp_path), 2, "missing.json: no such file")


def test_registry_error_is_forwarded(tmp_path):
    reg = h.write_registry(tmp_path, [{"name": "a"}, {"name": "a"}])
    one_line_error(h.run(["--cases", reg], tmp_path), 2, "duplicate case name 'a'")
    reg = h.write_registry(tmp_path, [], startup={"error": "cases_x.py: cannot import kornia.nope"})
    one_line_error(h.run(["--cases", reg], tmp_path), 2, "cases_x.py: cannot import kornia.nope")


def test_worker_startup_failures(tmp_path):
    reg = h.write_registry(tmp_path, [{"name": "ok_a"}], startup={"sleep": 1.0})
    p = h.run(["--cases", reg, "--db", "slow.db"], tmp_path)
    assert p.returncode == 0, p.stderr  # a slow start is fine
    reg = h.write_registry(tmp_path, [{"name": "ok_a"}], startup={"sleep": 30})
    one_line_error(h.run(["--cases", reg, "--startup-timeout", "1"], tmp_path), 2, "was not ready within 1 s")
    reg = h.write_registry(tmp_path, [{"name": "ok_a"}], startup={"exit": 4})
    one_line_error(h.run(["--cases", reg], tmp_path), 2, "exited with code 4 before it was ready")
    reg = h.write_registry(tmp_path, [{"name": "ok_a"}], startup={"protocol": 1})
    one_line_error(h.run(["--cases", reg], tmp_path), 2, "the worker speaks protocol 1; this engine speaks protocol 3")
    reg = h.write_registry(tmp_path, [{"name": "ok_a"}], startup={"garbage": True})
    one_line_error(h.run(["--cases", reg], tmp_path), 2, "protocol error while starting")
    env = h.fake_env({"OPSWEEP_WORKER_CMD": "/nonexistent/python9"})
    one_line_error(h.run(["--cases", reg], tmp_path, env=env), 2, "cannot execute '/nonexistent/python9'")
    assert not h.wait_until_gone(reg)


def test_python_flag_runs_the_worker_module(tmp_path):
    # --python gets `-m opsweep.worker ...`: a wrapper that drops "-m opsweep.worker" runs the fake.
    wrapper = tmp_path / "py"
    wrapper.write_text(f'#!/bin/sh\n[ "$1" = -m ] && [ "$2" = opsweep.worker ] || exit 9\nshift 2\n'
                       f'exec {sys.executable} {h.FAKE_WORKER} "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    reg = h.write_registry(tmp_path, [{"name": "ok_a"}])
    env = dict(os.environ)
    env.pop("OPSWEEP_WORKER_CMD", None)
    p = h.run(["--cases", reg, "--python", str(wrapper)], tmp_path, env=env)
    assert p.returncode == 0, p.stderr
    env["OPSWEEP_PYTHON"] = str(wrapper)
    p = h.run(["--cases", reg, "--db", "b.db"], tmp_path, env=env)
    assert p.returncode == 0, p.stderr
    assert len(h.results(tmp_path / "b.db")) == 3


def test_library_option_reaches_the_worker(tmp_path):
    reg = h.write_registry(tmp_path, [{"name": "ok_a"}])
    p = h.run(["--cases", reg, "--library", "mylib", "--paths", "export"], tmp_path)
    assert p.returncode == 0, p.stderr
    run = h.runs(tmp_path / ".opsweep" / "results.db")[0]
    assert json.loads(run["env_json"])["library"]["name"] == "mylib"
    fields = json.loads(h.results(tmp_path / ".opsweep" / "results.db")[("ok_a", "export")]["key_fields_json"])
    assert fields["library"] == "mylib"  # its name: what of its code a result depends on is record.deps


def test_workers_are_told_their_memory_limit(tmp_path):
    # the harness keeps what it starts beside a worker (the ONNX runtime host) inside the limit
    # the engine applies to the worker's process group, so the worker must know it
    reg = h.write_registry(tmp_path, [{"name": "ok_a"}])
    p = h.run(["--cases", reg, "--paths", "export", "--memory-limit", "1234"], tmp_path)
    assert p.returncode == 0, p.stderr
    log = (tmp_path / ".opsweep" / "logs" / "worker-0.log").read_text()
    assert "memory limit 1234 MiB)" in log, log


def test_workers_get_one_torch_thread_whatever_j_unless_asked(tmp_path):
    # A case's inputs are built when its registry loads, and some CPU kernels round differently with
    # more threads (bilinear interpolate by 1 ulp, seen on 12 kornia cases): the thread count must not
    # follow -j or the machine's cores, or those cases' keys would change with them.
    reg = h.write_registry(tmp_path, [{"name": "ok_a"}])
    for args, want in [(["-j", "1"], "threads=1, OMP=1,"), (["-j", "1", "--threads", "3"], "threads=3, OMP=3,")]:
        p = h.run(["--cases", reg, "--paths", "export", "--db", "t.db", "--retry-failed", *args], tmp_path)
        assert p.returncode == 0, p.stderr
        log = (tmp_path / "logs" / "worker-0.log").read_text()
        assert want in log.rsplit("--- opsweep: starting worker 0 ---", 1)[-1], log
        assert f"x {want.split(',')[0].split('=')[1]} thread" in p.stderr, p.stderr


def test_a_new_path_needs_nothing_but_its_description(tmp_path):
    # The fake worker describes a path the engine has never heard of: planned, keyed and scheduled.
    reg = h.write_registry(tmp_path, [{"name": "ok_a"}, {"name": "fail_b"}], paths=["export", "toy"])
    p = h.run(["--cases", reg], tmp_path)
    assert p.returncode == 0, p.stderr
    assert "4 jobs planned (from 2 cases x 2 paths)" in p.stderr
    res = h.results(tmp_path / ".opsweep" / "results.db")
    assert res[("fail_b", "toy")]["record"]["step"] == "capture"
    fields = json.loads(res[("ok_a", "toy")]["key_fields_json"])
    assert list(fields) == ["case", "path", "harness", "python", "torch", "library"]
    assert fields["harness"] == "harness-toy"


def test_durations_from_another_survey_order_a_fresh_database_longest_first(tmp_path):
    journal = tmp_path / "journal"
    names = ["a", "b", "c", "d", "e"]
    reg = h.write_registry(tmp_path, [{"name": f"ok_{n}"} for n in names], journal=str(journal))
    db = tmp_path / "r.db"
    base = ["--cases", reg, "--paths", "onnx", "-j", "1", "--db", str(db)]
    # Without other durations every job expects the path's default (4 s): plan order.
    p = h.run(base, tmp_path)
    assert p.returncode == 0, p.stderr
    assert journal.read_text().splitlines() == [f"ok_{n}|onnx" for n in names]
    # Another survey's timings (a torch release's committed snapshot.timings.json): a fresh database runs
    # its longest jobs first; a job without a duration there keeps the default, between them.
    timings = tmp_path / "snapshot.timings.json"
    timings.write_text(json.dumps({"schema": 1, "records": {
        "ok_a": {"onnx": {"duration_s": 1.0, "size_kb": 3.1}},
        "ok_c": {"onnx": {"duration_s": 90.0, "size_kb": None}, "compile": {"duration_s": 500.0, "size_kb": None}},
        "ok_d": {"onnx": {"duration_s": 12.5, "size_kb": None}},
        "ok_e": {"onnx": {"duration_s": None, "size_kb": None}},
        "gone": {"onnx": {"duration_s": 7.0, "size_kb": None}}}}))
    db.unlink()
    journal.write_text("")
    p = h.run([*base, "--durations-from", str(timings)], tmp_path)
    assert p.returncode == 0, p.stderr
    assert journal.read_text().splitlines() == ["ok_c|onnx", "ok_d|onnx", "ok_b|onnx", "ok_e|onnx", "ok_a|onnx"]
    # The database's own durations come first: after a run, the file changes nothing in what runs.
    journal.write_text("")
    p = h.run([*base, "--durations-from", str(timings)], tmp_path)
    assert p.returncode == 0 and journal.read_text() == ""


def test_durations_from_a_bad_file_is_a_one_line_error_before_anything_is_touched(tmp_path):
    reg = h.write_registry(tmp_path, [{"name": "ok_a"}])
    db = tmp_path / "r.db"
    p = h.run(["--cases", reg, "--paths", "onnx", "--db", str(db)], tmp_path)
    assert p.returncode == 0, p.stderr
    before = db.read_bytes()
    bad = tmp_path / "bad.json"
    for text, message in [
        (None, "cannot read the file"),
        ("{not json", "not JSON"),
        ('{"schema": 1, "records": []}', "not a snapshot timings file"),
        ('{"schema": 2, "records": {}}', "not a snapshot timings file"),
        ('{"schema": 1, "records": {"ok_a": {"onnx": 3}}}', "record 'ok_a', path 'onnx'"),
        ('{"schema": 1, "records": {"ok_a": {"onnx": {"duration_s": "3"}}}}', "record 'ok_a', path 'onnx'"),
    ]:
        target = tmp_path / "missing.json" if text is None else bad
        if text is not None:
            bad.write_text(text)
        one_line_error(h.run(["--cases", reg, "--paths", "onnx", "--db", str(db), "--durations-from", str(target)],
                             tmp_path), 2, message)
        assert db.read_bytes() == before
