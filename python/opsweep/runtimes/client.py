"""The worker's side of the runtime host: start it lazily, send one request, wait with a deadline.

Contract of ``RuntimeHost.request(message, timeout_s) -> Reply``:
- The host process is started on the first request (and again after it was killed or died), with
  the worker's Python, its thread count in the usual environment variables, its stdout / stderr
  (the worker's log), in the worker's process group (the engine's kill of a worker takes the host
  along). The protocol is host.py's, over two pipes of its own.
- ``ok``: the host answered ``{"ok": true, ...}``; ``error``: it answered with an exception of the
  runtime (``reply.error``: type, message, chain).
- ``timeout``: no whole answer within ``timeout_s``; the host is killed (SIGKILL) and reaped.
- ``crash``: the host died before answering (``reply.detail``: "exited with signal 11 (SIGSEGV)"),
  or grew past its memory budget while working on the request: it is killed and reaped ("the
  runtime host exceeded its memory budget of 4096 MiB"). The budget (``memory_limit_mib``, default
  ``$OPSWEEP_RUNTIME_MEMORY_MIB`` or 4096; 0 for none) keeps a runtime that blows up (the
  reference evaluator's numpy convolutions, a runtime's compile of a large model) inside its own
  verdict: the host is in the worker's process group, whose memory the engine limits as a whole,
  and the engine's kill would take the worker's onnxruntime verdict along. So the budget is also
  never more than the room the engine's limit leaves: when the engine gives its limit on the
  worker's process group (``$OPSWEEP_MEMORY_LIMIT_MIB``, set by ``opsweep run``), each request's
  budget is at most that limit less what the worker itself holds at that moment and a margin
  (``GROUP_MARGIN_MIB`` or a tenth of the limit, whichever is larger: the host is sampled every
  ``MEMORY_POLL_S``, and may grow between samples). The crash detail says which bound applied.
Nothing here raises for what a runtime does; a failure to start the host is a ``crash`` too.
"""

from __future__ import annotations

import dataclasses
import os
import pickle
import select
import signal
import subprocess
import sys
import time
from typing import Any

HOST_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "host.py")
_HEADER_SIZE = 8
_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
DEFAULT_MEMORY_MIB = 4096
MEMORY_POLL_S = 0.2  # how often the host's resident size is read while it works


GROUP_MARGIN_MIB = 512  # at least this much of the engine's limit stays free beside worker and host


def _default_memory_mib() -> int:
    try:
        return max(0, int(os.environ.get("OPSWEEP_RUNTIME_MEMORY_MIB", DEFAULT_MEMORY_MIB)))
    except ValueError:
        return DEFAULT_MEMORY_MIB


def _group_limit_mib() -> int:
    """The engine's memory limit on this worker's process group (MiB), 0 when none was given."""
    try:
        return max(0, int(os.environ.get("OPSWEEP_MEMORY_LIMIT_MIB", "0")))
    except ValueError:
        return 0


def resident_mib(pid: int) -> float | None:
    """The resident size of process ``pid`` (MiB), None when it cannot be read."""
    try:
        with open(f"/proc/{pid}/statm", encoding="ascii") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)
    except (OSError, ValueError, IndexError):
        return None


@dataclasses.dataclass
class Reply:
    kind: str  # "ok" | "error" | "timeout" | "crash"
    value: dict[str, Any] = dataclasses.field(default_factory=dict)
    detail: str = ""  # timeout / crash: what happened to the host

    @property
    def error(self) -> dict[str, Any]:
        return self.value.get("error") or {}


def describe_exit(code: int | None) -> str:
    if code is None:
        return "did not exit"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"exited with signal {-code} ({name})"
    return f"exited with code {code}"


class RuntimeHost:
    """One host process, restarted on demand. Not thread-safe (one worker, one job at a time)."""

    def __init__(self, threads: int = 1, python: str = sys.executable, memory_limit_mib: int | None = None,
                 group_limit_mib: int | None = None):
        self.threads = max(1, int(threads))
        self.python = python
        self.memory_limit_mib = _default_memory_mib() if memory_limit_mib is None else max(0, int(memory_limit_mib))
        self.group_limit_mib = _group_limit_mib() if group_limit_mib is None else max(0, int(group_limit_mib))
        self._budget_mib = self.memory_limit_mib  # this request's (``budget()`` at its start)
        self._budget_why = ""
        self._proc: subprocess.Popen[bytes] | None = None
        self._to_host: int | None = None
        self._from_host: int | None = None
        self.starts = 0  # how many host processes this client started (tests assert restarts)

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def _start(self) -> None:
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        env = dict(os.environ)
        for var in _THREAD_VARS:
            env[var] = str(self.threads)
        try:
            self._proc = subprocess.Popen(
                [self.python, "-u", HOST_SCRIPT, "--in", str(req_r), "--out", str(rep_w),
                 "--threads", str(self.threads)],
                stdin=subprocess.DEVNULL,
                pass_fds=(req_r, rep_w),
                env=env,
            )
        finally:
            os.close(req_r)
            os.close(rep_w)
        os.set_inheritable(req_w, False)
        os.set_inheritable(rep_r, False)
        self._to_host, self._from_host = req_w, rep_r
        self.starts += 1

    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def kill(self) -> None:
        """Kill and reap the host (if any); the next request starts a new one."""
        proc, self._proc = self._proc, None
        for fd in (self._to_host, self._from_host):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._to_host = self._from_host = None
        if proc is not None:
            if proc.poll() is None:
                try:
                    proc.send_signal(signal.SIGKILL)
                except OSError:
                    pass
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL cannot be ignored
                pass

    def close(self) -> None:
        """Ask the host to exit (EOF), then make sure it did."""
        if self._proc is None:
            return
        if self._to_host is not None:
            try:
                os.close(self._to_host)
            except OSError:
                pass
            self._to_host = None
        try:
            self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self.kill()

    def budget(self) -> tuple[int, str]:
        """The host's memory budget for a request starting now (MiB; 0 for none), and, when the room
        left by the engine's limit set it, the sentence that says so."""
        own = self.memory_limit_mib
        if not self.group_limit_mib:
            return own, ""
        worker = resident_mib(os.getpid()) or 0.0
        margin = max(GROUP_MARGIN_MIB, self.group_limit_mib // 10)
        room = max(0, int(self.group_limit_mib - worker - margin))
        if own and own <= room:
            return own, ""
        return room, (f"the worker's memory limit of {self.group_limit_mib:,} MiB less the {worker:,.0f} MiB "
                      f"the worker holds and a {margin:,} MiB margin")

    def close_if_larger_than(self, mib: float) -> bool:
        """Close the host when its resident size is above ``mib`` (the next request starts a new,
        small one); True when it was closed."""
        if self._proc is None:
            return False
        rss = resident_mib(self._proc.pid)
        if rss is None or rss <= mib:
            return False
        self.close()
        return True

    def _over_budget(self) -> Reply | None:
        """A crash reply (the host killed) when the host has grown past its memory budget."""
        if not (self.memory_limit_mib or self.group_limit_mib) or self._proc is None:
            return None
        rss = resident_mib(self._proc.pid)
        if rss is None or rss <= self._budget_mib:
            return None
        self.kill()
        why = f": {self._budget_why}" if self._budget_why else ""
        return Reply("crash", detail=f"the runtime host exceeded its memory budget of {self._budget_mib:,} MiB{why} "
                                     f"({rss:,.0f} MiB resident); it was killed")

    def _died(self) -> Reply:
        proc = self._proc
        code = None
        if proc is not None:
            try:
                code = proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                code = None
        self.kill()
        return Reply("crash", detail=f"the runtime host {describe_exit(code)}")

    def request(self, message: dict[str, Any], timeout_s: float) -> Reply:
        deadline = time.monotonic() + max(0.0, timeout_s)
        if not self.alive():
            self.kill()
            try:
                self._start()
            except OSError as e:
                self.kill()
                return Reply("crash", detail=f"the runtime host could not be started: {e}")
        self._budget_mib, self._budget_why = self.budget()
        data = pickle.dumps(message, protocol=5)
        sent = self._send(len(data).to_bytes(_HEADER_SIZE, "big") + data, deadline)
        if sent is not None:
            return sent
        return self._receive(deadline, timeout_s)

    def _send(self, data: bytes, deadline: float) -> Reply | None:
        fd = self._to_host
        assert fd is not None
        view = memoryview(data)
        os.set_blocking(fd, False)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.kill()
                return Reply("timeout", detail="the runtime host did not take the request in time")
            _, writable, _ = select.select([], [fd], [], remaining)
            if not writable:
                continue
            try:
                n = os.write(fd, view[: 1 << 20])
            except BlockingIOError:
                continue
            except (BrokenPipeError, OSError):
                return self._died()
            view = view[n:]
        return None

    def _receive(self, deadline: float, timeout_s: float) -> Reply:
        fd = self._from_host
        assert fd is not None
        buf = bytearray()
        need = _HEADER_SIZE
        have_header = False
        while True:
            while len(buf) < need:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self.kill()
                    return Reply("timeout", detail=f"no answer within {timeout_s:g} s; the runtime host was killed")
                wait = min(remaining, MEMORY_POLL_S) if (self.memory_limit_mib or self.group_limit_mib) else remaining
                readable, _, _ = select.select([fd], [], [], wait)
                if not readable:
                    over = self._over_budget()
                    if over is not None:
                        return over
                    continue
                chunk = os.read(fd, max(need - len(buf), 1 << 16))
                if not chunk:
                    return self._died()
                buf += chunk
            if have_header:
                break
            need = _HEADER_SIZE + int.from_bytes(buf[:_HEADER_SIZE], "big")
            have_header = True
        try:
            value = pickle.loads(bytes(buf[_HEADER_SIZE:need]))
        except Exception as e:  # noqa: BLE001 - a garbled answer is a broken host
            self.kill()
            return Reply("crash", detail=f"the runtime host sent an unreadable answer ({type(e).__name__})")
        if not isinstance(value, dict):
            self.kill()
            return Reply("crash", detail="the runtime host sent an answer that is not a message")
        return Reply("ok" if value.get("ok") else "error", value)


_shared: RuntimeHost | None = None


def shared_host(threads: int) -> RuntimeHost:
    """The worker's one host (started lazily by its first request)."""
    global _shared
    if _shared is None or _shared.threads != max(1, int(threads)):
        if _shared is not None:
            _shared.close()
        _shared = RuntimeHost(threads)
    return _shared
