"""Standalone source: opsweep's own code as the text of a script that does not import opsweep.

A reproducer (opsweep/repro.py) runs where only torch, numpy, the surveyed library and the path's
exporter or runtime are installed (docs/quickstart.md), yet must build the call, seed, flatten,
compare and name the root cause exactly as the harness does. So it carries the harness's own
code, copied from its source when the script is written, never re-written by hand:
``source_of(items)`` gives the definitions of ``items`` (functions and classes of opsweep's
modules, or ``(module, name)`` pairs for constants) and of every module-level name of opsweep
they reach, dependencies first, after the imports they need. An edit of the harness changes the
next script with it.

Contract:
- A definition is its module's top-level statement as written (decorators included, comments
  between statements left out).
- Names resolve at module level: a function, class or constant of the same module is copied; a
  name the module imports from opsweep is copied from the module that defines it (under the same
  name); an import of anything else is repeated, one statement per name.
- Annotations are never resolved: the script starts with ``from __future__ import annotations``.
- What cannot be carried raises ``StandaloneError``: code that imports opsweep when it runs (an
  import inside a function body), a module of opsweep imported as a value, a relative import, an
  opsweep name imported under another name, and two different definitions of one name.
"""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
import inspect
from typing import Any, Iterable

FUTURE = "from __future__ import annotations"


class StandaloneError(Exception):
    """The code asked for cannot be carried into a script without opsweep; the message says why."""


@functools.lru_cache(maxsize=None)
def _module_source(module: str) -> tuple[str, dict[str, ast.stmt]]:
    """The source of ``module`` and its top-level statements by the names they bind."""
    source = inspect.getsource(importlib.import_module(module))
    bindings: dict[str, ast.stmt] = {}
    for stmt in ast.parse(source).body:
        for name in _bound_names(stmt):
            bindings[name] = stmt
    return source, bindings


def _bound_names(stmt: ast.stmt) -> list[str]:
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [stmt.name]
    if isinstance(stmt, ast.Assign):
        return [n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        return [stmt.target.id]
    if isinstance(stmt, ast.Import):
        return [a.asname or a.name.split(".", 1)[0] for a in stmt.names]
    if isinstance(stmt, ast.ImportFrom) and stmt.module != "__future__":
        return [a.asname or a.name for a in stmt.names]
    return []


class _Reads(ast.NodeVisitor):
    """The names a statement reads, annotations left out; imports of opsweep inside it noted."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.opsweep_imports: list[str] = []

    def visit_Name(self, node: ast.Name) -> None:
        self.names.add(node.id)

    def visit_arg(self, node: ast.arg) -> None:  # a parameter: its annotation is never evaluated
        pass

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for expr in [*node.decorator_list, *node.args.defaults, *[d for d in node.args.kw_defaults if d is not None]]:
            self.visit(expr)
        for stmt in node.body:
            self.visit(stmt)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)

    def visit_Import(self, node: ast.Import) -> None:
        self.opsweep_imports += [a.name for a in node.names if _is_opsweep(a.name)]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level or _is_opsweep(node.module or ""):
            self.opsweep_imports.append("." * node.level + (node.module or ""))


def _is_opsweep(module: str) -> bool:
    return module == "opsweep" or module.startswith("opsweep.")


def _segment(source: str, stmt: ast.stmt) -> str:
    """A top-level statement's text, its decorators included."""
    lines = source.splitlines()
    first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])
    return "\n".join(lines[first - 1: stmt.end_lineno])


def _import_text(stmt: ast.Import | ast.ImportFrom, name: str) -> str:
    """The import statement of ``stmt`` that binds ``name`` alone."""
    alias = next(a for a in stmt.names if (a.asname or (a.name if isinstance(stmt, ast.ImportFrom)
                                                           else a.name.split(".", 1)[0])) == name)
    if isinstance(stmt, ast.Import):
        return ast.unparse(ast.Import(names=[alias]))
    return ast.unparse(ast.ImportFrom(module=stmt.module, names=[alias], level=0))


class _Collector:
    def __init__(self) -> None:
        self.imports: dict[str, str] = {}  # name -> the import statement that binds it
        self.definitions: list[str] = []  # in dependency order
        self.defined: dict[str, tuple[str, int]] = {}  # name -> (module, line) of its definition
        self.done: set[tuple[str, int]] = set()
        self.active: set[tuple[str, int]] = set()

    def add(self, module: str, name: str) -> None:
        source, bindings = _module_source(module)
        stmt = bindings.get(name)
        if stmt is None:
            raise StandaloneError(f"{module} defines no {name!r}")
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            self._add_import(module, stmt, name)
            return
        key = (module, stmt.lineno)
        if key in self.done or key in self.active:  # done, or a recursion: resolved when called
            return
        for bound in _bound_names(stmt):
            if self.defined.get(bound, key) != key:
                other = self.defined[bound]
                raise StandaloneError(f"two definitions of {bound!r}: {other[0]}:{other[1]} and {module}:{stmt.lineno}")
        reads = _Reads()
        reads.visit(stmt)
        if reads.opsweep_imports:
            raise StandaloneError(f"{module}.{name} imports {', '.join(reads.opsweep_imports)} when it runs")
        self.active.add(key)
        for used in sorted(reads.names):
            if used in bindings and used not in _bound_names(stmt):
                self.add(module, used)
            elif used not in bindings and not hasattr(builtins, used):
                continue  # a local name (a parameter, a comprehension variable)
        self.active.discard(key)
        self.done.add(key)
        for bound in _bound_names(stmt):
            self.defined[bound] = key
        self.definitions.append(_segment(source, stmt))

    def _add_import(self, module: str, stmt: ast.Import | ast.ImportFrom, name: str) -> None:
        if isinstance(stmt, ast.ImportFrom) and stmt.level:
            raise StandaloneError(f"{module}: a relative import ({name}) cannot be carried")
        if isinstance(stmt, ast.ImportFrom) and _is_opsweep(stmt.module or ""):
            alias = next(a for a in stmt.names if (a.asname or a.name) == name)
            value = getattr(importlib.import_module(stmt.module or ""), alias.name, None)
            if inspect.ismodule(value):
                raise StandaloneError(f"{module} imports the module {stmt.module}.{alias.name}: name what it uses")
            if alias.asname and alias.asname != alias.name:
                raise StandaloneError(f"{module} imports {stmt.module}.{alias.name} as {alias.asname}")
            self.add(stmt.module or "", alias.name)
            return
        if isinstance(stmt, ast.Import) and any(_is_opsweep(a.name) for a in stmt.names):
            raise StandaloneError(f"{module} imports opsweep itself ({name})")
        text = _import_text(stmt, name)
        if self.imports.get(name, text) != text:
            raise StandaloneError(f"two imports bind {name!r}: {self.imports[name]!r} and {text!r}")
        self.imports[name] = text


def _module_and_name(item: Any) -> tuple[str, str]:
    if isinstance(item, tuple):
        return item[0], item[1]
    module, qual = getattr(item, "__module__", None), getattr(item, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qual, str) or "." in qual or "<" in qual:
        raise StandaloneError(f"{item!r} is not a module-level function or class")
    if not _is_opsweep(module):
        raise StandaloneError(f"{module}.{qual} is not opsweep's: import it in the script instead")
    return module, qual


def source_of(items: Iterable[Any]) -> str:
    """The imports and definitions ``items`` need, as script text (see the module docstring)."""
    collector = _Collector()
    for item in items:
        collector.add(*_module_and_name(item))
    imports = sorted(set(collector.imports.values()), key=lambda t: (t.startswith("from "), t))
    return "\n".join(imports) + "\n\n\n" + "\n\n\n".join(collector.definitions) + "\n"
