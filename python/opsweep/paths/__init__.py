"""Capture paths, found by discovery: every module of this package that defines ``PATH`` (a
``PathSpec``, see paths/base.py) is a path.

A new axis (dynamic shapes, AOTInductor, another opset, CUDA) is one new module here; nothing else
in the harness or the engine changes. ``PATHS`` maps id -> spec in the paths' order (``order``, then
id), which is the order the worker's ``hello`` reports and the page shows.

Each path has a harness digest of its own (``harness_digest``): the common harness modules (this
package's parent less the registries, the tools that never run a probe, the path modules, and the
modules some path names in its ``uses``) plus its own module and the modules in its ``uses``, so
editing one path's module re-probes only that path's jobs. A module named in a ``uses`` belongs to
the paths that name it: every path that runs it must name it (opsweep/shapes.py and
paths/_dynamic.py are the dynamic-shape paths').
"""

from __future__ import annotations

import importlib
import os
import pkgutil

from opsweep.paths.base import COMMON_ENV, COMMON_STEPS, Outcome, PathSpec, Probe, ProbeContext, SubVerdict

_NOT_PATHS = {"base"}


def _discover() -> dict[str, PathSpec]:
    found: list[PathSpec] = []
    seen: dict[str, str] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name in _NOT_PATHS or info.name.startswith("_"):
            continue
        name = f"{__name__}.{info.name}"
        module = importlib.import_module(name)
        spec = getattr(module, "PATH", None)
        if not isinstance(spec, PathSpec):
            continue
        if spec.id in seen:
            raise RuntimeError(f"two path modules declare path {spec.id!r}: {seen[spec.id]} and {name}")
        seen[spec.id] = name
        object.__setattr__(spec, "module", name)
        found.append(spec)
    found.sort(key=lambda s: (s.order, s.id))
    return {s.id: s for s in found}


PATHS: dict[str, PathSpec] = _discover()


def _root() -> str:
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _module_files(module: str) -> list[tuple[str, str]]:
    """(name relative to the opsweep package, absolute path) of a module, or of every module of a
    package (a path's ``uses`` may name a package, e.g. ``opsweep.runtimes``)."""
    from opsweep.library import _py_files

    mod = importlib.import_module(module)
    path = os.path.abspath(mod.__file__ or "")
    root = _root()
    if os.path.basename(path) == "__init__.py":
        folder = os.path.dirname(path)
        prefix = os.path.relpath(folder, root).replace(os.sep, "/")
        return [(f"{prefix}/{rel}", p) for rel, p in _py_files(folder, exclude=())]
    return [(os.path.relpath(path, root).replace(os.sep, "/"), path)]


def common_harness_files() -> list[tuple[str, str]]:
    """(name relative to the opsweep package, absolute path) of the modules every job runs: the
    package less the registries, the tools, the path modules and what only some paths use."""
    from opsweep.library import _py_files

    own = {rel for s in PATHS.values() for module in (s.module, *s.uses) for rel, _ in _module_files(module)}
    # coverage.py (the coverage report) and repro.py (the reproducer writer) never run a probe:
    # editing them changes no verdict, so it re-probes nothing
    files = _py_files(_root(), exclude=("registries", "coverage.py", "repro.py"))
    return [(rel, path) for rel, path in files if rel not in own]


def harness_digest(spec: PathSpec) -> str:
    """Digest of the harness code a job of ``spec`` runs (common modules, its module, its uses)."""
    from opsweep.library import _hash_files

    files = dict(common_harness_files())
    for module in (spec.module, *spec.uses):
        files.update(_module_files(module))
    return _hash_files(sorted(files.items()))


def describe_paths() -> list[dict]:
    """Every path's description, as the worker's hello carries it."""
    return [spec.describe(harness_digest(spec)) for spec in PATHS.values()]


def path_env() -> dict:
    """The values of every environment field some path depends on, measured here."""
    from opsweep.paths.base import common_env

    env = dict(common_env())
    for spec in PATHS.values():
        env.update(spec.env())
    return env


__all__ = [
    "COMMON_ENV",
    "COMMON_STEPS",
    "PATHS",
    "Outcome",
    "PathSpec",
    "Probe",
    "ProbeContext",
    "SubVerdict",
    "describe_paths",
    "harness_digest",
    "path_env",
]
