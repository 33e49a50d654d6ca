"""Coverage: which public operators of the surveyed library have no probed case.

`python -m opsweep.coverage --library kornia --registry FILE ... [--depth N]` prints one JSON object
on stdout (the `opsweep coverage` verb formats it and gates on it). What counts as public is fixed
here, read from the installed library and never from the registries, so the share is reproducible
and cannot be steered by what has a case:

* **Modules**: every module of the installed package at any depth (packages and plain modules
  alike), skipping any whose dotted path has a `_`-prefixed part; `--depth N` keeps only modules
  at most N levels below the top (`kornia.geometry` is depth 1). A module that cannot be imported
  is reported (`unimportable`), never silently dropped.
* **Names**: every public name (no leading underscore) of each module's namespace, plus the public
  names of its `__all__`; a callable defined inside the library (its `__module__` is the library
  or below it), not in a module named `*deprecated*` (a deprecated alias: its target is counted).
  Each object is counted once however many modules re-export it, named by its shortest public path
  (ties: the path in the module that defines it, then alphabetical).
* **Methods**: the public methods of those classes (no leading underscore, plus the arithmetic and
  indexing operators `__add__`, `__mul__`, `__getitem__`, ...): functions, classmethods and
  staticmethods that a library class in the MRO defines, each function counted once and named
  `<shortest public class path>.<method>` (the defining class's path first). Not counted: `forward`
  (the class's call is its operator) and, on `nn.Module` classes, a method that overrides one of a
  library base class: it is a hook of the base's protocol (an augmentation's `apply_transform`),
  run by the module's own call and surveyed through it. Methods of exceptions and enums are not
  counted, nor abstract stubs (a body that only returns None or raises NotImplementedError: the
  overrides are the operators).
* **Operators only**: set aside (listed in `not_operators` with the reason, so the denominator can
  be audited) are types: exceptions, enums, abstract classes and bases (a name that starts with
  "Base" or ends in "Base" / "Base2D" / "Base3D"; surveyed through their subclasses), mixins that
  are not modules, named tuples, typed dicts, and dataclasses that are neither modules nor callable
  (configuration and result holders; their methods are still counted); and callables with **no
  tensor in their signature**: every parameter and the return annotated, and no annotation that
  can hold a tensor (`Tensor`, `Any`, `object`, an `nn.Module`, a type variable, or a class of the
  library other than an enum or a record type (typed dict, named tuple, plain dataclass) whose
  fields hold no tensor; `*args: Any` / `**kwargs: Any` are pass-through options and do not count).
  Unannotated callables are counted. A class passes that test through its `__init__` and
  `__call__` and the methods counted for it, and a constructor that takes a `device` or `dtype`
  allocates tensors (a colour table); `nn.Module` classes and classes that inherit behaviour from
  outside the library (a torch distribution) are always counted.

A name is covered when a case targets it: the case's target itself, the class of a module instance,
the object a wrapper names in its `__opsweep_target__` attribute (a function, a class, or a
method's function such as `kornia.geometry.Quaternion.__add__`), a bound method, or for a case
with `method=`, that method as resolved on the target's class. A case with `skip` accounts for its
target, with that reason shown, but does not probe it. A registry may also list callables it
deliberately leaves out: `NOT_SURVEYED = {"kornia.io.load_image": "reads a file; not a tensor
operator", ...}`; an entry naming no public operator (a typo, a type, a callable the library
removed) is reported as `stale_not_surveyed` so the lists cannot silently rot.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import enum
import importlib
import inspect
import json
import os
import pkgutil
import re
import sys
import typing
import warnings
from typing import Any, Iterable

from opsweep.case import RegistryError
from opsweep.registry import _module_name, load_registries

# Operator dunders that are public API of value types (quaternion arithmetic, pose composition,
# indexing a batch of boxes); other dunders are the object protocol.
OPERATOR_DUNDERS = frozenset({
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__matmul__", "__rmatmul__",
    "__truediv__", "__rtruediv__", "__floordiv__", "__mod__", "__pow__", "__neg__", "__pos__", "__abs__",
    "__invert__", "__and__", "__or__", "__xor__", "__getitem__",
})
# Annotation words that can hold a tensor (besides the library's own classes).
_TENSOR_WORDS = ("Tensor", "Any", "object", "Module", "Parameter", "Self", "TypeVar")


@dataclasses.dataclass(frozen=True)
class Entry:
    """One public callable: a function, a class, or a method (``obj`` is its function)."""

    name: str  # shortest public dotted path
    obj: Any
    kind: str  # "function" | "class" | "method"

    @property
    def module(self) -> str:
        """The module part of the public path (a method's is its class's module)."""
        owner = self.name.rsplit(".", 2 if self.kind == "method" else 1)
        return owner[0]


@dataclasses.dataclass
class Surface:
    """The library's public surface: operators by object identity, and everything set aside."""

    library: str
    operators: dict[int, Entry]
    not_operators: list[dict]  # {"name", "kind"}
    modules: int
    unimportable: list[dict]  # {"module", "error"}


# ---------------------------------------------------------------------------------------------
# What a public callable is


def _private_path(dotted: str) -> bool:
    return any(p.startswith("_") for p in dotted.split("."))


def _in_library(obj: Any, library: str) -> bool:
    if obj is None or inspect.ismodule(obj) or not callable(obj):
        return False
    try:
        module = getattr(obj, "__module__", None) or ""
    except Exception:  # noqa: BLE001 - a lazy proxy that fails on attribute access
        return False
    if not isinstance(module, str) or (module != library and not module.startswith(library + ".")):
        return False
    return "deprecated" not in module.rsplit(".", 1)[-1]  # a deprecated alias: its target is what is counted


def _not_an_operator(obj: Any) -> str | None:
    """Why a public class is a type rather than an operator, or None. Judged from the class itself,
    never from whether a case exists, so the count cannot be steered by the registries."""
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
    if not is_module and typing.is_typeddict(obj):
        return "typed dict"
    if not is_module and dataclasses.is_dataclass(obj) and not any("__call__" in vars(k) for k in obj.__mro__[:-1]):
        return "dataclass"
    return None


class _Annotations:
    """Decides whether a signature can carry a tensor, from its annotations alone."""

    def __init__(self, library: str, class_names: Iterable[str]):
        self._library = library
        self._visiting: set[type] = set()
        words = sorted({*_TENSOR_WORDS, *(n for n in class_names if len(n) > 1)}, key=lambda w: (-len(w), w))
        self._tensorish = re.compile(r"(?<![\w.])(?:\w+\.)*(?:" + "|".join(map(re.escape, words)) + r")\b")

    def can_hold_tensor(self, a: Any) -> bool:
        """An annotation (resolved when it could be) that a tensor or a tensor-holding object fits."""
        if isinstance(a, str) or isinstance(a, typing.ForwardRef):
            return bool(self._tensorish.search(a if isinstance(a, str) else a.__forward_arg__))
        if a is Any or a is object or isinstance(a, typing.TypeVar):
            return True
        if a is None or a is type(None) or a is Ellipsis:
            return False
        if isinstance(a, type) and not typing.get_args(a):
            torch = sys.modules.get("torch")
            if torch is not None and issubclass(a, (torch.Tensor, torch.nn.Module)):
                return True
            return _defined_in(a, self._library) and self._record_can_hold_tensor(a)
        args = typing.get_args(a)
        if args:
            return any(self.can_hold_tensor(x) for x in args if not isinstance(x, list)) or any(
                self.can_hold_tensor(y) for x in args if isinstance(x, list) for y in x
            )
        return bool(self._tensorish.search(str(a)))

    def _record_can_hold_tensor(self, cls: type) -> bool:
        """A library class can hold a tensor unless it is an enum, or a record type (typed dict, named
        tuple, dataclass that is not a module) none of whose field annotations can."""
        if issubclass(cls, enum.Enum):
            return False
        kind = _not_an_operator(cls)
        if kind not in ("typed dict", "named tuple", "dataclass"):
            return True
        if cls in self._visiting:
            return False
        self._visiting.add(cls)
        try:
            try:
                fields = typing.get_type_hints(cls)
            except Exception:  # noqa: BLE001 - unresolvable annotations: read their text
                fields = dict(getattr(cls, "__annotations__", {}))
            return not fields or any(self.can_hold_tensor(a) for a in fields.values())
        finally:
            self._visiting.discard(cls)

    def tensor_free(self, fn: Any, *, bound: bool) -> bool:
        """True when every parameter (but self / cls) and the return are annotated and none of the
        annotations can hold a tensor. Unannotated or uninspectable callables are not tensor-free."""
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):
            return False
        try:  # resolve string annotations where the function's module can (nn.Conv2d is a Module)
            sig = inspect.signature(fn, eval_str=True)
        except Exception:  # noqa: BLE001 - a name only typing-time imports know: keep the text
            pass
        params = list(sig.parameters.values())
        if bound and params:
            params = params[1:]
        annotations = []
        for p in params:
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.annotation in (Any, object, "Any", "object"):
                continue  # pass-through options (`**kwargs: Any`), not a tensor argument
            annotations.append(p.annotation)
        if getattr(fn, "__name__", "") != "__init__":
            annotations.append(sig.return_annotation)
        for a in annotations:
            if a is inspect.Parameter.empty or self.can_hold_tensor(a):
                return False
        return True


# ---------------------------------------------------------------------------------------------
# Walking the installed package


def _public_modules(library: str, depth: int | None) -> tuple[list[str], list[dict]]:
    """Every importable public module (sorted) and the ones that failed to import."""
    root = importlib.import_module(library)
    names = [library]
    failed: list[dict] = []

    def onerror(name: str) -> None:
        if not _private_path(name):
            failed.append({"module": name, "error": _error_line(sys.exc_info()[1])})

    if hasattr(root, "__path__"):
        for info in pkgutil.walk_packages(root.__path__, library + ".", onerror=onerror):
            parts = info.name.split(".")[1:]
            if _private_path(info.name) or (depth is not None and len(parts) > depth):
                continue
            names.append(info.name)
    imported: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in sorted(set(names)):
            try:
                importlib.import_module(name)
            except Exception as e:  # noqa: BLE001 - the library's failure, reported not raised
                failed.append({"module": name, "error": _error_line(e)})
                continue
            imported.append(name)
    return imported, sorted({f["module"]: f for f in failed}.values(), key=lambda f: f["module"])


def _error_line(e: BaseException | None) -> str:
    if e is None:
        return "import failed"
    return " ".join(f"{type(e).__name__}: {e}".split())[:200]


def _module_names(module: Any) -> list[str]:
    names = [n for n in vars(module) if not n.startswith("_")]
    listed = getattr(module, "__all__", None)
    if isinstance(listed, (list, tuple)):
        names += [n for n in listed if isinstance(n, str) and not n.startswith("_") and n not in vars(module)]
    return names


def _better(candidate: tuple, current: tuple | None) -> bool:
    return current is None or candidate < current


def _name_key(dotted: str, defining: bool) -> tuple:
    """Shortest public path; ties: the defining module's path, then alphabetical."""
    return (dotted.count("."), not defining, dotted)


def _methods(cls: type, library: str) -> Iterable[tuple[str, Any, type, str]]:
    """(method name, function, defining class, "method" | "staticmethod" | "hook") of the public
    methods `cls` exposes."""
    torch = sys.modules.get("torch")
    is_module = torch is not None and issubclass(cls, torch.nn.Module)
    for name in sorted(dir(cls)):
        if name == "forward" or (name.startswith("_") and name not in OPERATOR_DUNDERS):
            continue
        owner = next((k for k in cls.__mro__ if name in vars(k)), None)
        if owner is None or not _defined_in(owner, library):
            continue
        raw = vars(owner)[name]
        fn = raw.__func__ if isinstance(raw, (classmethod, staticmethod)) else raw
        if not inspect.isfunction(fn):
            continue  # properties, attributes, builtins
        if is_module and any(name in vars(k) and _defined_in(k, library) for k in owner.__mro__[1:]):
            yield name, fn, owner, "hook"
            continue
        yield name, fn, owner, ("staticmethod" if isinstance(raw, staticmethod) else "method")


def _is_stub(fn: Any) -> bool:
    """A function whose body does nothing but return None or raise NotImplementedError (a docstring
    and ``...``, ``pass``, ``raise NotImplementedError(...)``): an abstract stub of a protocol,
    whose overrides are the operators."""
    import dis

    try:
        ops = [i for i in dis.get_instructions(fn) if i.opname not in ("RESUME", "NOP", "CACHE", "EXTENDED_ARG")]
    except TypeError:
        return False
    names = [i.opname for i in ops]
    if names in (["LOAD_CONST", "RETURN_VALUE"], ["RETURN_CONST"]):
        return ops[0].argval is None
    if names and names[-1] == "RAISE_VARARGS" and ops[0].opname == "LOAD_GLOBAL":
        rest = set(names[1:-1]) <= {"LOAD_CONST", "PRECALL", "CALL", "PUSH_NULL", "CALL_FUNCTION"}
        return rest and ops[0].argval == "NotImplementedError"
    return False


def _defined_in(cls: type, library: str) -> bool:
    module = getattr(cls, "__module__", "") or ""
    return module == library or module.startswith(library + ".")


def public_surface(library: str, depth: int | None = None) -> Surface:
    """The library's public operators (see the module docstring for the rules)."""
    modules, failed = _public_modules(library, depth)
    best: dict[int, tuple[tuple, str, Any]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for mod_name in modules:
            module = sys.modules[mod_name]
            for n in _module_names(module):
                try:
                    obj = getattr(module, n, None)
                except Exception:  # noqa: BLE001
                    continue
                if not _in_library(obj, library):
                    continue
                dotted = f"{mod_name}.{n}"
                key = _name_key(dotted, getattr(obj, "__module__", None) == mod_name)
                prev = best.get(id(obj))
                if _better(key, prev[0] if prev else None):
                    best[id(obj)] = (key, dotted, obj)
    classes = [(dotted, obj) for _, dotted, obj in best.values() if inspect.isclass(obj)]
    annotations = _Annotations(
        library,
        {c.__name__ for _, c in classes}
        | {k.__name__ for _, c in classes for k in c.__mro__ if _defined_in(k, library)}
    )

    # methods: one entry per function, named under the best class path exposing it
    method_best: dict[int, tuple[tuple, str, Any, str]] = {}
    method_owners: dict[int, list[int]] = collections.defaultdict(list)  # class id -> method ids
    for cls_dotted, cls in classes:
        if _not_an_operator(cls) in ("exception", "enum"):
            continue
        for name, fn, owner, how in _methods(cls, library):
            dotted = f"{cls_dotted}.{name}"
            key = _name_key(dotted, owner is cls)
            prev = method_best.get(id(fn))
            if _better(key, prev[0] if prev else None):
                method_best[id(fn)] = (key, dotted, fn, how)
            method_owners[id(cls)].append(id(fn))

    operators: dict[int, Entry] = {}
    not_ops: list[dict] = []
    counted_methods: set[int] = set()
    for key, (_, dotted, fn, how) in method_best.items():
        if how == "hook":
            not_ops.append({"name": dotted, "kind": "hook (overrides a library base's method; run by the module's call)"})
        elif _is_stub(fn):
            not_ops.append({"name": dotted, "kind": "abstract stub (does nothing; its overrides are the operators)"})
        elif annotations.tensor_free(fn, bound=how != "staticmethod"):
            not_ops.append({"name": dotted, "kind": "no tensor in its signature"})
        else:
            operators[key] = Entry(dotted, fn, "method")
            counted_methods.add(key)
    torch = sys.modules.get("torch")
    for key, (_, dotted, obj) in best.items():
        if inspect.isclass(obj):
            kind = _not_an_operator(obj)
            is_module = torch is not None and issubclass(obj, torch.nn.Module)
            if kind is None and not is_module and _class_tensor_free(obj, annotations, library) and not any(
                m in counted_methods for m in method_owners.get(key, ())
            ):
                kind = "no tensor in its signature"
        else:
            kind = "no tensor in its signature" if annotations.tensor_free(obj, bound=False) else None
        if kind is None:
            operators[key] = Entry(dotted, obj, "class" if inspect.isclass(obj) else "function")
        else:
            not_ops.append({"name": dotted, "kind": kind})
    not_ops.sort(key=lambda t: (t["kind"], t["name"]))
    return Surface(library, operators, not_ops, len(modules), failed)


def _class_tensor_free(cls: type, annotations: _Annotations, library: str) -> bool:
    import abc

    if any(k not in (object, typing.Generic, abc.ABC) and not _defined_in(k, library) for k in cls.__mro__):
        return False  # behaviour inherited from outside the library (a torch distribution) is not read here
    for attr in ("__init__", "__call__"):
        owner = next((k for k in cls.__mro__ if attr in vars(k)), None)
        if owner is None or owner is object or not _defined_in(owner, library):
            continue
        fn = vars(owner)[attr]
        if inspect.isfunction(fn) and not annotations.tensor_free(fn, bound=True):
            return False
        if attr == "__init__" and inspect.isfunction(fn) and _takes_device_or_dtype(fn):
            return False  # it allocates tensors (a colour table on a device)
    return True


def _takes_device_or_dtype(fn: Any) -> bool:
    try:
        params = inspect.signature(fn, eval_str=True).parameters.values()
    except Exception:  # noqa: BLE001
        return False
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    wanted = (torch.device, torch.dtype)
    for p in params:
        a = p.annotation
        options = typing.get_args(a) or (a,)
        if any(isinstance(o, type) and issubclass(o, wanted) for o in options):
            return True
    return False


def public_names(library: str, depth: int | None = None) -> dict[int, tuple[Any, str]]:
    """id(obj) -> (obj, public name) of every public operator (functions, classes, methods)."""
    return {k: (e.obj, e.name) for k, e in public_surface(library, depth).operators.items()}


# ---------------------------------------------------------------------------------------------
# What the registries cover


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


def _function_of(obj: Any) -> Any:
    if inspect.ismethod(obj):
        return obj.__func__
    if isinstance(obj, (classmethod, staticmethod)):
        return obj.__func__
    return obj


def _resolved_method(owner: Any, method: str) -> Any:
    """The function `method` names on `owner` (a class, or an instance's class)."""
    cls = owner if inspect.isclass(owner) else type(owner)
    for k in cls.__mro__:
        if method in vars(k):
            return _function_of(vars(k)[method])
    return None


def surveyed_objects(cases) -> dict[int, list[Any]]:
    """id(obj) -> cases that survey obj (functions, classes and methods' functions)."""
    out: dict[int, list[Any]] = {}
    for c in cases:
        t = c.target
        candidates = [t, _function_of(t)]
        named = getattr(t, "__opsweep_target__", None)
        named = [] if named is None else list(named) if isinstance(named, (list, tuple)) else [named]
        for n in named:
            candidates += [n, _function_of(n)]
        if not inspect.isclass(t) and not inspect.isfunction(t) and not inspect.isbuiltin(t) and not inspect.ismethod(t):
            candidates.append(type(t))
        if c.method:  # the method on the target, or on the class a wrapper names as the API surveyed
            candidates += [_resolved_method(o, c.method) for o in [t, *(n for n in named if inspect.isclass(n))]]
        seen: set[int] = set()
        for obj in candidates:
            if obj is None or id(obj) in seen:
                continue
            seen.add(id(obj))
            out.setdefault(id(obj), []).append(c)
    return out


def _package(name: str, library: str) -> str:
    """`kornia.geometry` for `kornia.geometry.camera.PinholeCamera`; the library for top-level names."""
    parts = name.split(".")
    return ".".join(parts[:2]) if len(parts) > 2 else library


def coverage_report(library: str, registries: list[str], depth: int | None = None) -> dict:
    cases = [loaded.case for loaded in load_registries(registries)]
    excluded = not_surveyed(registries)
    surveyed = surveyed_objects(cases)
    surface = public_surface(library, depth)
    covered, skipped, missing, listed = [], [], [], []
    operator_names = {e.name for e in surface.operators.values()}
    stale = sorted(n for n in excluded if n not in operator_names)
    by_package: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for key, entry in sorted(surface.operators.items(), key=lambda kv: kv[1].name):
        pkg = by_package[_package(entry.name, library)]
        pkg["total"] += 1
        hits = surveyed.get(key, [])
        row = {"name": entry.name, "kind": entry.kind, "module": entry.module}
        if hits:
            probing = [c for c in hits if c.skip is None]
            if probing:
                covered.append({**row, "cases": len(probing)})
                pkg["covered"] += 1
            else:
                skipped.append({**row, "reason": hits[0].skip})
                pkg["skipped"] += 1
        elif entry.name in excluded:
            listed.append({**row, "reason": excluded[entry.name]})
            pkg["not_surveyed"] += 1
        else:
            missing.append(row)
            pkg["missing"] += 1
    total = len(surface.operators)
    kinds = collections.Counter(e.kind for e in surface.operators.values())
    return {
        "library": library,
        "depth": depth,
        "modules": surface.modules,
        "unimportable": surface.unimportable,
        "total": total,
        "by_kind": dict(sorted(kinds.items())),
        "covered": len(covered),
        "covered_names": covered,
        "skipped": skipped,
        "not_surveyed": listed,
        "missing": missing,
        "stale_not_surveyed": stale,
        "not_operators": surface.not_operators,
        "by_package": {
            p: {k: c.get(k, 0) for k in ("total", "covered", "skipped", "not_surveyed", "missing")}
            for p, c in sorted(by_package.items())
        },
        "share": (len(covered) + len(skipped)) / total if total else 1.0,
        "probed_share": len(covered) / total if total else 1.0,
        "accounted": (len(covered) + len(skipped) + len(listed)) / total if total else 1.0,
        "cases": len(cases),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m opsweep.coverage")
    ap.add_argument("--library", required=True)
    ap.add_argument("--registry", action="append", default=[], required=True)
    ap.add_argument("--depth", type=int, default=None, help="count only modules this many levels deep (default: any)")
    args = ap.parse_args(argv)
    depth = args.depth if args.depth and args.depth > 0 else None
    try:
        report = coverage_report(args.library, args.registry, depth)
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
