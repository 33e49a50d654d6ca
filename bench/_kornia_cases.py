"""The bundled kornia registries' cases by name, for the benches that run jobs in this process."""

from __future__ import annotations

import glob
import os
import sys
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def kornia_cases() -> dict[str, Any]:
    """``{name: Case}`` of every case of the bundled kornia registries."""
    from opsweep.registry import load_registries

    files = sorted(glob.glob(os.path.join(ROOT, "python", "opsweep_suites", "kornia", "cases_*.py")))
    return {lc.case.name: lc.case for lc in load_registries(files)}


def named_cases(names: list[str]) -> dict[str, Any] | None:
    """``{name: Case}`` for ``names`` from the bundled kornia registries, or None (and the unknown
    names on stderr) when some name is not a case."""
    by_name = kornia_cases()
    missing = [n for n in names if n not in by_name]
    if missing:
        print(f"unknown cases: {', '.join(missing)}", file=sys.stderr)
        return None
    return {n: by_name[n] for n in names}

