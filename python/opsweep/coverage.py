"""Coverage: which public operators of the surveyed library have no probed case.

`python -m opsweep.coverage [--library NAME] --registry FILE ... [--depth N]` prints one JSON object
on stdout (the `opsweep coverage` verb formats it and gates on it). What counts as public is fixed
here and in opsweep.public_names, read from the installed library and never from the registries,
so the share is reproducible and cannot be steered by what has a case:

* **The library**: `--library NAME`; without it, the library that the registries' suite names: when
  every registry file sits in a package whose `__init__.py` assigns `LIBRARY = "name"` (the nearest
  such package above the file), and they all name the same one. Otherwise a one-line error.
* **Names** (opsweep.public_names): where a module declares `__all__`, that is its public set,
  deprecated aliases and re-exports included; a module without `__all__` that a package's
  `__all__` governs (the package above it declares one and does not list it) has no public names of
  its own; any other module's public names are those of its namespace without a leading
  underscore. Only callables defined in the library count. Each object is **one operator**,
  whatever number of public names reach it (all listed in `aliases`), reported where the library
  defines it or first exports it (the shortest declared name, or the one in its defining module).
  `--depth N` keeps only modules at most N levels below the top (`lib.geometry` is depth 1).
* **Methods**: the public methods of those classes (no leading underscore, plus the arithmetic and
  indexing operators `__add__`, `__mul__`, `__getitem__`, ...): functions, classmethods and
  staticmethods that a library class in the MRO defines, each function counted once and named
  `<class's public name>.<method>` (the defining class's first). Not counted: `forward` (the class's
  call is its operator); on `nn.Module` classes, a method that overrides one of a library base class
  (a hook of the base's protocol, such as an augmentation's `apply_transform`, run by the module's
  own call and surveyed through it); **generic methods**: a method whose name a base outside the
  library defines (it overrides torch's or Python's own: `nn.Module.state_dict`, `train`,
  `ModuleDict.items`, `Dataset.__getitem__`), a dtype / device cast (`to`, `type`, `float`,
  `double`, `half`, `bfloat16`, `cpu`, `cuda`), and the methods of an abstract class (it cannot be
  made, so they only ever run as what its subclasses inherit: a metric base's `+` and `sync`).
  Methods of exceptions and enums are not counted, nor abstract stubs (a body that only returns
  None or raises NotImplementedError: the overrides are the operators).
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

Each covered operator says where its cases come from (``source``): ``hand-written`` when any of its
cases is, else ``harvested (docs)``, ``harvested (tests)`` or both (opsweep.harvest.provenance: a
case in a registry ``opsweep harvest`` generated), counted in ``covered_by_source``; an operator
with no case carries ``why`` when a ``harvest.json`` beside the registries says why the harvest gave
it none.

An operator is covered when a case targets it through any of its names (objects are compared, not
names): the case's target itself, the class of a module instance, the object a wrapper names in
its `__opsweep_target__` attribute (a function, a class, or a method's function such as
`lib.geometry.Quaternion.__add__`), a bound method, or for a case with `method=`, that method as
resolved on the target's class. A case with `skip` accounts for its target, with that reason shown,
but does not probe it. A case that reaches no public operator (its target is not public, is set
aside, or belongs to another package) is listed in `unmatched_cases` with the reason, so a case
written against an internal name is not silently counted for nothing. A registry may also list
callables it deliberately leaves out: `NOT_SURVEYED = {"lib.io.load_image": "reads a file; not a
tensor operator", ...}`, under any public name of the operator; an entry naming no public operator
(a typo, a type, a callable the library removed) is reported as `stale_not_surveyed` so the lists
cannot silently rot.
"""

from __future__ import annotations

import argparse
import ast
import collections
import dataclasses
import enum
import inspect
import json
import os
import re
import sys
import typing
import warnings
from typing import Any, Iterable

from opsweep.case import RegistryError
from opsweep.public_names import DeclaredSurface, declared_surface
from opsweep.registry import load_registries, qualified_name

# Operator dunders that are public API of value types (quaternion arithmetic, pose composition,
# indexing a batch of boxes); other dunders are the object protocol.
OPERATOR_DUNDERS = frozenset({
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__matmul__", "__rmatmul__",
    "__truediv__", "__rtruediv__", "__floordiv__", "__mod__", "__pow__", "__neg__", "__pos__", "__abs__",
    "__invert__", "__and__", "__or__", "__xor__", "__getitem__",
})
# Annotation words that can hold a tensor (besides the library's own classes).
_TENSOR_WORDS = ("Tensor", "Any", "object", "Module", "Parameter", "Self", "TypeVar")
# dtype / device casts: they move a value's data, whatever class defines them
CASTS = frozenset({"to", "type", "float", "double", "half", "bfloat16", "cpu", "cuda"})


@dataclasses.dataclass(frozen=True)
class Entry:
    """One public callable: a function, a class, or a method (``obj`` is its function)."""

    name: str  # where the library defines it or first exports it (opsweep.public_names)
    obj: Any
    kind: str  # "function" | "class" | "method"
    aliases: tuple[str, ...] = ()  # the other public names that reach it, shortest first

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
    declared: DeclaredSurface | None = None
    set_aside: dict[int, tuple[str, str]] = dataclasses.field(default_factory=dict)  # id -> (name, why not an operator)


# ---------------------------------------------------------------------------------------------
# What a public callable is


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


def _name_key(dotted: str, defining: bool) -> tuple:
    """Shortest public path; ties: the path in the defining class, then alphabetical."""
    return (dotted.count("."), not defining, dotted)


def _methods(cls: type, library: str) -> Iterable[tuple[str, Any, type, str]]:
    """(method name, function, defining class, how) of the public methods `cls` exposes; how is
    "method", "staticmethod", or the reason it is no operator ("hook", "generic ...")."""
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
        yield name, fn, owner, _method_role(name, raw, owner, library, is_module)


def _method_role(name: str, raw: Any, owner: type, library: str, is_module: bool) -> str:
    outside = next((k for k in owner.__mro__[1:] if name in vars(k) and not _defined_in(k, library)), None)
    if outside is not None:
        return f"generic method (overrides {outside.__qualname__}.{name} of {outside.__module__.split('.')[0]})"
    if name in CASTS:
        return "generic method (a dtype / device cast)"
    if is_module and any(name in vars(k) and _defined_in(k, library) for k in owner.__mro__[1:]):
        return "hook"
    if inspect.isabstract(owner):
        return "generic method (of an abstract class: it runs only as its subclasses inherit it)"
    return "staticmethod" if isinstance(raw, staticmethod) else "method"


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


_HOOK = "hook (overrides a library base's method; run by the module's call)"
_STUB = "abstract stub (does nothing; its overrides are the operators)"
_NO_TENSOR = "no tensor in its signature"


def public_surface(library: str, depth: int | None = None) -> Surface:
    """The library's public operators (see the module docstring for the rules)."""
    declared = declared_surface(library, depth)
    classes = [(p.name, p.obj) for p in declared.objects.values() if inspect.isclass(p.obj)]
    class_names = {id(p.obj): p.names for p in declared.objects.values() if inspect.isclass(p.obj)}
    annotations = _Annotations(
        library,
        {c.__name__ for _, c in classes}
        | {k.__name__ for _, c in classes for k in c.__mro__ if _defined_in(k, library)}
    )

    # methods: one entry per function, named under the best class path exposing it
    method_best: dict[int, tuple[tuple, str, Any, str, type]] = {}
    method_owners: dict[int, list[int]] = collections.defaultdict(list)  # class id -> method ids
    for cls_dotted, cls in classes:
        if _not_an_operator(cls) in ("exception", "enum"):
            continue
        for name, fn, owner, how in _methods(cls, library):
            dotted = f"{cls_dotted}.{name}"
            key = _name_key(dotted, owner is cls)
            prev = method_best.get(id(fn))
            if prev is None or key < prev[0]:
                method_best[id(fn)] = (key, dotted, fn, how, owner)
            method_owners[id(cls)].append(id(fn))

    operators: dict[int, Entry] = {}
    not_ops: list[dict] = []
    set_aside: dict[int, tuple[str, str]] = {}
    counted_methods: set[int] = set()
    for key, (_, dotted, fn, how, owner) in method_best.items():
        if how == "hook":
            kind = _HOOK
        elif how.startswith("generic"):
            kind = how
        elif _is_stub(fn):
            kind = _STUB
        elif annotations.tensor_free(fn, bound=how != "staticmethod"):
            kind = _NO_TENSOR
        else:
            aliases = tuple(f"{c}.{dotted.rsplit('.', 1)[1]}" for c in class_names.get(id(owner), ()))
            operators[key] = Entry(dotted, fn, "method", tuple(a for a in aliases if a != dotted))
            counted_methods.add(key)
            continue
        not_ops.append({"name": dotted, "kind": kind})
        set_aside[key] = (dotted, kind)
    torch = sys.modules.get("torch")
    for key, public in declared.objects.items():
        obj, dotted = public.obj, public.name
        if inspect.isclass(obj):
            kind = _not_an_operator(obj)
            is_module = torch is not None and issubclass(obj, torch.nn.Module)
            if kind is None and not is_module and _class_tensor_free(obj, annotations, library) and not any(
                m in counted_methods for m in method_owners.get(key, ())
            ):
                kind = _NO_TENSOR
        else:
            kind = _NO_TENSOR if annotations.tensor_free(obj, bound=False) else None
        if kind is None:
            aliases = tuple(n for n in public.names if n != dotted)
            operators[key] = Entry(dotted, obj, "class" if inspect.isclass(obj) else "function", aliases)
        else:
            not_ops.append({"name": dotted, "kind": kind})
            set_aside[key] = (dotted, kind)
    not_ops.sort(key=lambda t: (t["kind"], t["name"]))
    return Surface(library, operators, not_ops, len(declared.modules), declared.unimportable, declared, set_aside)


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


# ---------------------------------------------------------------------------------------------
# What the registries cover


def not_surveyed(registries: list[str]) -> dict[str, str]:
    """The union of the registries' NOT_SURVEYED dicts (dotted name -> reason); call after loading
    (each registry is the loaded module whose file it is)."""
    by_file: dict[str, Any] = {}
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and path.endswith(".py"):
            by_file.setdefault(os.path.realpath(path), module)
    out: dict[str, str] = {}
    for path in registries:
        module = by_file.get(os.path.realpath(path))
        listed = getattr(module, "NOT_SURVEYED", None) or {}
        if not isinstance(listed, dict):
            raise RegistryError(f"{os.path.basename(path)}: NOT_SURVEYED must be a dict of name -> reason")
        out.update({str(k): str(v) for k, v in listed.items()})
    return out


def suite_library(registries: list[str]) -> str:
    """The library the registries' suite names: the nearest package above each file whose
    `__init__.py` assigns `LIBRARY = "name"` (read, not imported), the same for every file.
    Raises RegistryError with one line saying `--library NAME` is needed otherwise."""
    named: dict[str, list[str]] = collections.defaultdict(list)
    for path in registries:
        named[_suite_library_of(path) or ""].append(os.path.basename(path))
    if len(named) == 1 and "" not in named:
        return next(iter(named))
    if "" in named:
        why = f"{named[''][0]} is in no suite package that assigns LIBRARY in its __init__.py"
    else:
        why = "the registries' suites name " + " and ".join(sorted(named))
    raise RegistryError(f"--library NAME is needed: {why}")


def _suite_library_of(path: str) -> str | None:
    folder = os.path.dirname(os.path.abspath(path))
    while os.path.isfile(init := os.path.join(folder, "__init__.py")):
        try:
            with open(init, encoding="utf-8") as f:
                tree = ast.parse(f.read(), filename=init)
        except (OSError, SyntaxError, ValueError):
            return None
        for node in tree.body:
            if (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "LIBRARY" for t in node.targets)
                    and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str) and node.value.value):
                return node.value.value
        folder = os.path.dirname(folder)
    return None


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


def _named_targets(target: Any) -> list[Any]:
    named = getattr(target, "__opsweep_target__", None)
    return [] if named is None else list(named) if isinstance(named, (list, tuple)) else [named]


def case_candidates(c) -> list[Any]:
    """What a case surveys, most specific first: the objects a wrapper names, the method a case
    names as resolved on its target (or on a class the wrapper names), the target, its function
    and, for an instance, its class."""
    t = c.target
    named = _named_targets(t)
    candidates: list[Any] = []
    for n in named:
        candidates += [n, _function_of(n)]
    if c.method:  # the method on the target, or on the class a wrapper names as the API surveyed
        candidates += [_resolved_method(o, c.method) for o in [*(n for n in named if inspect.isclass(n)), t]]
    candidates += [t, _function_of(t)]
    if not inspect.isclass(t) and not inspect.isfunction(t) and not inspect.isbuiltin(t) and not inspect.ismethod(t):
        candidates.append(type(t))
    seen: set[int] = set()
    out = []
    for obj in candidates:
        if obj is not None and id(obj) not in seen:
            seen.add(id(obj))
            out.append(obj)
    return out


def surveyed_objects(cases) -> dict[int, list[Any]]:
    """id(obj) -> cases that survey obj (functions, classes and methods' functions)."""
    out: dict[int, list[Any]] = {}
    for c in cases:
        for obj in case_candidates(c):
            out.setdefault(id(obj), []).append(c)
    return out


def _unmatched(loaded, surface: Surface) -> list[dict]:
    """The cases that reach no public operator, each with why (docs: a case whose target is an
    internal name, a type or another package's callable counts for nothing)."""
    out = []
    for item in loaded:
        c = item.case
        candidates = case_candidates(c)
        if any(id(o) in surface.operators for o in candidates):
            continue
        primary = candidates[0] if candidates else c.target
        name = qualified_name(primary)
        set_aside = next((surface.set_aside[id(o)] for o in candidates if id(o) in surface.set_aside), None)
        if set_aside is not None:
            name, kind = set_aside
            why = f"public, but no operator: {kind}"
        elif surface.declared is not None and any(
            surface.declared.lookup(o) is None and _defined_in(o, surface.library) for o in candidates if callable(o)
        ):
            why = f"not a public name of {surface.library}"
        else:
            why = f"not part of {surface.library}"
        out.append({"case": c.name, "registry": item.registry, "target": name, "why": why})
    return sorted(out, key=lambda r: r["case"])


def _package(name: str, library: str) -> str:
    """`lib.geometry` for `lib.geometry.camera.PinholeCamera`; the library for top-level names."""
    parts = name.split(".")
    return ".".join(parts[:2]) if len(parts) > 2 else library


def coverage_report(library: str, registries: list[str], depth: int | None = None) -> dict:
    from opsweep.harvest import provenance

    loaded = load_registries(registries)
    cases = [item.case for item in loaded]
    # hand-written or harvested (docs, tests), and why the harvest gave an operator no case
    registry_kind = provenance.case_sources(registries)
    case_source = {item.case.name: provenance.source_of(item.case.name, item.registry, registry_kind) for item in loaded}
    harvest_why = provenance.why_none(registries)
    by_source: collections.Counter = collections.Counter()
    excluded = not_surveyed(registries)
    surveyed = surveyed_objects(cases)
    surface = public_surface(library, depth)
    covered, skipped, missing, listed = [], [], [], []
    # a NOT_SURVEYED entry may name the operator by any of its public names
    reasons: dict[int, str] = {}
    for key, entry in surface.operators.items():
        reason = next((excluded[n] for n in (entry.name, *entry.aliases) if n in excluded), None)
        if reason is not None:
            reasons[key] = reason
    operator_names = {n for e in surface.operators.values() for n in (e.name, *e.aliases)}
    stale = sorted(n for n in excluded if n not in operator_names)
    by_package: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for key, entry in sorted(surface.operators.items(), key=lambda kv: kv[1].name):
        pkg = by_package[_package(entry.name, library)]
        pkg["total"] += 1
        hits = surveyed.get(key, [])
        row = {"name": entry.name, "kind": entry.kind, "module": entry.module, "aliases": list(entry.aliases)}
        if hits:
            probing = [c for c in hits if c.skip is None]
            if probing:
                source = provenance.describe({case_source.get(c.name, "hand-written") for c in probing})
                covered.append({**row, "cases": len(probing), "source": source})
                by_source[source] += 1
                pkg["covered"] += 1
            else:
                skipped.append({**row, "reason": hits[0].skip})
                pkg["skipped"] += 1
        elif key in reasons:
            listed.append({**row, "reason": reasons[key]})
            pkg["not_surveyed"] += 1
        else:
            why = next((harvest_why[n] for n in (entry.name, *entry.aliases) if n in harvest_why), None)
            missing.append({**row, "why": why} if why else row)
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
        "covered_by_source": dict(sorted(by_source.items())),
        "covered_names": covered,
        "skipped": skipped,
        "not_surveyed": listed,
        "missing": missing,
        "stale_not_surveyed": stale,
        "unmatched_cases": _unmatched(loaded, surface),
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
    ap.add_argument("--library", default=None, help="top-level package (default: the LIBRARY the registries' suite names)")
    ap.add_argument("--registry", action="append", default=[], required=True)
    ap.add_argument("--depth", type=int, default=None, help="count only modules this many levels deep (default: any)")
    args = ap.parse_args(argv)
    depth = args.depth if args.depth and args.depth > 0 else None
    try:
        args.library = args.library or suite_library(args.registry)
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
