"""``python -m opsweep.harvest.plan --library NAME --scratch DIR [--tests DIR]``: what to harvest.

Prints one JSON object (and writes it to ``DIR/plan.json`` for ``assemble``):
``{"library", "version", "operators": [{"name", "kind", "group", "examples"}], "units": [...]}``,
operators sorted by name; ``units`` are the worker's units (worker.py), one per operator with at
least one ``>>>`` example (in operator order), then one per test file of ``--tests`` (sorted
paths: ``test_*.py`` and ``*_test.py``). On failure: ``{"error": "one line"}`` and exit 2.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import sys


def test_files(folder: str) -> list[str]:
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__pycache__")))
        for f in files:
            if f.endswith(".py") and (f.startswith("test_") or f.endswith("_test.py")):
                found.append(os.path.join(root, f))
    return sorted(found)


def version_of(library: str) -> str:
    try:
        return importlib.metadata.version(library)
    except importlib.metadata.PackageNotFoundError:
        return ""


def plan(library: str, tests: str | None) -> dict:
    from opsweep.harvest.surface import count_examples, surface

    operators, _ = surface(library)
    rows = []
    units: list[dict] = []
    for name in sorted(operators):
        op = operators[name]
        n = count_examples(op)
        rows.append({"name": name, "kind": op.kind, "group": op.group, "examples": n})
        if n:
            units.append({"kind": "doc", "operator": name})
    if tests:
        root = os.path.abspath(tests)
        for path in test_files(root):
            units.append({"kind": "tests", "path": path, "root": root, "deselect": []})
    return {"library": library, "version": version_of(library), "operators": rows, "units": units,
            "tests": os.path.abspath(tests) if tests else None}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m opsweep.harvest.plan")
    p.add_argument("--library", required=True)
    p.add_argument("--scratch", required=True)
    p.add_argument("--tests", default=None)
    args = p.parse_args(argv)
    if args.tests and not os.path.isdir(args.tests):
        print(json.dumps({"error": f"--tests {args.tests}: not a folder"}))
        return 2
    try:
        result = plan(args.library, args.tests)
    except ImportError as e:
        print(json.dumps({"error": f"cannot import library {args.library!r} with {sys.executable}: {e}"}))
        return 2
    os.makedirs(args.scratch, exist_ok=True)
    with open(os.path.join(args.scratch, "plan.json"), "w", encoding="utf-8") as f:
        json.dump(result, f, sort_keys=True)
    print(json.dumps(result, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
