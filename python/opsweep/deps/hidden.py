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
from opsweep.deps.recorder import active_recorder


class HiddenDeps:
    """For each library module: the functions whose effect lives in the module's state, so that a
    job reading that state depends on them without entering them:
    - what the module's import ran (``KERNEL = make_kernel(5)``; a decorator's body), measured
      by a profiler's call graph while the module is imported (``attribute_imports``): at the
      registries' loading (``ImportWatch``) and, for a module a job imports on first use, during
      that job (``JobImports``). Every job whose import closure holds the module inherits them;
    - what ran while the module's state changed after its import: a cache filled on first use by
      an earlier job, a registry building its cases (``after``). The state is the module's
      global bindings, the classes it defines (their attribute bindings), and the size and
      members of its top-level dicts, lists and sets and of its ``functools`` caches. A change
      found after a job makes every function that job ran a hidden dependency of the changed
      *names* (``_DCT8_CACHE``; ``Class.attr``), and a later job inherits them only when it can
      read them (``functions_read``): it entered code of that module (its functions read its
      globals), or code that spells one of those names (``M._CACHE``, ``from M import _CACHE``,
      a class attribute ``obj.attr``, ``getattr(obj, "attr")``), or the name of another module's
      global bound to the same object (``from M import _CACHE as TABLE``). Code that reaches a
      module's state by a computed name (``vars(M)[name]``) without entering the module's code
      is not seen: the library's code does not do that (docs/formats.md section 3.1).
    A module nobody watched (imported before the worker looked, imported by a job under another
    profiler, or changed by a job whose recording is incomplete) is *unknown*: a job that reads
    it gets no deps (whole-library key).
    """

    def __init__(self) -> None:
        self.by_module: dict[str, set[FunctionId]] = {}
        # file -> state key (("name",) or ("Class", "attr")) -> functions that ran when it changed
        self.by_state: dict[str, dict[tuple[str, ...], set[FunctionId]]] = {}
        # (file, state key) -> the object bound there when it changed (for its aliases)
        self.objects: dict[tuple[str, tuple[str, ...]], Any] = {}
        self.unknown: set[str] = set()
        self.signatures: dict[str, dict[tuple[str, ...], int]] = {}
        # folders of code besides the library's that may read its state by name (the registries);
        # third-party code (torch, numpy, the standard library) does not know the library's names
        self.reader_dirs: tuple[str, ...] = ()

    def functions_of(self, modules: Iterable[str]) -> set[FunctionId] | None:
        """The import-time functions of ``modules`` (None: one of them is unknown)."""
        out: set[FunctionId] = set()
        for rel in modules:
            if rel in self.unknown:
                return None
            out |= self.by_module.get(rel, set())
        return out

    def functions_read(self, index: "LibraryIndex", files: set[str], names: set[str]) -> set[FunctionId]:
        """The functions behind module state changed after its import that a job entering code
        of ``files`` and spelling ``names`` (in the library's and the registries' code) can read
        (see the class docstring)."""
        out: set[FunctionId] = set()
        aliases: dict[int, set[str]] | None = None
        for rel, keys in self.by_state.items():
            if rel in files:
                for fns in keys.values():
                    out |= fns
                continue
            for key, fns in keys.items():
                if fns <= out:
                    continue
                if any(n in names for n in key):
                    out |= fns
                    continue
                obj = self.objects.get((rel, key))
                if obj is None:
                    continue
                if aliases is None:
                    aliases = _global_names_by_id(index, {id(o) for o in self.objects.values()})
                if aliases.get(id(obj), set()) & names:
                    out |= fns
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
        """After code that ran ``functions`` (None: not known): the state names that changed get
        them as hidden dependencies; a module imported meanwhile that nobody watched becomes
        unknown. Returns the modules whose state changed."""
        changed = []
        for rel, module in loaded_modules(index).items():
            parts = state_parts(module)
            before = self.signatures.get(rel)
            if before == parts:
                continue
            self.signatures[rel] = parts
            changed.append(rel)
            if functions is None:
                self.unknown.add(rel)
                continue
            if before is None:  # imported meanwhile, unwatched: what ran counts for its importers
                self.by_module.setdefault(rel, set()).update(functions)
                continue
            state = self.by_state.setdefault(rel, {})
            values = _state_values(module)
            for key in {*parts, *before}:
                if parts.get(key) == before.get(key):
                    continue
                state.setdefault(key, set()).update(functions)
                obj = values.get(key)
                if obj is not None and not isinstance(obj, _SCALARS):
                    self.objects[(rel, key)] = obj
        return changed


_SCALARS = (int, float, complex, str, bytes, bool, type(None), tuple, frozenset)


def _global_names_by_id(index: "LibraryIndex", ids: set[int]) -> dict[int, set[str]]:
    """For each object id in ``ids``: the names library modules' globals bind it to."""
    out: dict[int, set[str]] = {}
    for module in loaded_modules(index).values():
        for key, value in list(vars(module).items()):
            if id(value) in ids:
                out.setdefault(id(value), set()).add(key)
    return out


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


def _state_items(module: types.ModuleType) -> Iterable[tuple[tuple[str, ...], Any]]:
    """The module state described in ``HiddenDeps``: (key, value) pairs, ``("name",)`` for a
    global binding and ``("Class", "attr")`` for an attribute of a class the module defines."""
    name = module.__name__
    for key, value in list(vars(module).items()):
        if (key.startswith("__") and key != "__all__") or isinstance(value, types.ModuleType):
            continue  # dunders (a warnings registry, the spec); submodules bound by later imports
        yield (key,), value
        if isinstance(value, type) and getattr(value, "__module__", None) == name:
            for ck, cv in list(vars(value).items()):
                if ck in _RUNTIME_CACHES:
                    continue
                if isinstance(cv, (staticmethod, classmethod)):
                    cv = cv.__func__
                yield (key, ck), cv


def state_parts(module: types.ModuleType) -> dict[tuple[str, ...], int]:
    """Each state key's signature (identities, not values: cheap)."""
    return {key: hash((id(value), _value_signature(value))) for key, value in _state_items(module)}


def _state_values(module: types.ModuleType) -> dict[tuple[str, ...], Any]:
    return dict(_state_items(module))


def state_signature(module: types.ModuleType) -> int:
    """One hash of the module's state (``state_parts``)."""
    return hash(tuple(state_parts(module).items()))


class _StateAtImport:
    """A meta-path finder that wraps each module's loader for one import, so the module's state
    signature is taken the moment its code has run (before anything else can change it). The
    original loader is put back on the module and its spec before its code runs."""

    def __init__(self) -> None:
        self.states: dict[str, dict[tuple[str, ...], int]] = {}  # module file -> state right after its import
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
        spec.loader = self._loader_for(spec.loader)
        return spec

    def _loader_for(self, loader: Any) -> Any:
        return _SignatureLoader(loader, self.states)


class _SignatureLoader:
    def __init__(self, loader: Any, states: dict[str, int]):
        self._loader = loader
        self._states = states

    def create_module(self, spec: Any) -> Any:
        create = getattr(self._loader, "create_module", None)
        return create(spec) if create is not None else None

    def _restore(self, module: types.ModuleType) -> None:
        spec = getattr(module, "__spec__", None)
        if spec is not None and spec.loader is self:
            spec.loader = self._loader
        if getattr(module, "__loader__", None) is self:
            module.__loader__ = self._loader

    def exec_module(self, module: types.ModuleType) -> None:
        self._restore(module)
        self._loader.exec_module(module)
        f = getattr(module, "__file__", None)
        if isinstance(f, str):
            try:
                self._states[f] = state_parts(module)
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
    def states_at_import(self) -> dict[str, dict[tuple[str, ...], int]]:
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


class JobImports(_StateAtImport):
    """Installed after the registries' loading, for the worker's life: a library module imported
    later (a job's first use: ``from lib.feature import ...`` in a function body, a lazy
    package attribute) is imported under a profiler of its own with its call graph, so exactly what
    its import ran becomes its import-time dependency (``HiddenDeps.attribute_imports``) and its
    state is taken when its import finished; the job's recorder is paused meanwhile, so the
    import's calls are not the job's own (the job still depends on them through its import
    closure). An import under a profiler that is not ours (another thread's) makes the module
    unknown. ``drain`` hands what was seen to ``HiddenDeps`` (before a job's deps are taken)."""

    def __init__(self, is_library: Any) -> None:
        super().__init__()
        self.is_library = is_library
        self.stats: list[Any] = []
        self.unknown: set[str] = set()
        self.profilers: list[Any] = []

    def install(self) -> "JobImports":
        if self not in sys.meta_path:
            sys.meta_path.insert(0, self)  # type: ignore[arg-type]
        return self

    def uninstall(self) -> None:
        try:
            sys.meta_path.remove(self)  # type: ignore[arg-type]
        except ValueError:
            pass

    def _loader_for(self, loader: Any) -> Any:
        return _ProfilingLoader(loader, self)

    def drain(self, index: "LibraryIndex", hidden: HiddenDeps) -> set[FunctionId]:
        """Hands the imports seen since the last call to ``hidden``; returns the library functions
        they ran (they count for state those imports changed in other modules)."""
        stats, self.stats = self.stats, []
        ran: set[FunctionId] = set()
        if stats:
            hidden.attribute_imports(index, stats)
            for e in stats:
                if isinstance(e.code, types.CodeType):
                    rel, qual = index.locate(e.code)
                    if rel is not None and qual is not None:
                        ran.add((rel, qual))
        states = dict(self.states)
        self.states.clear()  # the loaders in flight hold this dict
        for f, parts in states.items():
            rel = index.relative(f)
            if rel is not None:
                hidden.signatures[rel] = parts
        unknown, self.unknown = self.unknown, set()
        for f in unknown:
            rel = index.relative(f)
            if rel is not None:
                hidden.unknown.add(rel)
        return ran


class _ProfilingLoader(_SignatureLoader):
    def __init__(self, loader: Any, watch: JobImports):
        super().__init__(loader, watch.states)
        self._watch = watch

    def exec_module(self, module: types.ModuleType) -> None:
        f = getattr(module, "__file__", None)
        watch = self._watch
        if not isinstance(f, str) or not watch.is_library(f):
            self._restore(module)  # not the library's: nothing to watch
            self._loader.exec_module(module)
            return
        current = sys.getprofile()
        if current is not None and any(current is p for p in watch.profilers):
            super().exec_module(module)  # nested in a library import we profile: its graph holds it
            return
        recorder = active_recorder()
        ours = recorder is not None and recorder.accounts_for(current)
        if current is not None and not ours:
            watch.unknown.add(f)
            super().exec_module(module)
            return
        if ours:
            recorder.pause()  # type: ignore[union-attr]
        profiler = cProfile.Profile(builtins=False, subcalls=True)
        watch.profilers.append(profiler)
        profiler.enable()
        try:
            super().exec_module(module)
        finally:
            profiler.disable()
            watch.profilers.remove(profiler)
            if ours:
                recorder.resume()  # type: ignore[union-attr]
            watch.stats.extend(profiler.getstats())
