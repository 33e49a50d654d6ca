"""Shared helpers for tests/test_run_*.py: find the binary, write fake registries, run the engine
with the fake worker (tests/fake_workers/fake_worker.py), read the results database."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE_WORKER = os.path.join(HERE, "fake_worker.py")
DEFAULT_BINARY = "/work/main/build/tests/opsweep"


def binary():
    path = os.environ.get("OPSWEEP_BINARY", DEFAULT_BINARY)
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        pytest.fail(f"opsweep binary not found at {path}: build it (scripts/test.sh) or set OPSWEEP_BINARY")
    return path


def write_registry(directory, cases, filename="reg.json", **extra):
    """Writes a fake registry (see fake_worker.py) and returns its path."""
    data = {"cases": cases, **extra}
    path = os.path.join(str(directory), filename)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f)
    return path


def fake_env(extra=None):
    env = dict(os.environ)
    env["OPSWEEP_WORKER_CMD"] = f"{sys.executable} {FAKE_WORKER}"
    env.pop("OPSWEEP_PYTHON", None)
    if extra:
        env.update(extra)
    return env


def run(args, cwd, timeout=60, env=None):
    """Runs `opsweep run ARGS` to completion; returns the CompletedProcess (text)."""
    return subprocess.run([binary(), "run", *args], cwd=str(cwd), env=env or fake_env(), capture_output=True,
                          text=True, timeout=timeout)


def start(args, cwd, env=None):
    return subprocess.Popen([binary(), "run", *args], cwd=str(cwd), env=env or fake_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def results(db):
    """{(case, path): row dict} of the results table."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    con.row_factory = sqlite3.Row
    try:
        rows = con.execute("SELECT * FROM results").fetchall()
    finally:
        con.close()
    out = {}
    for r in rows:
        row = dict(r)
        row["record"] = json.loads(row["record_json"])
        out[(row["case_name"], row["path"])] = row
    return out


def count_results(db):
    if not os.path.exists(db):
        return 0
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            return con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def runs(db):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    con.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in con.execute("SELECT * FROM runs ORDER BY id")]
    finally:
        con.close()


def wait_for_results(db, n, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if count_results(db) >= n:
            return
        time.sleep(0.05)
    raise AssertionError(f"{db}: fewer than {n} results after {timeout} s")


def live_processes_mentioning(marker):
    """PIDs of live (not zombie) processes whose command line contains `marker`."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().decode(errors="replace")
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmd and state != "Z":
            pids.append(int(entry))
    return pids


def wait_until_gone(marker, timeout=5):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if not live_processes_mentioning(marker):
            return []
        time.sleep(0.05)
    return live_processes_mentioning(marker)


def kill_leftovers(marker):
    for pid in live_processes_mentioning(marker):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
