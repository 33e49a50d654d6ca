"""Capture paths, found by discovery: every module of this package that defines ``PATH`` (a
``PathSpec``, see paths/spec.py) is a path; the others (``spec``, ``context``,
``dynamic``: what paths share) are not.

A new axis (dynamic shapes, AOTInductor, another opset, CUDA) is one new module here; nothing else
in the harness or the engine changes. ``PATHS`` maps id -> spec in the paths' order (``order``, then
id), which is the order the worker's ``hello`` reports and the page shows.

Each path has a harness digest of its own (``harness_digest``): the common harness modules (this
package's parent less the case toolkit (case code, in case fingerprints), the tools that never run a probe, the path modules, and the
modules some path names in its ``uses``) plus its own module and the modules in its ``uses``, so
editing one path's module re-probes only that path's jobs. A module named in a ``uses`` belongs to
the paths that name it: every path that runs it must name it (opsweep/shapes.py and
paths/dynamic.py are the dynamic-shape paths').

A harness change that can alter only some results says so in ``opsweep/harness_migrations.json``
(not Python: it is in no digest): per path, the digest before and after the change, and the marks
of the results it can alter (text their records contain; none for a change that alters no result). Each path's description carries its
migrations; the engine re-probes the marked results and carries the others over
(docs/formats.md section 1, "Harness migrations"). ``python -m opsweep.paths`` prints the current digests.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil

from opsweep.library import hash_files, py_files
from opsweep.paths.context import Probe, ProbeContext
from opsweep.paths.spec import COMMON_ENV, COMMON_STEPS, Outcome, PathSpec, Reproducer, SubVerdict, common_env


def _discover() -> dict[str, PathSpec]:
    found: list[PathSpec] = []
    seen: dict[str, str] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):  # __main__
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
    _check_record_fields(found)
    return {s.id: s for s in found}


def _check_record_fields(specs: list[PathSpec]) -> None:
    """Paths that write one record field agree on its empty value (every record carries it)."""
    empty: dict[str, tuple[object, str]] = {}
    for spec in specs:
        for name, value in spec.record_fields.items():
            if name in empty and empty[name][0] != value:
                raise RuntimeError(f"paths {empty[name][1]} and {spec.id} declare record field {name!r} with "
                                   f"different empty values ({empty[name][0]!r}, {value!r})")
            empty.setdefault(name, (value, spec.id))


PATHS: dict[str, PathSpec] = _discover()


def _root() -> str:
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _module_files(module: str) -> list[tuple[str, str]]:
    """(name relative to the opsweep package, absolute path) of a module, or of every module of a
    package (a path's ``uses`` may name a package, e.g. ``opsweep.runtimes``)."""
    mod = importlib.import_module(module)
    path = os.path.abspath(mod.__file__ or "")
    root = _root()
    if os.path.basename(path) == "__init__.py":
        folder = os.path.dirname(path)
        prefix = os.path.relpath(folder, root).replace(os.sep, "/")
        return [(f"{prefix}/{rel}", p) for rel, p in py_files(folder, exclude=())]
    return [(os.path.relpath(path, root).replace(os.sep, "/"), path)]


def common_harness_files() -> list[tuple[str, str]]:
    """(name relative to the opsweep package, absolute path) of the modules every job runs: the
    package less the case toolkit, the tools, the path modules and what only some paths use."""
    own = {rel for s in PATHS.values() for module in (s.module, *s.uses) for rel, _ in _module_files(module)}
    # coverage.py (the coverage report), repro.py (the reproducer writer) and standalone.py (the
    # source it copies into scripts) never run a probe, nor does harvest/ (it writes registries,
    # whose cases are keyed by their own fingerprints): editing them changes no verdict, so it
    # re-probes nothing. public_names.py is common harness code: a job that builds a lazy target
    # checks the built object's public name (case.materialize). The case toolkit is case code: what
    # its wrappers do and the inputs it makes are in each case's fingerprint (opsweep/fingerprint.py).
    # The C source of the recorder's frame hook (deps/_frames.c) runs in every job like a module.
    files = py_files(_root(), exclude=("toolkit", "harvest", "coverage.py", "repro.py", "standalone.py"),
                     suffixes=(".py", ".c"))
    return [(rel, path) for rel, path in files if rel not in own]


def harness_digest(spec: PathSpec) -> str:
    """Digest of the harness code a job of ``spec`` runs (common modules, its module, its uses)."""
    files = dict(common_harness_files())
    for module in (spec.module, *spec.uses):
        files.update(_module_files(module))
    return hash_files(sorted(files.items()))


MIGRATIONS_FILE = "harness_migrations.json"


def harness_migrations() -> list[dict]:
    """The entries of ``opsweep/harness_migrations.json`` ([] without the file). Each: ``id``,
    ``why``, ``rerun_if_record_contains`` (marks), ``from`` and ``to`` (path id -> digest). A
    malformed file raises ValueError naming it and the problem."""
    path = os.path.join(_root(), MIGRATIONS_FILE)
    if not os.path.exists(path):
        return []
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        raise ValueError(f"{MIGRATIONS_FILE}: unreadable: {e}") from None
    entries = data.get("migrations") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise ValueError(f"{MIGRATIONS_FILE}: no 'migrations' list")
    for n, m in enumerate(entries):
        where = f"{MIGRATIONS_FILE}: migration {n + 1}"
        if not isinstance(m, dict) or not all(isinstance(m.get(k), str) and m.get(k) for k in ("id", "why")):
            raise ValueError(f"{where}: needs a non-empty 'id' and 'why'")
        for side in ("from", "to"):
            if not isinstance(m.get(side), dict) or not all(isinstance(v, str) and v for v in m[side].values()):
                raise ValueError(f"{where} ({m['id']}): '{side}' must map path ids to digests")
        if set(m["from"]) != set(m["to"]):
            raise ValueError(f"{where} ({m['id']}): 'from' and 'to' name different paths")
        # the marks: a list for every path ([] for a change that can alter no result), or an object
        # path id -> list for a change that can alter the results of some paths only
        marks = m.get("rerun_if_record_contains")
        per_path = marks.values() if isinstance(marks, dict) else [marks]
        if not all(isinstance(ms, list) and all(isinstance(x, str) and x for x in ms) for ms in per_path):
            raise ValueError(f"{where} ({m['id']}): 'rerun_if_record_contains' must list non-empty strings "
                             "(or map path ids to such lists)")
        if isinstance(marks, dict) and not set(marks) <= set(m["from"]):
            unknown = sorted(set(marks) - set(m["from"]))
            raise ValueError(f"{where} ({m['id']}): 'rerun_if_record_contains' names paths its 'from' does not: "
                             + ", ".join(unknown))
    return entries


def _marks(m: dict, path_id: str) -> list[str]:
    marks = m["rerun_if_record_contains"]
    return list(marks.get(path_id, [])) if isinstance(marks, dict) else list(marks)


def _path_migrations(path_id: str, entries: list[dict]) -> list[dict]:
    return [
        {"id": m["id"], "from": m["from"][path_id], "to": m["to"][path_id], "why": m["why"],
         "rerun_if_record_contains": _marks(m, path_id)}
        for m in entries if path_id in m["from"]
    ]


def describe_paths(with_migrations: bool = True) -> list[dict]:
    """Every path's description, as the worker's hello carries it (with its harness migrations)."""
    entries = harness_migrations() if with_migrations else []
    out = []
    for spec in PATHS.values():
        described = spec.describe(harness_digest(spec))
        migrations = _path_migrations(spec.id, entries)
        if migrations:
            described["migrations"] = migrations
        out.append(described)
    return out


def path_env() -> dict:
    """The values of every environment field some path depends on, measured here."""
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
    "Reproducer",
    "SubVerdict",
    "describe_paths",
    "harness_digest",
    "harness_migrations",
    "path_env",
]
