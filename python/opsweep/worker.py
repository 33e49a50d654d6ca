"""``python -m opsweep.worker``: a warm worker speaking protocol 3 (docs/formats.md section 2).

    python -m opsweep.worker --proto-in FD --proto-out FD --registry FILE [--registry FILE ...]
                             [--threads N] [--library NAME] [--index-cache FILE]

Contract:
- The protocol travels only over the two inherited pipe FDs (JSON objects, one per line, UTF-8);
  stdout and stderr are the worker's log, so whatever probed code prints never reaches the
  protocol. The FDs are made non-inheritable so compiler subprocesses never hold them open.
- Start: import torch, set ``torch.set_num_threads(--threads)``, load the registries (watching
  what the library's import and the registries run: deps.py), send ``hello`` (protocol, pid,
  harness digest, paths, the environment measured in this interpreter), then ``inventory``, then
  ``index`` (the current digests of the library's functions and modules; parsed once and cached
  in ``--index-cache`` by path, mtime and size); a registry that cannot be loaded sends ``error``
  instead of the inventory and exits 2. Every record carries ``deps`` (job.py).
- Then one ``result`` or ``poisoned`` per ``job``, in order; ``shutdown`` or EOF exits 0. A
  malformed message is answered with ``error`` and exit 2 (an engine bug, not a case's fault).
- Poison: after every job the global torch state is compared with a snapshot taken at start
  (default dtype, grad mode, inference mode, thread count, deterministic-algorithm flags, default
  device, the dispatcher's thread-local key sets, the torch-function / torch-dispatch mode stacks),
  and the record's error text is searched for dispatcher corruption messages. Either sends
  ``poisoned`` (instead of the result) and exits 3; the engine re-queues the job elsewhere.
- Inductor's cache directory is whatever TORCHINDUCTOR_CACHE_DIR says (the engine sets it under
  ``.opsweep/``); nothing here overrides it.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from typing import Any, BinaryIO, Callable

PROTOCOL = 3

# Error texts that mean the dispatcher's state is corrupt (not merely that an op is missing).
DISPATCHER_POISON_MARKERS = (
    "PythonDispatcherTLS",
    "dispatch key set mismatch",
)


class Channel:
    """The protocol pipes: one JSON object per line each way."""

    def __init__(self, fd_in: int, fd_out: int):
        for fd in (fd_in, fd_out):
            try:
                os.set_inheritable(fd, False)
            except OSError:
                pass
        self._in: BinaryIO = os.fdopen(fd_in, "rb")
        self._out: BinaryIO = os.fdopen(fd_out, "wb", buffering=0)

    def send(self, message: dict[str, Any]) -> None:
        data = json.dumps(_finite(message), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        self._out.write(data.encode("utf-8") + b"\n")

    def receive(self) -> dict[str, Any] | None:
        """The next message; None at EOF. Raises ValueError for a malformed line."""
        while True:
            line = self._in.readline()
            if not line:
                return None
            if line.strip():
                break
        message = json.loads(line.decode("utf-8"))
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            raise ValueError(f"not a protocol message: {line[:200]!r}")
        return message


def _finite(value: Any) -> Any:
    """Replace non-finite floats (invalid JSON) with None, recursively."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def measure_env(library: Any, library_fingerprint: str) -> dict[str, Any]:
    """The environment as this interpreter sees it (hello.env): every field some path depends on
    (each path's description lists its own), plus the surveyed library."""
    from opsweep.paths import path_env

    env = path_env()
    env["library"] = {
        "name": library.name if library else "",
        "version": library.version if library else "",
        "fingerprint": library_fingerprint,
    }
    return env


def harness_fingerprint() -> str:
    """Digest of the common harness modules (every path's own digest is in its description)."""
    from opsweep.library import _hash_files
    from opsweep.paths import common_harness_files

    return _hash_files(common_harness_files())


def torch_state() -> dict[str, str]:
    """Global torch state that a case must not change (compared after every job)."""
    import torch

    state: dict[str, Callable[[], Any]] = {
        "default dtype": torch.get_default_dtype,
        "grad mode": torch.is_grad_enabled,
        "inference mode": torch.is_inference_mode_enabled,
        "thread count": torch.get_num_threads,
        "deterministic algorithms": torch.are_deterministic_algorithms_enabled,
        "deterministic warn-only": torch.is_deterministic_algorithms_warn_only_enabled,
        "default device": torch.get_default_device,
        "dispatch TLS include set": torch._C._dispatch_tls_local_include_set,
        "dispatch TLS exclude set": torch._C._dispatch_tls_local_exclude_set,
        "torch_dispatch mode stack depth": torch._C._len_torch_dispatch_stack,
        "torch_function mode stack depth": torch._C._len_torch_function_stack,
    }
    out = {}
    for name, getter in state.items():
        try:
            out[name] = str(getter())
        except Exception as e:  # noqa: BLE001 - an unreadable state is itself a state
            out[name] = f"<unreadable: {type(e).__name__}>"
    return out


def poison_reason(before: dict[str, str], record: dict[str, Any] | None) -> str | None:
    """Why the interpreter can no longer be trusted after a job, or None."""
    after = torch_state()
    changed = [f"{k} changed from {before[k]} to {after.get(k)}" for k in before if after.get(k) != before[k]]
    if changed:
        return "; ".join(changed)
    error = (record or {}).get("error") or {}
    text = f"{error.get('message', '')}\n{error.get('chain', '')}"
    for marker in DISPATCHER_POISON_MARKERS:
        if marker in text:
            return f"dispatcher error: {marker!r} in the error of the job"
    return None


def _log(text: str) -> None:
    print(f"[opsweep.worker {os.getpid()}] {text}", file=sys.stderr, flush=True)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m opsweep.worker", description=__doc__.split("\n")[0])
    p.add_argument("--proto-in", type=int, required=True, help="FD to read engine messages from")
    p.add_argument("--proto-out", type=int, required=True, help="FD to write worker messages to")
    p.add_argument("--registry", action="append", required=True, help="registry file (repeatable)")
    p.add_argument("--threads", type=int, default=1, help="torch threads for this worker")
    p.add_argument("--library", default=None, help="the surveyed library (default: from the targets)")
    p.add_argument("--index-cache", default=None, help="file caching the parsed library index")
    return p.parse_args(argv)


def unknown_index(library: str) -> dict[str, Any]:
    """The index message of a worker without a library: no digests (the engine falls back to the
    library fingerprint of hello.env)."""
    from opsweep.deps import INDEX_VERSION

    return {"type": "index", "version": INDEX_VERSION, "library": library, "functions": {}, "modules": {}}


def load_all(args: argparse.Namespace, started: float) -> tuple[list, Any, Any, str | None]:
    """Load the registries and the library, watching what the library's import and the
    registries' construction run (deps.py): (cases, library, DepsTracker or None, load error or
    None). The tracker is None when there is no library."""
    from opsweep import deps, registry
    from opsweep.case import RegistryError
    from opsweep.library import load_library

    load_error: str | None = None
    cases: list = []
    with deps.ImportWatch() as watch:
        try:
            cases = registry.load_registries(args.registry)
        except RegistryError as e:
            load_error = str(e)
    lib_name = args.library or registry.guess_library([lc.case for lc in cases])
    if not lib_name:
        return cases, None, None, load_error
    try:
        library = load_library(lib_name)
    except Exception as e:  # noqa: BLE001
        if load_error is None:
            load_error = f"library {lib_name!r} cannot be loaded: {type(e).__name__}: {e}"
        return cases, None, None, load_error
    index = deps.LibraryIndex.build(library, cache_path=args.index_cache, started=started)
    return cases, library, deps.DepsTracker(index, watch.hidden_deps(index)), load_error


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    except Exception:  # noqa: BLE001
        pass
    channel = Channel(args.proto_in, args.proto_out)
    t_start = time.perf_counter()
    t_wall = time.time()

    import torch

    torch.set_num_threads(max(1, args.threads))

    from opsweep import evidence
    from opsweep.job import run_job
    from opsweep.paths import describe_paths

    cases, library, tracker, load_error = load_all(args, started=t_wall)
    lib_name = library.name if library else (args.library or "")
    library_fp = library.fingerprint() if library else ""
    evidence.use_library(library)

    channel.send(
        {
            "type": "hello",
            "protocol": PROTOCOL,
            "pid": os.getpid(),
            "harness": harness_fingerprint(),
            "paths": describe_paths(),
            "env": measure_env(library, library_fp),
        }
    )
    if load_error is not None:
        _log(f"registry error: {load_error}")
        channel.send({"type": "error", "message": " ".join(load_error.split())})
        return 2
    channel.send({"type": "inventory", "cases": [lc.inventory_entry() for lc in cases]})
    channel.send(tracker.index.message() if tracker else unknown_index(lib_name))
    _log(f"ready in {time.perf_counter() - t_start:.2f}s: {len(cases)} cases, library {lib_name}")

    by_name = {lc.case.name: lc.case for lc in cases}
    baseline = torch_state()
    threads = max(1, args.threads)
    while True:
        try:
            message = channel.receive()
        except (ValueError, UnicodeDecodeError) as e:
            channel.send({"type": "error", "message": f"malformed message: {e}"})
            return 2
        if message is None or message["type"] == "shutdown":
            return 0
        if message["type"] != "job":
            channel.send({"type": "error", "message": f"unexpected message type {message['type']!r}"})
            return 2
        job_id, name, path = message.get("id"), message.get("case"), message.get("path")
        t0 = time.perf_counter()
        case = by_name.get(name) if isinstance(name, str) else None
        record: dict[str, Any]
        if case is None:
            from opsweep.job import new_record

            record = new_record()
            record.update(status="fail", step="worker", detail=f"no case named {name!r} in the loaded registries")
        else:
            try:
                record = run_job(case, str(path), library=library, threads=threads, tracker=tracker)
            except BaseException as e:  # noqa: BLE001 - never let anything escape the loop
                if isinstance(e, KeyboardInterrupt):
                    raise
                from opsweep.job import new_record

                record = new_record()
                record.update(status="fail", step="worker", detail=f"harness error: {type(e).__name__}")
                record["error"] = evidence.evidence(e, library)
        reason = poison_reason(baseline, record)
        if reason is not None:
            _log(f"job {job_id} {name} {path}: poisoned: {reason}")
            channel.send(
                {"type": "poisoned", "id": job_id, "case": name, "path": path, "reason": evidence.scrub(reason)}
            )
            return 3
        _log(f"job {job_id} {name} {path}: {record['status']} {record['step']} in {time.perf_counter() - t0:.2f}s")
        channel.send({"type": "result", "id": job_id, "case": name, "path": path, "record": record})


def _exit(code: int) -> None:
    """Flush the log and leave without interpreter teardown (compile pools can hang it)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001
            pass
    os._exit(code)


if __name__ == "__main__":
    try:
        code = main()
    except SystemExit as e:  # argparse errors
        code = e.code if isinstance(e.code, int) else 2
    except BrokenPipeError:  # the engine went away: nobody is left to answer
        code = 1
    _exit(code)
