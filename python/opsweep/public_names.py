"""What a library declares public: its public modules, the objects their public names reach, and
the one name each object is reported under.

``declared_surface(library, depth)`` walks the installed package and returns every public object
(a function or class defined in the library) with every public name that reaches it. The rule:

* **Public modules**: every module of the package at any depth whose dotted path has no
  ``_``-prefixed part; ``depth`` keeps only modules at most that many levels below the top. A module
  that cannot be imported is reported (``unimportable``), never silently dropped.
* **A module that declares ``__all__``**: its public names are exactly the names listed there
  (less any that start with ``_``), re-exports and deprecated aliases included.
* **A module without ``__all__``** (the fallback): when the package above it declares ``__all__``
  and does not list it (as the module: a function of the same name is not the module), the module is
  that package's implementation and has no public names of its
  own (what the package exports from it is public through the package); a module inside such a
  module is governed the same way. Otherwise (no package above it declares ``__all__``, or the one
  that does lists it) its public names are every name of its namespace that does not start with
  ``_``.
* Only objects defined in the library count (their ``__module__`` is the library or below it):
  a name that re-exports torch's or another package's callable is not the library's operator.
  Modules are never objects here.

Each object is counted once, however many names reach it (``names``, shortest first); it is
reported under ``name``: where the library defines it or first exports it publicly, i.e. the
shortest of its exporting names (ties: the defining module, then alphabetical). A name exports the
object when an ``__all__`` declares it, when it sits in the object's defining module, or, under the
fallback, when it sits in a package's namespace (a package without ``__all__`` re-exports by
importing). A plain module without ``__all__`` that imports the object does so for its own use: such
a name is none of the object's names unless it has no other.

Nothing here executes a case or imports torch by itself: it reads the installed library only, so
what is public never depends on what has a case.

The names of a case's target (the second part): ``qualified_name`` (``module.qualname``, a loose
registry's import name made stable), ``public_name`` (the shortest public dotted name that reaches
it), ``public_names`` (every one, for the inventory's aliases), ``surveyed_target`` (what a
wrapper names in ``__opsweep_target__``) and ``guess_library`` (the package most targets come
from). The inventory, the fingerprints and the lazy-target check of a job use them, so this module
is common harness code (in every path's digest).
"""

from __future__ import annotations

import collections
import dataclasses
import importlib
import inspect
import pkgutil
import re
import sys
import types
import warnings
from typing import Any, Sequence


@dataclasses.dataclass(frozen=True)
class PublicObject:
    """One public function or class of the library and every public name that reaches it."""

    obj: Any
    name: str  # where the library defines it or first exports it publicly
    names: tuple[str, ...]  # every public name that exports it, shortest first (``name`` first)
    declared: bool  # some ``__all__`` lists it (else only the fallback makes it public)


@dataclasses.dataclass
class DeclaredSurface:
    """The public objects of one library, by ``id``, with the modules read to find them."""

    library: str
    objects: dict[int, PublicObject]
    modules: list[str]  # public modules walked (importable), sorted
    declaring: list[str]  # those that declare ``__all__``
    governed: list[str]  # those without ``__all__`` that a package's ``__all__`` governs
    unimportable: list[dict]  # {"module", "error"}

    def lookup(self, obj: Any) -> PublicObject | None:
        found = self.objects.get(id(obj))
        return found if found is not None and found.obj is obj else None


def is_private_path(dotted: str) -> bool:
    """True when any part of a dotted path starts with ``_`` (``lib._impl.x``)."""
    return any(p.startswith("_") for p in dotted.split("."))


def in_library(obj: Any, library: str) -> bool:
    """A callable that is not a module and whose ``__module__`` is ``library`` or below it."""
    if obj is None or inspect.ismodule(obj):
        return False
    try:
        if not callable(obj):
            return False
        module = getattr(obj, "__module__", None) or ""
    except Exception:  # noqa: BLE001 - a lazy proxy that fails on attribute access
        return False
    return isinstance(module, str) and (module == library or module.startswith(library + "."))


def declared_all(module: Any) -> list[str] | None:
    """The public names a module's ``__all__`` lists (``_`` names left out), or None without one."""
    listed = getattr(module, "__all__", None)
    if not isinstance(listed, (list, tuple)):
        return None
    return [n for n in listed if isinstance(n, str) and not n.startswith("_")]


def public_modules(library: str, depth: int | None = None) -> tuple[list[str], list[dict]]:
    """Every importable public module of ``library`` (sorted) and the ones that failed to import."""
    root = importlib.import_module(library)
    names = [library]
    failed: list[dict] = []

    def onerror(name: str) -> None:
        if not is_private_path(name):
            failed.append({"module": name, "error": error_line(sys.exc_info()[1])})

    if hasattr(root, "__path__"):
        for info in pkgutil.walk_packages(root.__path__, library + ".", onerror=onerror):
            parts = info.name.split(".")[1:]
            if is_private_path(info.name) or (depth is not None and len(parts) > depth):
                continue
            names.append(info.name)
    imported: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in sorted(set(names)):
            try:
                importlib.import_module(name)
            except Exception as e:  # noqa: BLE001 - the library's failure, reported not raised
                failed.append({"module": name, "error": error_line(e)})
                continue
            imported.append(name)
    return imported, sorted({f["module"]: f for f in failed}.values(), key=lambda f: f["module"])


def error_line(e: BaseException | None) -> str:
    """One line (at most 200 characters) for an exception."""
    if e is None:
        return "import failed"
    return " ".join(f"{type(e).__name__}: {e}".split())[:200]


def _governed(module_name: str, library: str) -> bool:
    """True when a module without ``__all__`` is the implementation of a package above it: the
    nearest package that declares ``__all__`` does not list the way down to it."""
    parts = module_name.split(".")
    while len(parts) > 1:
        parent = sys.modules.get(".".join(parts[:-1]))
        listed = declared_all(parent) if parent is not None else None
        if listed is not None:  # listed as the module itself, not as a function of the same name
            child = sys.modules.get(".".join(parts))
            return parts[-1] not in listed or getattr(parent, parts[-1], None) is not child
        parts = parts[:-1]
    return False


def _name_key(dotted: str, defining: bool) -> tuple:
    """Shortest first; ties: the defining module's name, then alphabetical."""
    return (dotted.count("."), not defining, dotted)


def declared_surface(library: str, depth: int | None = None) -> DeclaredSurface:
    """The library's public objects (see the module docstring for the rule)."""
    modules, failed = public_modules(library, depth)
    names: dict[int, dict[str, bool]] = {}  # id -> {dotted name: names where it is defined or exported}
    objects: dict[int, Any] = {}
    declared_ids: set[int] = set()
    declaring: list[str] = []
    governed: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for mod_name in modules:
            module = sys.modules[mod_name]
            listed = declared_all(module)
            is_package = hasattr(module, "__path__")
            if listed is not None:
                declaring.append(mod_name)
                candidates = listed
            elif _governed(mod_name, library):
                governed.append(mod_name)
                continue
            else:
                candidates = [n for n in list(vars(module)) if not n.startswith("_")]
            for n in dict.fromkeys(candidates):
                try:
                    obj = getattr(module, n, None)
                except Exception:  # noqa: BLE001 - a lazy attribute that fails to load
                    continue
                if not in_library(obj, library):
                    continue
                # an export: declared, defined here, or imported into a package's namespace (a
                # package re-exports by importing); a plain module's import is for its own use
                exported = listed is not None or is_package or getattr(obj, "__module__", None) == mod_name
                objects[id(obj)] = obj
                names.setdefault(id(obj), {})[f"{mod_name}.{n}"] = exported
                if listed is not None:
                    declared_ids.add(id(obj))
    out: dict[int, PublicObject] = {}
    for key, by_name in names.items():
        obj = objects[key]
        defining = getattr(obj, "__module__", None)
        exported = [n for n, ok in by_name.items() if ok] or list(by_name)
        ordered = tuple(sorted(exported, key=lambda d: _name_key(d, d.rsplit(".", 1)[0] == defining)))
        out[key] = PublicObject(obj, ordered[0], ordered, key in declared_ids)
    return DeclaredSurface(library, out, modules, declaring, governed, failed)


# ---------------------------------------------------------------------------------------------
# The names of a case's target: what the inventory, the fingerprints and the lazy-target check call
# it (registry.py, fingerprint.py, case.py), its aliases, and the library most targets come from


_REGISTRY_MODULE = re.compile(r"^opsweep_registry_(\w+?)_[0-9a-f]{8}$")


def stable_module_name(module: str) -> str:
    """A registry's import name carries a digest of its path; names that reach fingerprints must
    not (a checkout elsewhere would invalidate every stored result), so it becomes the file stem."""
    m = _REGISTRY_MODULE.match(module)
    return m.group(1) if m else module


def surveyed_target(target: Any) -> Any:
    """What a case surveys: a registry wrapper names it in ``__opsweep_target__``; else the target."""
    try:
        named = getattr(target, "__opsweep_target__", None)
    except Exception:  # noqa: BLE001
        named = None
    return target if named is None else named


def qualified_name(obj: Any) -> str:
    """``module.qualname`` of a function or class; of an instance, its class."""
    if not isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, types.MethodType, type)) and not hasattr(
        obj, "__qualname__"
    ):
        obj = type(obj)
    module = getattr(obj, "__module__", None)
    qual = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or type(obj).__qualname__
    if module is None:
        self_obj = getattr(obj, "__self__", None)  # builtins such as torch.nonzero
        module = getattr(self_obj, "__name__", None) if isinstance(self_obj, types.ModuleType) else None
    return f"{stable_module_name(module)}.{qual}" if module else str(qual)


def public_name(target: Any) -> str:
    """The shortest public dotted name under which ``target`` (or its class) is reachable.

    ``lib.color.gray.rgb_to_grayscale`` -> ``lib.color.rgb_to_grayscale``. Only modules that
    are already imported are searched; falls back to ``qualified_name``.
    """
    obj = surveyed_target(target)
    if not (callable(obj) and hasattr(obj, "__qualname__")):
        obj = type(obj)
    full = qualified_name(obj)
    module = getattr(obj, "__module__", None)
    qual = getattr(obj, "__qualname__", None)
    if not module or not qual or "<" in qual:
        return full
    parts = module.split(".")
    for i in range(1, len(parts) + 1):
        if any(p.startswith("_") for p in parts[:i]):
            break
        mod = sys.modules.get(".".join(parts[:i]))
        if mod is None:
            continue
        found: Any = mod
        for attr in qual.split("."):
            found = getattr(found, attr, None)
        if found is obj:
            return f"{'.'.join(parts[:i])}.{qual}"
    return full


_ALIASES: dict[str, tuple[int, dict[int, list[str]]]] = {}


def _alias_index(top: str) -> dict[int, list[str]]:
    """id(obj) -> every public dotted name of obj in the loaded modules of package ``top``: module
    attributes, and the functions of the classes among them (``pkg.mod.Class.method``). Rebuilt
    when more modules were imported since."""
    loaded = [m for name, m in list(sys.modules.items())
              if (name == top or name.startswith(top + ".")) and not any(p.startswith("_") for p in name.split("."))]
    cached = _ALIASES.get(top)
    if cached is not None and cached[0] == len(loaded):
        return cached[1]
    index: dict[int, list[str]] = collections.defaultdict(list)
    for module in loaded:
        mod_name = getattr(module, "__name__", None)
        if not isinstance(mod_name, str):
            continue
        try:
            items = list(vars(module).items())
        except TypeError:
            continue
        for attr, value in items:
            if attr.startswith("_") or isinstance(value, types.ModuleType):
                continue
            index[id(value)].append(f"{mod_name}.{attr}")
            if isinstance(value, type):
                for meth, raw in list(vars(value).items()):
                    fn = getattr(raw, "__func__", raw)
                    if isinstance(fn, types.FunctionType) and (not meth.startswith("_") or meth.endswith("__")):
                        index[id(fn)].append(f"{mod_name}.{attr}.{meth}")
    out = {k: sorted(set(v), key=lambda n: (n.count("."), n)) for k, v in index.items()}
    _ALIASES[top] = (len(loaded), out)
    return out


def public_names(target: Any) -> list[str]:
    """Every public dotted name under which what ``target`` surveys is reachable in the loaded
    modules of its package, shortest first: the documentation may list it under any of them (the
    module that documents it rather than the package that re-exports it)."""
    obj = surveyed_target(target)
    if isinstance(obj, (list, tuple)):
        return sorted({n for o in obj for n in public_names(o)}, key=lambda n: (n.count("."), n))
    if not (callable(obj) and hasattr(obj, "__qualname__")):
        obj = type(obj)
    top = (getattr(obj, "__module__", None) or "").split(".", 1)[0]
    if not top or top == "opsweep":
        return []
    raw = getattr(obj, "__func__", obj)
    return list(_alias_index(top).get(id(raw), []))


def top_level_module(target: Any) -> str | None:
    """The top-level package of what ``target`` surveys (None for a name without a module)."""
    obj = surveyed_target(target)
    if not (callable(obj) and hasattr(obj, "__qualname__")):
        obj = type(obj)
    name = qualified_name(obj)
    return name.split(".", 1)[0] if "." in name else None


def guess_library(cases: Sequence[Any]) -> str | None:
    """The most common top-level module of the surveyed targets (ties: alphabetical)."""
    counts = collections.Counter(m for m in (top_level_module(c.target) for c in cases) if m)
    if not counts:
        return None
    best = max(counts.values())
    return sorted(m for m, n in counts.items() if n == best)[0]
