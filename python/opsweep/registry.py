"""Loading registries and refusing malformed ones.

Contract:
- A registry is a Python file that defines ``CASES``, a list of ``opsweep.case(...)`` results.
  ``load_registries(files)`` imports each file (inside a package under its dotted name, so
  relative imports work; a loose file with its folder appended to ``sys.path``, so it can import
  helpers beside it) and returns every case with its registry and fingerprint
  (opsweep/fingerprint.py), in file order then list order. The same file given twice is loaded
  once.
- Each import runs with torch (CPU), numpy and random seeded from the file's basename
  (``registry_seed``) and their states restored afterwards: a registry that draws from the global
  generators defines the same cases in every process, whatever was loaded before it.
- Any problem raises ``RegistryError`` with one line that names the file and the problem: file
  missing; import failure (exception type, message, and the registry line that raised); ``CASES``
  missing; ``CASES`` not a list; an element that is not a Case; a duplicate case name (both
  places, ``file:line``, across files too; a case's ``origin`` is the registry line that built it,
  also when a helper did).
- Every file loaded is registry code from then on (opsweep/registry_files.py ``is_registry_file``,
  importable from here too: it tells registry code from the library's in a traceback).
- A case's names in the inventory (``public_name``, ``public_names``) come from
  opsweep/public_names.py; ``qualified_name`` is importable from here too.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import os
import re
import sys
import traceback
from typing import Any, Sequence

from opsweep.case import Case, RegistryError, loading, seeded
from opsweep.fingerprint import code_memo, fingerprint
from opsweep.public_names import public_name, public_names, qualified_name
from opsweep.registry_files import is_registry_file, note_registry_file

# what other modules import from here besides the loading: fingerprint (harvest/worker.py),
# qualified_name, public_name, public_names (coverage.py, tests) and is_registry_file
# (docs/adding-cases.md), which live in the modules above
__all__ = ["LoadedCase", "fingerprint", "is_registry_file", "load_registries", "load_registry_file", "public_name",
           "public_names", "qualified_name", "registry_seed"]


@dataclasses.dataclass(frozen=True)
class LoadedCase:
    case: Case
    registry: str  # the registry file's basename, e.g. "cases_color.py"
    fingerprint: str

    def inventory_entry(self) -> dict[str, Any]:
        """The case's entry in the worker's ``inventory`` message (docs/formats.md section 2)."""
        c = self.case
        return {
            "name": c.name,
            "group": c.group,
            "registry": self.registry,
            "fingerprint": self.fingerprint,
            "target": public_name(c.target),
            "aliases": public_names(c.target),
            "check": c.check,
            "skip": c.skip,
            "note": c.note,
            "tags": list(c.tags),
            "method": c.method,
            "origin": c.origin,
        }


# ---------------------------------------------------------------------------------------------
# Loading


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _package_location(path: str) -> tuple[str, str] | None:
    """(dotted module name, folder above the top package) for a file inside a package, else None."""
    folder = os.path.dirname(os.path.abspath(path))
    parts: list[str] = []
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        parts.append(os.path.basename(folder))
        folder = os.path.dirname(folder)
    stem = os.path.splitext(os.path.basename(path))[0]
    if not parts or not all(p.isidentifier() for p in [*parts, stem]):
        return None
    return ".".join([*reversed(parts), stem]), folder


def _module_name(path: str) -> str:
    """The name a registry file is imported under.

    Inside a package (e.g. ``opsweep_suites/lib/cases_color.py``) it is the file's dotted
    name, so relative imports work; a loose file gets ``opsweep_registry_<stem>_<path digest>``.
    """
    located = _package_location(path)
    if located is not None:
        return located[0]
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    digest = hashlib.blake2b(os.path.realpath(path).encode(), digest_size=4).hexdigest()
    return f"opsweep_registry_{stem}_{digest}"


def _prepare_import(path: str) -> None:
    """Make the registry's helpers importable: its package (for relative imports) or its folder."""
    located = _package_location(path)
    if located is None:
        folder = os.path.dirname(os.path.abspath(path))
        if folder not in sys.path:
            sys.path.append(folder)
        return
    dotted, root = located
    parent = dotted.rsplit(".", 1)[0]
    try:
        importlib.import_module(parent)
        return
    except ImportError:
        pass
    if root not in sys.path:
        sys.path.append(root)
    importlib.import_module(parent)


def _import_failure(path: str, exc: BaseException) -> str:
    base = os.path.basename(path)
    real = os.path.realpath(path)
    line = None
    for fs in traceback.extract_tb(exc.__traceback__):
        if os.path.realpath(fs.filename) == real:
            line = fs.lineno  # innermost registry line wins
    if isinstance(exc, SyntaxError) and exc.lineno and os.path.realpath(exc.filename or "") == real:
        line = exc.lineno
    where = f" at {base}:{line}" if line else ""
    text = f"{base}: import failed{where}: {type(exc).__name__}: {exc}"
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        text += (f" (module {exc.name!r} is not installed for the workers' interpreter {_interpreter()}: install it "
                 f"there, or give the interpreter of the library's environment with --python PATH or OPSWEEP_PYTHON)")
    return _one_line(text)


def _interpreter() -> str:
    """This interpreter's path, the home folder written ``~`` (messages never carry a home path)."""
    home = os.path.expanduser("~")
    exe = sys.executable or "python"
    return "~" + exe[len(home):] if home not in ("", "/") and exe.startswith(home + os.sep) else exe


def registry_seed(path: str) -> int:
    """The seed of torch, numpy and random while a registry file is imported: derived from the
    file's basename (blake2b, not ``hash()``), so every process and every checkout draws the same
    module-level values, whatever was loaded before."""
    digest = hashlib.blake2b(b"opsweep-registry-seed\0" + os.path.basename(path).encode(), digest_size=4).digest()
    return int.from_bytes(digest, "little") & 0x7FFFFFFF


def load_registry_file(path: str) -> list[Case]:
    """Import one registry file and return its CASES, validated. Raises RegistryError.

    The import runs under ``seeded(registry_seed(path))``: a registry that draws from the global
    random generators at module level still defines the same cases in every process."""
    base = os.path.basename(path)
    if not os.path.isfile(path):
        raise RegistryError(f"{path}: registry file not found")
    name = _module_name(path)
    real = os.path.realpath(path)
    note_registry_file(real, in_package=_package_location(real) is not None)
    try:
        _prepare_import(path)
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise RegistryError(f"{base}: cannot be imported as a Python module")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        with seeded(registry_seed(path)), loading(real):
            spec.loader.exec_module(module)
    except RegistryError as e:  # case() refused a case: its message already names the line
        sys.modules.pop(name, None)
        msg = _one_line(str(e))
        raise RegistryError(msg if msg.startswith(base) else f"{base}: {msg}") from None
    except BaseException as e:  # noqa: BLE001 - any failure of foreign code is reported
        sys.modules.pop(name, None)
        if isinstance(e, KeyboardInterrupt):
            raise
        raise RegistryError(_import_failure(path, e)) from None
    if not hasattr(module, "CASES"):
        raise RegistryError(f"{base}: defines no CASES (a list of opsweep.case(...) results)")
    cases = module.CASES
    if not isinstance(cases, list):
        raise RegistryError(f"{base}: CASES is a {type(cases).__name__}, not a list")
    for i, c in enumerate(cases):
        if not isinstance(c, Case):
            raise RegistryError(
                f"{base}: CASES[{i}] is a {type(c).__name__}, not a Case (build it with opsweep.case(...))"
            )
    return cases


def load_registries(paths: Sequence[str]) -> list[LoadedCase]:
    """Load every registry; refuse duplicates across all of them. Raises RegistryError."""
    loaded: list[LoadedCase] = []
    first_seen: dict[str, tuple[str, Case]] = {}
    done: set[str] = set()
    for path in paths:
        real = os.path.realpath(path)
        if real in done:
            continue
        done.add(real)
        base = os.path.basename(path)
        cases = load_registry_file(path)
        with code_memo():
            loaded.extend(_fingerprinted(cases, base, first_seen))
    return loaded


def _fingerprinted(cases: list[Case], base: str, first_seen: dict[str, tuple[str, Case]]) -> list[LoadedCase]:
    """Fingerprint one registry's cases; a name seen before (in this or an earlier file) is refused."""
    loaded: list[LoadedCase] = []
    for c in cases:
        if c.name in first_seen:
            other_base, other = first_seen[c.name]
            raise RegistryError(
                f"{base}: duplicate case name {c.name!r} ({other.origin or other_base} and {c.origin or base})"
            )
        first_seen[c.name] = (base, c)
        try:
            fp = fingerprint(c)
        except Exception as e:  # noqa: BLE001
            raise RegistryError(
                _one_line(f"{base}: case {c.name!r} ({c.origin}) cannot be fingerprinted: {type(e).__name__}: {e}")
            ) from None
        loaded.append(LoadedCase(case=c, registry=base, fingerprint=fp))
    return loaded
