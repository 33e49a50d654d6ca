"""Scale-out end to end: a survey run as N shards (separate databases, run at the same time) and
merged gives the snapshot of the one-database run, byte for byte; a shard lost (its database gone,
or its run killed half-way) and rerun changes nothing. Fake workers (no torch), the real binary.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_workers"))
import run_helpers as h  # noqa: E402

SHARDS = 4
GROUPS = ["color", "filters", "geometry.transform", "geometry.epipolar", "augmentation.2d", "feature"]
# Every status the fake worker can give that is also deterministic: ok, fail, mismatch, n/a, and a
# segfault (crash, recorded by the engine) on one path of a few cases.
BEHAVIOURS = ["ok", "ok", "fail", "ok", "mismatch", "na", "ok", "fail"]


def survey_cases():
    cases = []
    for i in range(72):
        c = {"name": f"{BEHAVIOURS[i % len(BEHAVIOURS)]}_{i:02d}", "group": GROUPS[i % len(GROUPS)], "sleep": 0.03}
        if i % 17 == 5:
            c["paths"] = {"compile": "segv"}
        cases.append(c)
    return cases


@pytest.fixture()
def survey(tmp_path):
    reg = h.write_registry(tmp_path, survey_cases(), journal=str(tmp_path / "journal"))
    return tmp_path, reg


def run_args(reg, db, *extra):
    return ["--cases", reg, "--db", db, "-j", "1", *extra]


def merge(tmp_path, dbs, out):
    p = subprocess.run([h.binary(), "merge", *map(str, dbs), "-o", str(out)], cwd=str(tmp_path),
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr + p.stdout
    return out.read_bytes()


def run_shards_concurrently(tmp_path, reg, shards, prefix="shard"):
    procs = {i: h.start(run_args(reg, f"{prefix}-{i}.db", "--shard", f"{i}/{SHARDS}"), tmp_path) for i in shards}
    for i, p in procs.items():
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, (i, err)
    return [tmp_path / f"{prefix}-{i}.db" for i in shards]


def one_database_snapshot(tmp_path, reg):
    p = h.run(run_args(reg, "one.db"), tmp_path, timeout=120)
    assert p.returncode == 0, p.stderr
    return merge(tmp_path, [tmp_path / "one.db"], tmp_path / "one.json")


def journal(tmp_path):
    path = tmp_path / "journal"
    return path.read_text().splitlines() if path.exists() else []


def test_concurrent_shards_merge_to_the_one_database_snapshot(survey):
    tmp_path, reg = survey
    one = one_database_snapshot(tmp_path, reg)
    records = json.loads(one)["records"]
    statuses = {o["status"] for r in records for o in r["paths"].values()}
    assert statuses == {"ok", "fail", "mismatch", "n/a", "crash"}, statuses  # the survey is not trivial

    dbs = run_shards_concurrently(tmp_path, reg, range(1, SHARDS + 1))
    # The shards really ran at the same time: every run started before every other one finished
    # (times have whole seconds; each shard takes well over one).
    spans = [(h.runs(db)[0]["started"], h.runs(db)[0]["finished"]) for db in dbs]
    assert all(s <= f for s, _ in spans for _, f in spans), spans
    # Each shard measured its own share only; together, every job exactly once.
    shares = [set(h.results(db)) for db in dbs]
    assert all(shares) and sum(map(len, shares)) == len(set().union(*shares)) == 72 * 3
    assert merge(tmp_path, dbs, tmp_path / "sharded.json") == one
    assert merge(tmp_path, list(reversed(dbs)), tmp_path / "reversed.json") == one


def test_a_lost_shard_rerun_changes_nothing(survey):
    tmp_path, reg = survey
    one = one_database_snapshot(tmp_path, reg)
    dbs = run_shards_concurrently(tmp_path, reg, range(1, SHARDS + 1))
    assert merge(tmp_path, dbs, tmp_path / "before.json") == one

    # Shard 2 is lost with its machine: its database is gone. Without it merge refuses; rerun alone,
    # it measures exactly its share again and the merge is the same snapshot.
    lost = set(h.results(dbs[1]))
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(f"{dbs[1]}{suffix}"):
            os.remove(f"{dbs[1]}{suffix}")
    p = subprocess.run([h.binary(), "merge", *map(str, [dbs[0], *dbs[2:]]), "-o", str(tmp_path / "partial.json")],
                       cwd=str(tmp_path), capture_output=True, text=True, timeout=60)
    assert p.returncode == 1 and not (tmp_path / "partial.json").exists(), p.stdout + p.stderr
    (tmp_path / "journal").unlink()
    run_shards_concurrently(tmp_path, reg, [2])
    assert {tuple(j.split("|")) for j in journal(tmp_path)} == lost
    assert merge(tmp_path, dbs, tmp_path / "rerun.json") == one

    # Rerunning a complete shard measures nothing new but its crashes (retried once, by design),
    # and changes nothing.
    (tmp_path / "journal").unlink()
    run_shards_concurrently(tmp_path, reg, [3])
    rerun = {tuple(j.split("|")) for j in journal(tmp_path)}
    assert rerun == {k for k, row in h.results(dbs[2]).items() if row["status"] == "crash"}
    assert merge(tmp_path, dbs, tmp_path / "again.json") == one


def test_a_shard_killed_half_way_and_resumed_changes_nothing(survey):
    tmp_path, reg = survey
    one = one_database_snapshot(tmp_path, reg)
    dbs = run_shards_concurrently(tmp_path, reg, [1, 3, 4])
    killed = tmp_path / "shard-2.db"
    p = h.start(run_args(reg, killed.name, "--shard", f"2/{SHARDS}"), tmp_path)
    try:
        h.wait_for_results(killed, 10)
        p.send_signal(signal.SIGKILL)  # the machine is gone: no clean shutdown of anything
        p.wait(timeout=30)
    finally:
        h.wait_until_gone(reg)  # its workers see their pipes close and exit
        h.kill_leftovers(reg)
    partial = set(h.results(killed))
    (tmp_path / "journal").unlink()
    run_shards_concurrently(tmp_path, reg, [2])
    resumed = {tuple(j.split("|")) for j in journal(tmp_path)}
    complete = set(h.results(killed))
    # The rerun measured only what the killed run had not stored (and retried its crashes).
    assert partial and resumed and not (resumed & {k for k in partial if h.results(killed)[k]["status"] != "crash"})
    assert partial | resumed == complete
    assert merge(tmp_path, [*dbs[:1], killed, *dbs[1:]], tmp_path / "resumed.json") == one
