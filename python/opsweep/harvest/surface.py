"""The library's public operators as the harvest sees them, from opsweep.coverage's
``public_surface`` (what ``opsweep coverage`` counts; one operator per object, its name where the
library defines it or first exports it).

``Operator`` adds what the harvest needs: the object whose docstring holds the examples, the group
a case of it goes in, and its short case name (chosen in ``assemble``)."""

from __future__ import annotations

import dataclasses
import doctest
import inspect
import os
import sys
from typing import Any

from opsweep.harvest.recorder import PublicTable


@dataclasses.dataclass
class Operator:
    name: str  # dotted public name, e.g. torchmetrics.functional.classification.binary_accuracy
    kind: str  # function | class | method
    obj: Any
    group: str  # package[.section] below the library


def surface(library: str) -> tuple[dict[str, Operator], PublicTable]:
    """Every public operator by name, and the recorder's table of them."""
    from opsweep.coverage import public_surface

    found = public_surface(library)
    operators: dict[str, Operator] = {}
    ids: dict[int, str] = {}
    objects: dict[int, Any] = {}
    for key, entry in found.operators.items():
        operators[entry.name] = Operator(entry.name, entry.kind, entry.obj, group_of(entry, library))
        ids[key] = entry.name
        objects[key] = entry.obj
    names: dict[int, str] = {}
    if found.declared is not None:
        for key, public in found.declared.objects.items():
            names[key] = public.name
            objects.setdefault(key, public.obj)
    for key, name in ids.items():
        names.setdefault(key, name)
    root = os.path.dirname(os.path.abspath(sys.modules[library].__file__)) + os.sep
    return operators, PublicTable(library, ids, objects, root, names)


def group_of(entry: Any, library: str) -> str:
    """``package[.section]``: the operator's public module below the library (at most two levels);
    for a name exported at the top, its defining module's first public level."""
    module = entry.module
    parts = [p for p in module.split(".")[1:] if not p.startswith("_")][:2]
    if not parts:
        defining = getattr(entry.obj, "__module__", "") or ""
        if entry.kind == "method":
            defining = getattr(entry.obj, "__module__", "") or ""
        parts = [p for p in defining.split(".")[1:] if not p.startswith("_")][:1]
    return ".".join(parts) or "top"


def example_source(obj: Any) -> Any:
    """The object whose docstring and source lines hold the operator's examples (a decorated
    function's wrapped function: its docstring is the same, its file and line are the real ones)."""
    return inspect.unwrap(obj) if inspect.isfunction(obj) else obj


def doctest_of(op: Operator) -> doctest.DocTest | None:
    """The operator's own docstring as a DocTest (globals: a copy of its module's), or None when
    the docstring has no example."""
    obj = example_source(op.obj)
    doc = getattr(obj, "__doc__", None)
    if not isinstance(doc, str) or ">>>" not in doc:
        return None
    finder = doctest.DocTestFinder(recurse=False, exclude_empty=True)
    module = inspect.getmodule(obj)
    try:
        tests = finder.find(obj, op.name, module=module if module is not None else False)
    except Exception:  # noqa: BLE001 - a docstring doctest cannot parse is reported by the caller
        raise
    tests = [t for t in tests if t.examples]
    return tests[0] if tests else None


def count_examples(op: Operator) -> int:
    doc = getattr(example_source(op.obj), "__doc__", None)
    if not isinstance(doc, str) or ">>>" not in doc:
        return 0
    try:
        return len(doctest.DocTestParser().get_examples(doc))
    except ValueError:
        return 0


def relative_file(path: str, library: str) -> str:
    """A library file relative to the folder above the library's package (``torchmetrics/...``)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(sys.modules[library].__file__)))
    rel = os.path.relpath(os.path.abspath(path), root)
    return rel.replace(os.sep, "/")
