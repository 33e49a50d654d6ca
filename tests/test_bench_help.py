"""Every bench in bench/ answers --help with its usage and exit status 0.

The benches are not timed tests, so nothing else runs them: this keeps each one at least importable
and its options parseable. --help must need no built engine (OPSWEEP_BINARY points nowhere here)
and no survey database.
"""
import os
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]
BENCH = REPO / "bench"

# The benches that guard a target in docs/performance.md, and how each is started.
BENCHES = {
    "bench_engine.py": [sys.executable],
    "bench_floor.py": [sys.executable],
    "bench_history.py": [sys.executable],
    "bench_plan_memory.py": [sys.executable],
    "bench_recorder.py": [sys.executable],
    "bench_refresh.py": [sys.executable],
    "bench_runtimes.py": [sys.executable],
    "bench_utilisation.sh": ["bash"],
}


def test_every_bench_is_listed_here():
    found = {p.name for p in BENCH.iterdir() if p.name.startswith("bench_")}
    assert found == set(BENCHES), "a bench was added or removed: list it in BENCHES (and docs/performance.md)"


@pytest.mark.parametrize("name", sorted(BENCHES))
def test_bench_help_prints_usage_and_exits_0(name, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"), OPSWEEP_BINARY=str(tmp_path / "no-such-opsweep"))
    proc = subprocess.run(BENCHES[name] + [str(BENCH / name), "--help"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.lower().startswith("usage:"), proc.stdout
