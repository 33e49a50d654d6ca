"""The surveyed library: where it is installed, how its files are named, and its fingerprint.

Contract:
- A library is a top-level importable module: a package (``lib/__init__.py``) or a single-file
  module (``fixture_ops.py``). Its *root* is the package directory or the module file, found from
  the module's ``__file__`` whatever the enclosing folder is called (a site-packages install, or a
  source checkout such as ``~/src/lib/lib/``).
- ``relative(path)`` names a file of the library the way every record does: ``lib/color/gray.py``
  (the package name, then the path inside the package, ``/``-separated); ``None`` for other files.
- ``fingerprint`` is a hex digest over the library's ``.py`` files sorted by relative path (each
  file's relative path and bytes, length-prefixed), so it changes when any source file changes and
  is identical across processes and machines for identical sources.
- ``tree_fingerprint`` is the same digest for any folder; ``py_files`` and ``hash_files`` are its two
  halves, which the harness digests (opsweep/paths/__init__.py, the worker) use on their own lists.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import importlib.metadata
import os
from typing import Iterable


@dataclasses.dataclass(frozen=True)
class Library:
    name: str  # top-level module name, e.g. "lib"
    version: str  # distribution version ("" when unknown)
    root: str  # package directory, or the module file for a single-file module
    is_package: bool

    @property
    def parent(self) -> str:
        """The folder that holds the package (or the module file)."""
        return os.path.dirname(self.root)

    def relative(self, path: str) -> str | None:
        """``lib/sub/file.py`` for a file inside the library, ``None`` otherwise."""
        if not path or path.startswith("<"):
            return None
        norm = os.path.normpath(path)
        for root in _root_variants(self.root):
            if self.is_package:
                if norm.startswith(root + os.sep):
                    rel = norm[len(root) + 1 :].replace(os.sep, "/")
                    return f"{self.name}/{rel}"
            elif norm == root:
                return os.path.basename(root)
        return None

    def source_files(self) -> list[tuple[str, str]]:
        """(relative name, absolute path) of every .py file, sorted by relative name."""
        if not self.is_package:
            return [(os.path.basename(self.root), self.root)]
        return [(f"{self.name}/{rel}", path) for rel, path in py_files(self.root, exclude=())]

    def fingerprint(self) -> str:
        return hash_files(self.source_files())


def _root_variants(root: str) -> list[str]:
    norm = os.path.normpath(root)
    real = os.path.realpath(norm)
    return [norm] if real == norm else [norm, real]


def py_files(root: str, exclude: Iterable[str], suffixes: tuple[str, ...] = (".py",)) -> list[tuple[str, str]]:
    """(name relative to ``root``, ``/``-separated; absolute path) of every ``.py`` file (or file
    ending in one of ``suffixes``) under ``root``, sorted by name; ``exclude`` lists sub-folders and
    files (relative names) to leave out; ``__pycache__`` is never walked."""
    excluded = set(exclude)
    found: list[tuple[str, str]] = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        dirnames[:] = [
            d
            for d in dirnames
            if d != "__pycache__" and os.path.normpath(os.path.join(rel_dir, d)) not in excluded
        ]
        for fn in filenames:
            if fn.endswith(suffixes):
                rel = os.path.normpath(os.path.join(rel_dir, fn)).replace(os.sep, "/")
                if rel in excluded:
                    continue
                found.append((rel, os.path.join(dirpath, fn)))
    found.sort()
    return found


def hash_files(files: list[tuple[str, str]]) -> str:
    """The digest of ``files`` ((name, path) pairs, in the order given): each name and its file's
    bytes, length-prefixed, so a renamed, edited, added or removed file changes it; identical
    across processes and machines for identical files and names."""
    h = hashlib.blake2b(digest_size=16, person=b"opsweep-tree-v1")
    for rel, path in files:
        with open(path, "rb") as f:
            data = f.read()
        name = rel.encode("utf-8")
        h.update(len(name).to_bytes(8, "little") + name)
        h.update(len(data).to_bytes(8, "little") + data)
    return h.hexdigest()


def tree_fingerprint(root: str, exclude: Iterable[str] = ()) -> str:
    """Digest of the .py files under ``root``; ``exclude`` lists sub-folders and files relative to root."""
    return hash_files(py_files(root, exclude))


def load_library(name: str) -> Library:
    """Import the top-level module ``name`` and describe it. Raises ImportError if it cannot."""
    module = importlib.import_module(name)
    file = getattr(module, "__file__", None)
    if not file:
        raise ImportError(f"library {name!r} has no __file__ (namespace or built-in module)")
    file = os.path.abspath(file)
    is_package = os.path.basename(file) == "__init__.py"
    root = os.path.dirname(file) if is_package else file
    try:
        version = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        version = str(getattr(module, "__version__", "") or "")
    return Library(name=name, version=version, root=root, is_package=is_package)
