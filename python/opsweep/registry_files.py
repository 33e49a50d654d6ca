"""Which files are registry code: the registry files loaded in this process, the other modules of
a loaded registry's package (its helpers, such as a suite's ``_common.py``), and the case toolkit
(``opsweep/toolkit/``, whose wrappers a registry's case runs).

Two readers ask: a case fingerprint hashes registry code by what it does (opsweep/fingerprint.py
``hashed_by_code``), and a failure's evidence tells a registry's own mistake from a finding about
the library. The loader (opsweep/registry.py) says which files it loaded (``note_registry_file``).
"""

from __future__ import annotations

import os

# Real paths of the registry files loaded in this process, and the folders of registry packages
# (whose other modules, e.g. _common.py, are the registries' helpers).
_REGISTRY_FILES: set[str] = set()
_REGISTRY_PACKAGES: set[str] = set()
_REALPATHS: dict[str, str] = {}
_TOOLKIT_DIR = os.path.join(os.path.dirname(os.path.realpath(__file__)), "toolkit")


def note_registry_file(real_path: str, in_package: bool) -> None:
    """``real_path`` (symlinks resolved) was loaded as a registry; ``in_package``: it sits in a
    package, whose other modules are then registry code too."""
    _REGISTRY_FILES.add(real_path)
    if in_package:
        _REGISTRY_PACKAGES.add(os.path.dirname(real_path))


def is_registry_file(path: str) -> bool:
    """True when ``path`` (absolute, as in a traceback) is registry code: a registry file loaded by
    ``load_registries`` / ``load_registry_file`` in this process, or another module of a loaded
    registry's package (its helpers, such as a suite's ``_common.py``), or a module of the case
    toolkit (``opsweep/toolkit/``, whose wrappers a registry's case runs). Symlinks are resolved; ``<string>`` and other pseudo-files are not registry code. The evidence of a failure
    uses it to tell a registry's own mistake from a finding about the library."""
    if not path or path.startswith("<"):
        return False
    real = _REALPATHS.get(path)
    if real is None:
        real = _REALPATHS[path] = os.path.realpath(path)
    folder = os.path.dirname(real)
    return real in _REGISTRY_FILES or folder in _REGISTRY_PACKAGES or folder == _TOOLKIT_DIR
