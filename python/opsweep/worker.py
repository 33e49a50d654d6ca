"""``python -m opsweep.worker``: a warm worker speaking protocol 3 (docs/formats.md section 2).

    python -m opsweep.worker --proto-in FD --proto-out FD --registry FILE [--registry FILE ...]
                             [--threads N] [--library NAME] [--index-cache FILE] [--opsets 17,18,23]

Contract:
- The protocol travels only over the two inherited pipe FDs (JSON objects, one per line, UTF-8);
  stdout and stderr are the worker's log, so whatever probed code prints never reaches the
  protocol. The FDs are made non-inheritable so compiler subprocesses never hold them open.
- Start: import torch, set ``torch.set_num_threads(--threads)``, load the registries (watching
  what the library's import and the registries run: opsweep.deps), send ``hello`` (protocol, pid,
  harness digest, paths, the environment measured in this interpreter), then ``inventory``, then
  ``index`` (the current digests of the library's functions and modules; parsed once and cached
  in ``--index-cache`` by path, mtime and size); a registry that cannot be loaded sends ``error``
  instead of the inventory and exits 2. Every record carries ``deps`` (job.py).
- Then one ``result`` or ``poisoned`` per ``job``, in order; ``shutdown`` or EOF exits 0. A
  malformed message is answered with ``error`` and exit 2 (an engine bug, not a case's fault).
- Poison: after every job the global torch state is compared with a snapshot taken at start
  (``torch_state``: default dtype, grad / inference / forward-AD modes, thread count,
  deterministic-algorithm flags, default device, autocast, the dispatcher's thread-local key sets,
  the torch-function / torch-dispatch mode stacks), and the record's error text is searched for
  dispatcher corruption messages. A job that changed only torch's *thread-local* autograd state
  and dispatch key sets is repaired when that is sound (``ThreadStateGuard``), and the record's
  ``notes`` say so. Anything else sends ``poisoned`` (instead of the result; it carries the job's
  record, with a note) and exits 3; the engine replaces the worker.
- Inductor's cache directory is whatever TORCHINDUCTOR_CACHE_DIR says (the engine sets it under
  ``.opsweep/``); nothing here overrides it.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
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


# Environment variables that steer which float kernels run: part of the inputs' recipe.
_KERNEL_ENV = ("ATEN_CPU_CAPABILITY", "MKL_ENABLE_INSTRUCTIONS", "ONEDNN_MAX_CPU_ISA", "MKL_CBWR")


def inputs_recipe(folders: list[str], library_fingerprint: str) -> str:
    """Digest of everything the registries' input values are computed from, except the CPU: the
    source of every loaded module under the registry folders (the registries and the helpers they
    import), the harness code that loads and names them (opsweep/__init__.py, case.py, registry.py, registry_files.py,
    fingerprint.py, public_names.py) and the case
    toolkit that makes them (opsweep/toolkit/), the
    surveyed library's sources, the torch, numpy and Python versions, the torch thread count and
    the variables that steer kernels (docs/formats.md section 4.2). Two machines that build a case
    under one recipe built the same case: a fingerprint that differs is the CPU rounding float32
    differently, and the engine carries results across."""
    import hashlib
    import platform

    import numpy
    import torch

    h = hashlib.blake2b(digest_size=16, person=b"opsweep-inputs")

    def add(tag: str, data: bytes) -> None:
        h.update(tag.encode() + b"\0" + len(data).to_bytes(8, "little") + data)

    add("versions", f"v1 torch={torch.__version__} numpy={numpy.__version__} python={platform.python_version()} "
                    f"threads={torch.get_num_threads()} library={library_fingerprint}".encode())
    for var in _KERNEL_ENV:
        add("env:" + var, os.environ.get(var, "").encode())
    harness = os.path.dirname(os.path.abspath(__file__))
    toolkit = sorted(f"toolkit/{n}" for n in os.listdir(os.path.join(harness, "toolkit")) if n.endswith(".py"))
    for name in ("__init__.py", "case.py", "registry.py", "registry_files.py", "fingerprint.py", "public_names.py",
                 *toolkit):
        with open(os.path.join(harness, name), "rb") as f:
            add("harness:" + name, f.read())
    roots = sorted({os.path.join(os.path.abspath(f), "") for f in folders})
    loaded = set()
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        # a module's file, not a name that only looks like one (torch._classes says "_classes.py")
        if isinstance(path, str) and path.endswith(".py") and os.path.isabs(path):
            for n, root in enumerate(roots):
                if path.startswith(root):
                    loaded.add((n, os.path.relpath(path, root).replace(os.sep, "/"), path))
    for n, rel, path in sorted(loaded):
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:  # gone since it was imported: its absence is part of the recipe
            data = f"<unreadable: {type(e).__name__}>".encode()
        add(f"registry{n}:{rel}", data)
    return h.hexdigest()


def harness_fingerprint() -> str:
    """Digest of the common harness modules (every path's own digest is in its description)."""
    from opsweep.library import hash_files
    from opsweep.paths import common_harness_files

    return hash_files(common_harness_files())


# ---------------------------------------------------------------------------------------------
# Global torch state: what a job must leave as it found it


# The fields of ``torch_state`` that are thread-local autograd state or dispatch key sets: what
# ``ThreadStateGuard`` puts back. Every other field changed by a job poisons the worker.
THREAD_LOCAL_FIELDS = frozenset(
    {
        "grad mode",
        "inference mode",
        "forward AD mode",
        "multithreading",
        "view replay",
        "dispatch TLS include set",
        "dispatch TLS exclude set",
    }
)


def torch_state() -> dict[str, str]:
    """Global torch state that a case must not change (compared after every job)."""
    import torch

    state: dict[str, Callable[[], Any]] = {
        "default dtype": torch.get_default_dtype,
        "grad mode": torch.is_grad_enabled,
        "inference mode": torch.is_inference_mode_enabled,
        "forward AD mode": torch._C._is_fwd_grad_enabled,
        "multithreading": torch._C._is_multithreading_enabled,
        "view replay": torch._C._is_view_replay_enabled,
        "thread count": torch.get_num_threads,
        "deterministic algorithms": torch.are_deterministic_algorithms_enabled,
        "deterministic warn-only": torch.is_deterministic_algorithms_warn_only_enabled,
        "default device": torch.get_default_device,
        "autocast (cpu)": lambda: (torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu")),
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


def state_changes(before: dict[str, str], after: dict[str, str]) -> dict[str, tuple[str, str | None]]:
    return {k: (v, after.get(k)) for k, v in before.items() if after.get(k) != v}


def _changes_text(changes: dict[str, tuple[str, str | None]]) -> str:
    return "; ".join(f"{k} changed from {a} to {b}" for k, (a, b) in changes.items())


def dispatcher_error(record: dict[str, Any] | None) -> str | None:
    """A dispatcher corruption message in the record's error, or None."""
    error = (record or {}).get("error") or {}
    text = f"{error.get('message', '')}\n{error.get('chain', '')}"
    for marker in DISPATCHER_POISON_MARKERS:
        if marker in text:
            return f"dispatcher error: {marker!r} in the error of the job"
    return None


def _guard_types() -> tuple[type, ...]:
    """torch's C++ RAII guard classes: a live one restores its saved thread state when destroyed."""
    import torch

    found = []
    for name in dir(torch._C):
        t = getattr(torch._C, name, None)
        if isinstance(t, type) and hasattr(t, "__exit__") and name not in ("Stream", "device"):
            found.append(t)
    return tuple(found)


class ThreadStateGuard:
    """Runs one job so that torch's thread-local autograd state and dispatch key sets can be put
    back afterwards, and decides whether putting them back is sound.

    Why: an exception inside a compiled ``torch.inference_mode`` region (AOT autograd runs the
    graph's ``_enter_inference_mode`` node, the next node raises, the exit node never runs) leaves
    inference mode on, and the guard object that entered it alive in the traceback. When the
    garbage collector later frees it, its destructor restores the thread state it saved, inside
    AOT's tracing: grad off, Functionalize excluded, the Python dispatcher on, in the middle of
    whatever job runs then.

    How: the job runs inside ``torch._C._InferenceMode(False)``, which at the worker's baseline
    changes nothing (measured: the same autograd state and key sets) and on exit restores the
    autograd state and the key sets it saved. After the job, when only ``THREAD_LOCAL_FIELDS``
    changed: collect garbage (leaked guards are destroyed now, not during a later job), make sure
    no other guard object is still reachable (one could fire later), exit our guard, and check the
    whole state against the baseline again. Any doubt poisons the worker instead (a guard object
    found alive may be one already exited: harmless, but it cannot be told apart).

    Limits: garbage is collected only when a change is visible at the end of the job (a full
    collection takes about a second in a worker with a large library loaded: too slow for every job), so a
    guard leaked with no visible change fires during a later job, whose check then sees it; the
    record of a job whose state was restored stands, with a note, as measured.
    """

    def __init__(self) -> None:
        import torch

        self._guard = torch._C._InferenceMode(False)
        self._guard.__enter__()
        self._open = True

    def close(self) -> None:
        if self._open:
            self._open = False
            self._guard.__exit__(None, None, None)

    def _live_guards(self) -> int:
        """Guard objects other than ours still referenced from GC-tracked objects, directly or
        through untracked dicts and tuples (CPython stops tracking a dict or tuple that holds only
        objects the collector ignores, such as these guards). Blind spots: an object held only by
        native code, or by a frame still running (the job's frames have all returned by now)."""
        types = _guard_types()
        mine = id(self._guard)
        seen: set[int] = set()

        def visit(ref: Any, depth: int) -> None:
            if type(ref) in types:
                if id(ref) != mine:
                    seen.add(id(ref))
            elif depth < 8 and isinstance(ref, (dict, tuple)) and not gc.is_tracked(ref):
                for inner in gc.get_referents(ref):
                    visit(inner, depth + 1)

        for obj in gc.get_objects():
            for ref in gc.get_referents(obj):
                visit(ref, 0)
        return len(seen)

    def settle(self, baseline: dict[str, str]) -> tuple[str | None, str | None]:
        """After the job: (note, poison reason); at most one is set, both None when nothing changed."""
        changed = state_changes(baseline, torch_state())
        if not changed:
            self.close()
            return None, None
        what = _changes_text(changed)
        if not set(changed) <= THREAD_LOCAL_FIELDS:
            self.close()
            return None, what
        gc.collect()
        live = self._live_guards()
        self.close()
        if live:
            return None, f"{what}; {live} torch guard object(s) still alive after the job could change it again later"
        left = state_changes(baseline, torch_state())
        if left:
            return None, f"{what}; restoring the thread-local state left {_changes_text(left)}"
        return f"the job left torch's thread-local state changed ({what}); the worker restored it", None


# ---------------------------------------------------------------------------------------------
# The passes of main: start-up, registry loading, hello, the job loop, one job


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
    p.add_argument("--opsets", default=None, help="ONNX opsets of the onnx path, e.g. 17,18,23 (18 always)")
    return p.parse_args(argv)


@dataclasses.dataclass
class Loaded:
    """What the registry-loading pass found: the cases, the library, or why loading failed."""

    cases: list[Any]
    library: Any
    library_name: str | None
    library_fingerprint: str
    error: str | None
    tracker: Any = None  # deps.DepsTracker: None without a library
    folders: list[str] = dataclasses.field(default_factory=list)  # registry_folders of the loaded registries


def start_up(args: argparse.Namespace) -> Channel:
    """Line-buffered log, the protocol pipes, torch imported with the worker's thread count."""
    try:
        sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    except Exception:  # noqa: BLE001
        pass
    channel = Channel(args.proto_in, args.proto_out)
    import torch

    torch.set_num_threads(max(1, args.threads))
    return channel


def registry_folders(files: list[str]) -> list[str]:
    """Folders of registry code: those of the registry files named, and of every loaded module that
    defines ``CASES`` (a registry by definition; a preset loads registries from another folder)."""
    folders = [os.path.dirname(os.path.abspath(f)) for f in files]
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if path and path.endswith(".py") and isinstance(getattr(module, "CASES", None), list):
            folders.append(os.path.dirname(os.path.abspath(path)))
    return sorted(set(folders))


def load(args: argparse.Namespace, started_ns: int) -> Loaded:
    """Load the registries and the surveyed library; tell evidence which code is which. The
    loading is watched (deps.ImportWatch: what the library's import and the registries ran) and
    the library indexed, for the deps of every job; ``started_ns``: when the worker began, on the
    clock that stamps files (a library file modified since is never current,
    deps.LibraryIndex.build)."""
    from opsweep import deps, evidence
    from opsweep.case import RegistryError
    from opsweep.library import load_library
    from opsweep.public_names import guess_library
    from opsweep.registry import load_registries

    error: str | None = None
    if args.opsets is not None:
        from opsweep.runtimes import opsets

        chosen, problem = opsets.parse_opsets(args.opsets)
        if chosen is None:
            error = problem
        else:
            opsets.set_requested(chosen)
    cases = []
    with deps.ImportWatch() as watch:
        try:
            cases = load_registries(args.registry)
        except RegistryError as e:
            error = error or str(e)
    library, fingerprint = None, ""
    name = args.library or guess_library([lc.case for lc in cases])
    if name:
        try:
            library = load_library(name)
            fingerprint = library.fingerprint()
        except Exception as e:  # noqa: BLE001
            if error is None:
                error = f"library {name!r} cannot be loaded: {type(e).__name__}: {e}"
    evidence.use_library(library)
    evidence.use_registries(registry_folders(args.registry))
    tracker = None
    if library is not None:
        index = deps.LibraryIndex.build(library, cache_path=args.index_cache, started_ns=started_ns)
        imports = deps.JobImports(lambda f: index.relative(f) is not None).install()
        hidden = watch.hidden_deps(index)
        hidden.reader_dirs = tuple(os.path.join(d, "") for d in registry_folders(args.registry))
        readers = hidden.reader_dirs
        # a job's deps and sources are read from these files only (LibraryIndex.deps, job._sources)
        deps.record_only(lambda f: index.relative(f) is not None or f.startswith(readers))
        tracker = deps.DepsTracker(index, hidden, imports)
    return Loaded(cases, library, name, fingerprint, error, tracker, registry_folders(args.registry))


def index_message(loaded: Loaded) -> dict[str, Any]:
    """The ``index`` message: the library's current digests; without a library, none (the engine
    then falls back to the library fingerprint of hello.env)."""
    from opsweep.deps import INDEX_VERSION

    if loaded.tracker is not None:
        return loaded.tracker.index.message()
    return {"type": "index", "version": INDEX_VERSION, "library": loaded.library_name or "", "functions": {},
            "line_functions": {}, "modules": {}}


def send_hello(channel: Channel, loaded: Loaded) -> bool:
    """hello, then inventory and index (or error): False when the registries could not be loaded."""
    from opsweep.paths import describe_paths

    error = loaded.error
    try:
        paths = describe_paths()
    except ValueError as e:  # a damaged harness_migrations.json: said once, as the worker's error
        paths = describe_paths(with_migrations=False)
        error = error or str(e)
    channel.send(
        {
            "type": "hello",
            "protocol": PROTOCOL,
            "pid": os.getpid(),
            "harness": harness_fingerprint(),
            "paths": paths,
            "env": measure_env(loaded.library, loaded.library_fingerprint),
        }
    )
    if error is not None:
        _log(f"registry error: {error}")
        channel.send({"type": "error", "message": " ".join(error.split())})
        return False
    recipe = inputs_recipe(loaded.folders, loaded.library_fingerprint)
    channel.send({"type": "inventory", "cases": [dict(lc.inventory_entry(), recipe=recipe) for lc in loaded.cases]})
    channel.send(index_message(loaded))
    return True


def job_record(case: Any, name: Any, path: Any, loaded: Loaded, threads: int,
               timeout_s: float | None = None) -> dict[str, Any]:
    """The record of one job; a harness error becomes a ``fail`` at ``worker``, never an escape."""
    from opsweep import evidence
    from opsweep.job import new_record, run_job

    if case is None:
        record = new_record()
        record.update(status="fail", step="worker", detail=f"no case named {name!r} in the loaded registries")
        return record
    try:
        return run_job(case, str(path), library=loaded.library, threads=threads, tracker=loaded.tracker,
                       timeout_s=timeout_s)
    except BaseException as e:  # noqa: BLE001 - never let anything escape the loop
        if isinstance(e, KeyboardInterrupt):
            raise
        record = new_record()
        record.update(status="fail", step="worker", detail=f"harness error: {type(e).__name__}")
        record["error"] = evidence.evidence(e, loaded.library)
        return record


def one_job(channel: Channel, message: dict[str, Any], by_name: dict[str, Any], loaded: Loaded,
            baseline: dict[str, str], threads: int) -> bool:
    """Run one job and answer it: ``result``, or ``poisoned`` (returns False: the worker must exit)."""
    from opsweep import evidence

    job_id, name, path = message.get("id"), message.get("case"), message.get("path")
    timeout = message.get("timeout_s")  # the engine's time limit of the job (absent: none)
    timeout_s = float(timeout) if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) else None
    t0 = time.perf_counter()
    case = by_name.get(name) if isinstance(name, str) else None
    guard = ThreadStateGuard()
    try:
        record = job_record(case, name, path, loaded, threads, timeout_s)
    finally:
        note, reason = guard.settle(baseline)
    if note is not None:
        record["notes"].append(evidence.scrub(note))
    reason = reason or dispatcher_error(record)
    if reason is not None:
        reason = evidence.scrub(reason)
        record["notes"].append(f"the worker was poisoned after this job: {reason}")
        _log(f"job {job_id} {name} {path}: poisoned: {reason}")
        channel.send({"type": "poisoned", "id": job_id, "case": name, "path": path, "reason": reason, "record": record})
        return False
    _log(f"job {job_id} {name} {path}: {record['status']} {record['step']} in {time.perf_counter() - t0:.2f}s")
    channel.send({"type": "result", "id": job_id, "case": name, "path": path, "record": record})
    return True


def job_loop(channel: Channel, loaded: Loaded, threads: int) -> int:
    """Answer jobs until shutdown or EOF (0), a poisoned job (3) or a malformed message (2)."""
    by_name = {lc.case.name: lc.case for lc in loaded.cases}
    baseline = torch_state()
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
        if not one_job(channel, message, by_name, loaded, baseline, threads):
            return 3


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    t_start = time.perf_counter()
    from opsweep.deps import filesystem_now_ns

    started_ns = filesystem_now_ns(os.path.dirname(args.index_cache) if args.index_cache else None)
    channel = start_up(args)
    loaded = load(args, started_ns=started_ns)
    if not send_hello(channel, loaded):
        return 2
    from opsweep.deps import native  # builds the recorder's hook here, before any job's clock

    recording = native.mechanism()
    _log(f"ready in {time.perf_counter() - t_start:.2f}s: {len(loaded.cases)} cases, library {loaded.library_name}, "
         f"recorder: {recording}")
    return job_loop(channel, loaded, max(1, args.threads))


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
