"""Test helpers: a real ``python -m opsweep.worker`` driven over os.pipe() FDs.

Kept out of conftest.py so tests can import it by a name no other conftest shadows.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)
FIXTURES = os.path.join(HERE, "fixtures")
STATUSES_REGISTRY = os.path.join(FIXTURES, "cases_statuses.py")
POISON_REGISTRY = os.path.join(FIXTURES, "cases_poison.py")
PATH_NAMES = ("onnx", "export", "compile")
# Like the engine, keep inductor's cache under the project's .opsweep/ (git-ignored): reruns of the
# suite reuse compiled kernels.
INDUCTOR_CACHE = os.path.join(os.path.dirname(PYTHON_DIR), ".opsweep", "test-inductor-cache")


class Worker:
    """``python -m opsweep.worker`` with its protocol on two pipes and its log in a file."""

    def __init__(self, registries: list[str], log_path: str, *, threads: int = 1, library: str | None = None,
                 extra_args: list[str] | None = None, env: dict[str, str] | None = None):
        to_worker_r, to_worker_w = os.pipe()
        from_worker_r, from_worker_w = os.pipe()
        args = [sys.executable, "-m", "opsweep.worker", "--proto-in", str(to_worker_r),
                "--proto-out", str(from_worker_w), "--threads", str(threads)]
        for r in registries:
            args += ["--registry", r]
        if library:
            args += ["--library", library]
        args += extra_args or []
        env = {**os.environ, **(env or {})}
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
