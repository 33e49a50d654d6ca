"""Recall and precision of `opsweep coverage`'s public operators against what a library declares.

    PYTHONPATH=python python3 scripts/coverage_ground_truth.py --library torchmetrics [--json]

The ground truth is computed here, independently of opsweep.public_names: every module of the
installed package (private ones included) that declares ``__all__``, and the classes and functions
its names refer to, deduplicated by object. It is compared, by object, with the operators of
``opsweep.coverage.public_surface`` (functions, classes and methods): recall is the share of the
declared objects that coverage counts, precision the share of coverage's operators that are
declared. Methods are not in the ground truth, so each counted method lowers precision; the
figure for functions and classes alone is printed beside it. Objects the ground truth holds that
coverage sets aside as no operator (a base class, an enum, a function with no tensor in its
signature) are listed with coverage's reason: they lower recall by design.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import pkgutil
import sys
import warnings


def ground_truth(library: str) -> dict[int, tuple[object, list[str]]]:
    """id -> (object, names) of every class or function that some module's ``__all__`` names."""
    root = importlib.import_module(library)
    names = [library]
    if hasattr(root, "__path__"):
        names += [m.name for m in pkgutil.walk_packages(root.__path__, library + ".", onerror=lambda _: None)]
    found: dict[int, tuple[object, list[str]]] = {}
    for name in sorted(set(names)):
        try:
            module = importlib.import_module(name)
        except Exception:  # noqa: BLE001 - an optional dependency missing: coverage reports it too
            continue
        listed = getattr(module, "__all__", None)
        if not isinstance(listed, (list, tuple)):
            continue
        for n in listed:
            obj = getattr(module, n, None) if isinstance(n, str) else None
            if inspect.isclass(obj) or inspect.isfunction(obj) or inspect.isbuiltin(obj):
                found.setdefault(id(obj), (obj, []))[1].append(f"{name}.{n}")
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="scripts/coverage_ground_truth.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--library", required=True)
    ap.add_argument("--json", action="store_true", help="print the figures and the differences as JSON")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    from opsweep.coverage import public_surface

    truth = ground_truth(args.library)
    surface = public_surface(args.library)
    ops = surface.operators
    plain = {k: e for k, e in ops.items() if e.kind != "method"}
    hit = [k for k in truth if k in ops]
    set_aside = {e["name"]: e["kind"] for e in surface.not_operators}
    missed = sorted(
        {"name": sorted(names, key=lambda d: (d.count("."), d))[0],
         "why": next((set_aside[d] for d in names if d in set_aside), "not found")}.items()
        for k, (_, names) in truth.items() if k not in ops
    )
    report = {
        "library": args.library,
        "declared": len(truth),
        "operators": len(ops),
        "functions_and_classes": len(plain),
        "recall": len(hit) / len(truth) if truth else 1.0,
        "precision": len(hit) / len(ops) if ops else 1.0,
        "precision_functions_and_classes": sum(1 for k in plain if k in truth) / len(plain) if plain else 1.0,
        "declared_not_counted": [dict(m) for m in missed],
        "counted_not_declared": sorted(e.name for k, e in ops.items() if k not in truth),
    }
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))
        return 0
    print(f"{args.library}: {report['declared']} declared classes and functions (ground truth); "
          f"coverage counts {report['operators']} operators ({report['functions_and_classes']} functions and classes)")
    print(f"recall {report['recall']:.3f}, precision {report['precision']:.3f} "
          f"(functions and classes alone: {report['precision_functions_and_classes']:.3f})")
    for m in report["declared_not_counted"]:
        print(f"  declared, not counted: {m['name']} ({m['why']})")
    for n in report["counted_not_declared"]:
        print(f"  counted, not declared: {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
