"""Shared test helpers: a real worker process driven over os.pipe() FDs, and its results.

The worker run over the statuses registry for all three paths is the expensive part of the suite
(it compiles with inductor); it happens once per session (``statuses_run``) and every protocol and
status test asserts on it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)
FIXTURES = os.path.join(HERE, "fixtures")
STATUSES_REGISTRY = os.path.join(FIXTURES, "cases_statuses.py")
POISON_REGISTRY = os.path.join(FIXTURES, "cases_poison.py")
PATH_NAMES = ("onnx", "export", "compile")

if PYTHON_DIR not in sys.path:
    sys.path.insert(0, PYTHON_DIR)
if FIXTURES not in sys.path:
    sys.path.append(FIXTURES)


class Worker:
    """``python -m opsweep.worker`` with its protocol on two pipes and its log in a file."""

    def __init__(self, registries: list[str], log_path: str, *, threads: int = 1, library: str | None = None,
                 extra_args: list[str] | None = None):
        to_worker_r, to_worker_w = os.pipe()
        from_worker_r, from_worker_w = os.pipe()
        args = [sys.executable, "-m", "opsweep.worker", "--proto-in", str(to_worker_r),
                "--proto-out", str(from_worker_w), "--threads", str(threads)]
        for r in registries:
            args += ["--registry", r]
        if library:
            args += ["--library", library]
        args += extra_args or []
        env = dict(os.environ)
        env["PYTHONPATH"] = PYTHON_DIR + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        self.log_path = log_path
        self._log = open(log_path, "wb")
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
                                     pass_fds=(to_worker_r, from_worker_w), env=env, start_new_session=True)
        os.close(to_worker_r)
        os.close(from_worker_w)
        self._out = os.fdopen(to_worker_w, "wb", buffering=0)
        self._in = os.fdopen(from_worker_r, "rb")
        self._next_id = 1

    def receive(self) -> dict[str, Any] | None:
        line = self._in.readline()
        if not line:
            return None
        return json.loads(line)

    def send(self, message: dict[str, Any]) -> None:
        self._out.write(json.dumps(message).encode() + b"\n")

    def job(self, case: str, path: str) -> dict[str, Any] | None:
        job_id = self._next_id
        self._next_id += 1
        self.send({"type": "job", "id": job_id, "case": case, "path": path})
        message = self.receive()
        if message is not None:
            assert message.get("id") == job_id, message
        return message

    def close(self, timeout: float = 60) -> int:
        try:
            self._out.close()
        except OSError:
            pass
        try:
            return self.proc.wait(timeout=timeout)
        finally:
            self._in.close()
            self._log.close()

    def log(self) -> str:
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()


@pytest.fixture(scope="session")
def statuses_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One worker over the statuses registry, every case through every path."""
    log = str(tmp_path_factory.mktemp("worker") / "worker.log")
    w = Worker([STATUSES_REGISTRY], log)
    hello = w.receive()
    inventory = w.receive()
    assert hello and hello["type"] == "hello", (hello, w.log())
    assert inventory and inventory["type"] == "inventory", (inventory, w.log())
    results: dict[tuple[str, str], dict[str, Any]] = {}
    messages = []
    for entry in inventory["cases"]:
        for path in PATH_NAMES:
            message = w.job(entry["name"], path)
            assert message is not None, w.log()
            messages.append(message)
            results[(entry["name"], path)] = message["record"]
    unknown_case = w.job("no such case", "onnx")
    unknown_path = w.job("add_scaled", "tensorrt")
    w.send({"type": "shutdown"})
    code = w.close()
    return {"hello": hello, "inventory": inventory, "messages": messages, "results": results,
            "unknown_case": unknown_case, "unknown_path": unknown_path, "exit_code": code, "log": w.log()}
