"""Coverage: which public callables of the surveyed library have no case.

`python -m opsweep.coverage --library kornia --registry FILE ... [--depth 2]` prints one JSON object
on stdout (the `opsweep coverage` verb formats it). What counts as public is fixed here, so the
share is reproducible:

* the library's packages down to `--depth` levels (`kornia.geometry` is depth 1,
  `kornia.geometry.camera` depth 2), skipping any private (`_`-prefixed) package;
* in each package, the names of its `__all__`, or when it has none, its public namespace; never a
  `_`-prefixed name, even one that a package lists in `__all__`;
* callables defined inside the library (functions and classes), de-duplicated by identity: a
  function re-exported in three packages is one callable, named by its shortest public path;
* not deprecated aliases (callables defined in a module named `*deprecated*`, such as kornia's
  top-level `kornia.tensor_to_image` forwarding to `kornia.image.tensor_to_image`): their targets
  are counted instead;
* operators only, not types: exceptions, enums, abstract classes and bases (a name that starts
  with "Base" or ends in "Base" / "Base2D" / "Base3D"; surveyed through their subclasses),
  mixins that are not modules, named tuples, and dataclasses that are neither modules nor callable
  (configuration and result holders). The rule reads the class, never the registries, and the
  report lists every type it set aside (`not_operators`) so the denominator can be audited.

A callable is covered when a case targets it: the case's target itself, the class of a module
instance, or the object a wrapper names in its `__opsweep_target__` attribute. A case with `skip`
covers its target too, with that reason shown. A registry may also list callables it deliberately
leaves out: `NOT_SURVEYED = {"kornia.io.load_image": "reads a file; not a tensor operator", ...}`;
an entry naming no public operator (a typo, a type, a callable the library removed) is reported
as `stale_not_surveyed` so the lists cannot silently rot.
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import importlib
import inspect
import json
import os
import pkgutil
import re
import sys
import warnings
from typing import Any

from opsweep.case import RegistryError
from opsweep.registry import _module_name, load_registries


def _not_an_operator(obj: Any) -> str | None:
    """Why a public class is a type rather than an operator, or None. Types are data (dataclasses
    and named tuples that hold configuration or results), behaviour meant to be mixed in, bases
    surveyed through their subclasses, exceptions and enums. Judged from the class itself, never
    from whether a case exists, so the count cannot be steered by the registries."""
    if not inspect.isclass(obj):
        return None
    if issubclass(obj, BaseException):
        return "exception"
    if issubclass(obj, enum.Enum):
        return "enum"
    torch = sys.modules.get("torch")
    is_module = torch is not None and issubclass(obj, torch.nn.Module)
    name = obj.__name__
    if inspect.isabstract(obj) or name.endswith(("Base", "Base2D", "Base3D")) or re.match(r"Base[A-Z]", name):
        return "base class"
    if not is_module and name.lower().endswith("mixin"):
        return "mixin"
    if not is_module and issubclass(obj, tuple) and hasattr(obj, "_fields"):
        return "named tuple"
    if not is_module and dataclasses.is_dataclass(obj) and not any("__call__" in vars(k) for k in obj.__mro__[:-1]):
        return "dataclass"
    return None


def _in_library(obj: Any, library: str) -> bool:
    if obj is None or inspect.ismodule(obj) or not callable(obj):
        return False
    module = getattr(obj, "__module__", None) or ""
    if module != library and not module.startswith(library + "."):
        return False
    return "deprecated" not in module.rsplit(".", 1)[-1]  # a deprecated alias: its target is what is counted


def public_names(library: str, depth: int = 2) -> dict[int, tuple[Any, str]]:
    """id(obj) -> (obj, shortest public dotted name), for every public callable defined in the
    library: operators and types alike."""
    root = importlib.import_module(library)
    packages = [library]
    for info in pkgutil.walk_packages(root.__path__, library + "."):
        parts = info.name.split(".")[1:]
        if not info.ispkg or len(parts) > depth or any(p.startswith("_") for p in parts):
            continue
        packages.append(info.name)
    found: dict[int, tuple[Any, str]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for pkg_name in sorted(packages):
            try:
                pkg = importlib.import_module(pkg_name)
            except Exception:  # a package that cannot import has no callable we can survey
                continue
            names = getattr(pkg, "__all__", None)
            if names is None:
                names = [n for n in vars(pkg) if not n.startswith("_")]
            for n in names:
                if n.startswith("_"):  # private even when a package lists it in __all__
                    continue
                obj = getattr(pkg, n, None)
                if not _in_library(obj, library):
                    continue
                dotted = f"{pkg_name}.{n}"
                prev = found.get(id(obj))
                if prev is None or (dotted.count("."), dotted) < (prev[1].count("."), prev[1]):
                    found[id(obj)] = (obj, dotted)
    return found


def not_surveyed(registries: list[str]) -> dict[str, str]:
    """The union of the registries' NOT_SURVEYED dicts (dotted name -> reason); call after loading."""
    out: dict[str, str] = {}
    for path in registries:
        module = sys.modules.get(_module_name(path))
        listed = getattr(module, "NOT_SURVEYED", None) or {}
        if not isinstance(listed, dict):
            raise RegistryError(f"{os.path.basename(path)}: NOT_SURVEYED must be a dict of name -> reason")
        out.update({str(k): str(v) for k, v in listed.items()})
    return out


def surveyed_objects(cases) -> dict[int, list[Any]]:
    """id(obj) -> cases that survey obj."""
    out: dict[int, list[Any]] = {}
    for c in cases:
        t = c.target
        candidates = [t]
        named = getattr(t, "__opsweep_target__", None)
        if named is not None:
            candidates.append(named)
        if not inspect.isclass(t) and not inspect.isfunction(t) and not inspect.isbuiltin(t):
            candidates.append(type(t))
        for obj in candidates:
            out.setdefault(id(obj), []).append(c)
    return out


def coverage_report(library: str, registries: list[str], depth: int = 2) -> dict:
    cases = [loaded.case for loaded in load_registries(registries)]
    excluded = not_surveyed(registries)
    surveyed = surveyed_objects(cases)
    public, types = {}, []
    for key, (obj, dotted) in public_names(library, depth).items():
        kind = _not_an_operator(obj)
        if kind is None:
            public[key] = (obj, dotted)
        else:
            types.append({"name": dotted, "kind": kind})
    covered, skipped, missing, listed = [], [], [], []
    operator_names = {dotted for _, dotted in public.values()}
    stale = sorted(n for n in excluded if n not in operator_names)
    for key, (obj, dotted) in sorted(public.items(), key=lambda kv: kv[1][1]):
        hits = surveyed.get(key, [])
        if hits:
            probing = [c for c in hits if c.skip is None]
            if probing:
                covered.append({"name": dotted, "cases": len(probing)})
            else:
                skipped.append({"name": dotted, "reason": hits[0].skip})
        elif dotted in excluded:
            listed.append({"name": dotted, "reason": excluded[dotted]})
        else:
            missing.append({"name": dotted, "kind": "class" if inspect.isclass(obj) else "function"})
    total = len(public)
    return {
        "library": library,
        "depth": depth,
        "total": total,
        "covered": len(covered),
        "skipped": skipped,
        "not_surveyed": listed,
        "missing": missing,
        "stale_not_surveyed": stale,
        "not_operators": sorted(types, key=lambda t: (t["kind"], t["name"])),
        "share": (len(covered) + len(skipped)) / total if total else 1.0,
        "probed_share": len(covered) / total if total else 1.0,
        "accounted": (len(covered) + len(skipped) + len(listed)) / total if total else 1.0,
        "cases": len(cases),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m opsweep.coverage")
    ap.add_argument("--library", required=True)
    ap.add_argument("--registry", action="append", default=[], required=True)
    ap.add_argument("--depth", type=int, default=2)
    args = ap.parse_args(argv)
    try:
        report = coverage_report(args.library, args.registry, args.depth)
    except RegistryError as e:
        print(json.dumps({"error": str(e)}))
        return 2
    except ImportError as e:
        print(json.dumps({"error": f"cannot import library {args.library!r}: {e}"}))
        return 2
    print(json.dumps(report, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
