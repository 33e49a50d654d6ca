"""The recorder's frame hook (``_frames.c``), built for the interpreter that runs the worker.

The hook is a small CPython extension. It is compiled on first use with the C compiler and the
interpreter's own headers (what torch.compile's inductor needs too), into a cache folder keyed by
the source and the interpreter, so any interpreter a run names with ``--python`` gets its own build,
and a checkout used without ``pip install`` works the same. Several workers building at once each
write their own file and rename it into place.

Where it cannot be built or loaded (no compiler, no ``Python.h``, CPython older than 3.11, another
implementation), or ``OPSWEEP_RECORDER=cprofile`` asks for it, the recorder uses cProfile: slower,
the same code objects. ``mechanism()`` says which one this process uses and why.

- ``$OPSWEEP_NATIVE_DIR``: the cache folder (default ``$XDG_CACHE_HOME/opsweep/native``, else
  ``~/.cache/opsweep/native``).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
import shlex
import subprocess
import sys
import sysconfig
import tempfile
from typing import Any

_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_frames.c")
_state: dict[str, Any] = {"tried": False, "module": None, "why": ""}


def cache_dir() -> str:
    explicit = os.environ.get("OPSWEEP_NATIVE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "opsweep", "native")


def _compiler() -> list[str]:
    return shlex.split(os.environ.get("CC") or "cc")


def _build(target: str) -> str:
    """Compile the hook into ``target``: "" or why it could not be."""
    include = sysconfig.get_paths().get("include", "")
    if not include or not os.path.exists(os.path.join(include, "Python.h")):
        return f"this interpreter's headers are not installed (no Python.h in {include or 'its include folder'})"
    folder = os.path.dirname(target)
    try:
        os.makedirs(folder, exist_ok=True)
        fd, partial = tempfile.mkstemp(prefix=".building-", suffix=".so", dir=folder)
        os.close(fd)
    except OSError as e:
        return f"cannot write to {folder}: {e.strerror or e}"
    command = [*_compiler(), "-O2", "-shared", "-fPIC", f"-I{include}", _SOURCE, "-o", partial]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        os.unlink(partial)
        return f"the C compiler could not run ({' '.join(command[:1])}: {e})"
    if done.returncode != 0:
        os.unlink(partial)
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return f"the C compiler failed: {last}"
    os.replace(partial, target)
    return ""


def _load() -> tuple[Any, str]:
    if os.environ.get("OPSWEEP_RECORDER", "") == "cprofile":
        return None, "OPSWEEP_RECORDER=cprofile"
    if sys.implementation.name != "cpython" or sys.version_info < (3, 11):
        return None, f"the frame hook needs CPython 3.11 or later (this is {sys.implementation.name} " \
                     f"{sys.version_info.major}.{sys.version_info.minor})"
    try:
        with open(_SOURCE, "rb") as f:
            source = f.read()
    except OSError as e:
        return None, f"{_SOURCE} cannot be read: {e.strerror or e}"
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    key = hashlib.sha256(source + sys.version.encode() + sysconfig.get_paths().get("include", "").encode()).hexdigest()[:16]
    target = os.path.join(cache_dir(), f"_opsweep_frames-{key}{suffix}")
    if not os.path.exists(target):
        why = _build(target)
        if why:
            return None, why
    try:
        loader = importlib.machinery.ExtensionFileLoader("_opsweep_frames", target)
        spec = importlib.util.spec_from_file_location("_opsweep_frames", target, loader=loader)
        if spec is None:
            return None, f"{target} cannot be loaded"
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        module.set_probe(_probe)
    except Exception as e:  # noqa: BLE001 - a damaged build: rebuilt next time
        try:
            os.unlink(target)
        except OSError:
            pass
        return None, f"the built hook could not be loaded ({type(e).__name__}: {e})"
    return module, ""


def _probe() -> None:
    """Called by the hook's module to see whether a frame evaluated now reaches the hook."""


def frames() -> Any:
    """The loaded hook module, or None (then ``mechanism()`` says why)."""
    if not _state["tried"]:
        _state["tried"] = True
        _state["module"], _state["why"] = _load()
    return _state["module"]


def mechanism() -> str:
    """What records a job's code in this process: the frame hook, or cProfile and why."""
    if frames() is not None:
        return "frame hook (PEP 523)"
    return f"cProfile ({_state['why']})"
