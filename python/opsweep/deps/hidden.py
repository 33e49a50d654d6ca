"""Dependencies a job has without entering their code: functions whose effect lives in a module's
state (docs/formats.md section 3.1, item 3), and the watch over the registries' loading that
measures them (``ImportWatch``: a profiler's call graph, and each module's state the moment its
import finished)."""

from __future__ import annotations

import cProfile
import functools
import sys
import types
from typing import Any, Iterable

from opsweep.deps.index import FunctionId, LibraryIndex


class HiddenDeps:
    """For each library module: the functions whose effect lives in the module's state, so that a
    job reading that state depends on them without entering them:
    - what the module's import ran (``KERNEL = make_kernel(5)``; a decorator's body), measured
      by a profiler's call graph while the library is imported (``attribute_imports``);
    - what ran while the module's state changed after its import: a cache filled on first use by
      an earlier job, a registry building its cases (``after``). The state is the module's
      global bindings, the classes it defines (their attribute bindings), and the size and
      members of its top-level dicts, lists and sets and of its ``functools`` caches; a change
      found after a job makes every function that job ran a hidden dependency of the module (a
      superset: sound, and it only grows the deps of jobs that read the module).
    A module nobody watched (imported before the worker looked, or changed by a job whose
    recording is incomplete) is *unknown*: a job that reads it gets no deps (whole-library key).
    """

    def __init__(self) -> None:
        self.by_module: dict[str, set[FunctionId]] = {}
        self.unknown: set[str] = set()
        self.signatures: dict[str, int] = {}

    def functions_of(self, modules: Iterable[str]) -> set[FunctionId] | None:
        out: set[FunctionId] = set()
        for rel in modules:
            if rel in self.unknown:
                return None
            out |= self.by_module.get(rel, set())
        return out

    def attribute_imports(self, index: "LibraryIndex", stats: list[Any]) -> None:
        """From a profiler's call graph (``subcalls=True``) over imports: each library module's
        ``<module>`` code, its callees, transitively, stopping at other modules' code."""
        entries: dict[Any, Any] = {}
        for e in stats:
            if isinstance(e.code, types.CodeType):  # not a builtin's label (str) or other (dict)
                entries[_code_key(e.code)] = e
        for e in stats:
            code = e.code
            if not isinstance(code, types.CodeType) or code.co_name != "<module>":
                continue
            rel, _ = index.locate(code)
            if rel is None:
                continue
            found: set[FunctionId] = set()
            seen: set[Any] = set()
            todo = [e]
            while todo:
                cur = todo.pop()
                for sub in cur.calls or ():
                    c = sub.code
                    if not isinstance(c, types.CodeType):
                        continue
                    k = _code_key(c)
                    if k in seen or c.co_name == "<module>":
                        continue
                    seen.add(k)
                    r, q = index.locate(c)
                    if r is not None and q is not None:
                        found.add((r, q))
                    nxt = entries.get(k)
                    if nxt is not None:
                        todo.append(nxt)
            self.by_module.setdefault(rel, set()).update(found)

    def after(self, index: "LibraryIndex", functions: set[FunctionId] | None) -> list[str]:
        """After code that ran ``functions`` (None: not known): modules whose state changed, or
        that were imported meanwhile, get them as hidden dependencies. Returns those modules."""
        changed = []
        for rel, module in loaded_modules(index).items():
            sig = state_signature(module)
            if self.signatures.get(rel) == sig:
                continue
            self.signatures[rel] = sig
            changed.append(rel)
            if functions is None:
                self.unknown.add(rel)
            else:
                self.by_module.setdefault(rel, set()).update(functions)
        return changed


def loaded_modules(index: "LibraryIndex") -> dict[str, types.ModuleType]:
    """The library's modules imported in this interpreter, by file."""
    out = {}
    for mod in list(sys.modules.values()):
        f = getattr(mod, "__file__", None)
        if isinstance(f, str) and isinstance(mod, types.ModuleType):
            rel = index.relative(f)
            if rel is not None:
                out[rel] = mod
    return out


def _code_key(code: types.CodeType) -> tuple[str, int, str]:
    return (code.co_filename, code.co_firstlineno, code.co_qualname)


_CONTAINERS = (dict, list, set)
# Class attributes the runtime adds as caches of pure computations: copyreg's __slotnames__ (set on
# the first copy or pickle of an instance: every job deep-copies its target).
_RUNTIME_CACHES = frozenset({"__slotnames__"})


def _container_signature(value: Any) -> Any:
    if isinstance(value, dict):
        return (len(value), tuple((id(k), id(v)) for k, v in list(value.items())))
    if isinstance(value, list):
        return (len(value), tuple(id(v) for v in list(value)))
    return (len(value), frozenset(id(v) for v in list(value)))


def _value_signature(value: Any) -> Any:
    if isinstance(value, _CONTAINERS):
        return _container_signature(value)
    if isinstance(value, functools._lru_cache_wrapper):
        return value.cache_info().currsize
    return None


def state_signature(module: types.ModuleType) -> int:
    """A hash of the module state described in ``HiddenDeps`` (identities, not values: cheap)."""
    parts: list[Any] = []
    name = module.__name__
    for key, value in list(vars(module).items()):
        if (key.startswith("__") and key != "__all__") or isinstance(value, types.ModuleType):
            continue  # dunders (a warnings registry, the spec); submodules bound by later imports
        parts.append((key, id(value), _value_signature(value)))
        if isinstance(value, type) and getattr(value, "__module__", None) == name:
            for ck, cv in list(vars(value).items()):
                if ck in _RUNTIME_CACHES:
                    continue
                if isinstance(cv, (staticmethod, classmethod)):
                    cv = cv.__func__
                parts.append((key, ck, id(cv), _value_signature(cv)))
    return hash(tuple(parts))


class _StateAtImport:
    """A meta-path finder that wraps each module's loader for one import, so the module's state
    signature is taken the moment its code has run (before anything else can change it). The
    original loader is put back on the module and its spec before its code runs."""

    def __init__(self) -> None:
        self.states: dict[str, int] = {}  # module file -> state signature right after its import
        self._finding = False

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if self._finding:
            return None
        self._finding = True
        try:
            spec = None
            for finder in sys.meta_path:
                if finder is self:
                    continue
                find = getattr(finder, "find_spec", None)
                if find is None:
                    continue
                spec = find(fullname, path, target)
                if spec is not None:
                    break
        finally:
            self._finding = False
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _SignatureLoader(spec.loader, self.states)
        return spec


class _SignatureLoader:
    def __init__(self, loader: Any, states: dict[str, int]):
        self._loader = loader
        self._states = states

    def create_module(self, spec: Any) -> Any:
        create = getattr(self._loader, "create_module", None)
        return create(spec) if create is not None else None

    def exec_module(self, module: types.ModuleType) -> None:
        spec = getattr(module, "__spec__", None)
        if spec is not None and spec.loader is self:
            spec.loader = self._loader
        if getattr(module, "__loader__", None) is self:
            module.__loader__ = self._loader
        self._loader.exec_module(module)
        f = getattr(module, "__file__", None)
        if isinstance(f, str):
            try:
                self._states[f] = state_signature(module)
            except Exception:  # noqa: BLE001 - no signature: the module counts as changed
                self._states.pop(f, None)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)


class ImportWatch:
    """Watches a block that imports the library (the registries' loading): a profiler with its
    call graph (``stats``, for ``HiddenDeps.attribute_imports``; ``functions(index)``, what the
    block ran) and each module's state signature the moment its import finished."""

    def __init__(self) -> None:
        self.problem = ""
        self.stats: list[Any] = []
        self.files_before: set[str] = set()
        self._hook = _StateAtImport()

    @property
    def states_at_import(self) -> dict[str, int]:
        return self._hook.states

    def __enter__(self) -> "ImportWatch":
        self.files_before = {
            f for m in list(sys.modules.values()) if isinstance(f := getattr(m, "__file__", None), str)
        }
        if sys.getprofile() is not None:
            self.problem = "another profiler was active while the library was imported"
        sys.meta_path.insert(0, self._hook)  # type: ignore[arg-type]
        self._profiler = cProfile.Profile(builtins=False, subcalls=True)
        self._profiler.enable()
        return self

    def __exit__(self, *exc: Any) -> None:
        displaced = sys.getprofile() is not self._profiler
        self._profiler.disable()
        try:
            sys.meta_path.remove(self._hook)  # type: ignore[arg-type]
        except ValueError:
            pass
        if displaced and not self.problem:
            self.problem = "the profiler watching the library's import was replaced"
        self.stats = self._profiler.getstats()

    def modules_before(self, index: "LibraryIndex") -> set[str]:
        """Library modules already imported when the block started (their import was not seen)."""
        return {rel for f in self.files_before if (rel := index.relative(f)) is not None}

    def functions(self, index: "LibraryIndex") -> set[FunctionId]:
        out = set()
        for e in self.stats:
            if isinstance(e.code, types.CodeType):
                rel, qual = index.locate(e.code)
                if qual is not None:
                    out.add((rel, qual))  # type: ignore[arg-type]
        return out

    def hidden_deps(self, index: "LibraryIndex") -> "HiddenDeps":
        """The hidden dependencies after the block: import-time calls by module, and for each
        module whose state changed after its import (a registry filled a cache, set a flag),
        every library function the block ran."""
        hidden = HiddenDeps()
        hidden.attribute_imports(index, self.stats)
        unknown = self.modules_before(index)
        if self.problem:
            unknown |= set(index.files)
        hidden.unknown |= unknown
        for f, sig in self.states_at_import.items():
            rel = index.relative(f)
            if rel is not None:
                hidden.signatures[rel] = sig
        hidden.after(index, self.functions(index))
        self.stats = []
        return hidden
