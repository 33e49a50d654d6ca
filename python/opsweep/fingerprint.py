"""Case fingerprints: one digest of everything about a case that can change its results.

Contract:
- ``fingerprint(case)`` is a hex blake2b digest over tagged fields (``fingerprint_fields``, kept
  apart for debugging): name, group, target, method, each input's shape / dtype / strides / a
  digest of its bytes, kwargs, check, atol, rtol, skip, fresh inputs and dynamic dims. ``note``
  and ``tags`` do not change results and are left out.
- Values are encoded canonically (``encode``): tensors by value, ``nn.Module`` instances by class,
  a digest of the state_dict values, the repr and the plain attributes of it and its children;
  bound methods with their object; reprs without memory addresses. Installed code (the library,
  torch, the standard library) is named by its qualified name. Code written in a registry, a
  registry's helper module, the case toolkit or a test (``hashed_by_code``) is named by a digest
  of what it does, never by where it sits: a function by its code objects, defaults, closure cells
  and the globals it reads; a class by its bases and the attributes of its body (methods by code;
  a declaration only a tool reads, such as a wrapper's ``__opsweep_forwards__``, left out). So
  editing a wrapper re-keys its cases and moving it to another module does not. A lazy target
  (``opsweep.case.lazy``) is encoded without building it: the builder, its arguments, what it
  builds and the case's construction seed.
- Fingerprints never use ``hash()`` or ``id()``, so they are identical across processes.
- ``code_memo()``: while one registry's cases are fingerprinted, code digests are memoised (its
  wrappers are shared).
"""

from __future__ import annotations

import contextlib
import dataclasses
import dis
import enum
import hashlib
import importlib.metadata
import json
import os
import re
import sys
import types
import weakref
from typing import Any, Iterator

import torch

from opsweep.case import Case, Lazy, construction_seed
from opsweep.public_names import public_name, qualified_name
from opsweep.registry_files import is_registry_file

FINGERPRINT_VERSION = "opsweep-case-v2"
_ADDRESS = re.compile(r"\s+at 0x[0-9a-fA-F]+")
_MAX_DEPTH = 6


# id(tensor) -> (weak ref, version counter, digest). Registries share big tensors (model weights,
# images) between many cases; each is hashed once per process unless it is modified in place.
_DIGESTS: dict[int, tuple[Any, int, str]] = {}


def tensor_digest(t: torch.Tensor) -> str:
    """Digest of a tensor's values (bytes of its contiguous storage), dtype-tagged."""
    key = id(t)
    try:
        version = t._version
        cached = _DIGESTS.get(key)
        if cached is not None and cached[0]() is t and cached[1] == version:
            return cached[2]
        ref = weakref.ref(t)
    except (TypeError, RuntimeError):  # inference tensors and tensors without weakref support
        version, ref = -1, None
    digest = _tensor_digest(t)
    if ref is not None:
        _DIGESTS[key] = (ref, version, digest)
    return digest


def _tensor_digest(t: torch.Tensor) -> str:
    x = t.detach().cpu().contiguous()
    h = hashlib.blake2b(digest_size=16)
    h.update(str(x.dtype).encode())
    if x.numel():
        flat = x.reshape(-1)
        if flat.is_complex():
            flat = torch.view_as_real(flat.resolve_conj()).reshape(-1)
        h.update(flat.view(torch.uint8).numpy().tobytes() if flat.element_size() else b"")
    return h.hexdigest()


def _module_state_digest(m: torch.nn.Module) -> str:
    """Digest of a module's state: its state_dict, and the buffers registered with
    ``persistent=False``, which a state_dict leaves out (a ``Rotate`` module may keep its angle and
    centre that way: without them, editing the angle of a case did not change its fingerprint)."""
    h = hashlib.blake2b(digest_size=16)
    state = m.state_dict()
    entries = sorted(state.items())
    entries += sorted((f"non-persistent buffer {name}", b) for name, b in m.named_buffers() if name not in state)
    for key, value in entries:
        h.update(key.encode() + b"\0")
        if isinstance(value, torch.Tensor):
            h.update(f"{list(value.shape)}{value.dtype}".encode())
            h.update(tensor_digest(value).encode())
        else:
            h.update(_stable_repr(value).encode())
    return h.hexdigest()


_MODULE_INTERNALS = frozenset(vars(torch.nn.Module()).keys())


def _module_config(m: torch.nn.Module, depth: int) -> dict[str, Any]:
    """A module's plain attributes (not parameters or buffers: the state digest has those), and
    its children's, recursively. A wrapper keeps its configuration there (the function it calls,
    baked arguments), which neither the state_dict nor a default repr shows."""
    attrs = {k: encode(v, depth + 1) for k, v in sorted(vars(m).items()) if k not in _MODULE_INTERNALS}
    if depth + 1 >= _MAX_DEPTH:
        return {"attrs": attrs}
    children = {
        name: {"class": type_identity(type(child)), **_module_config(child, depth + 1)}
        for name, child in m.named_children()
    }
    return {"attrs": attrs, "children": children}


# ---------------------------------------------------------------------------------------------
# Code written in registries: hashed by what it does, not by where it sits
#
# A wrapper class, a lambda or a helper written in a registry (or in a registry's helper module such
# as a suite's _common.py, the case toolkit, or a test) is part of the case: editing it must re-probe the case, and moving it
# to another module must not. Such code is identified by a digest of its code objects (bytecode,
# names, constants, nested code), its defaults, closure cells and the globals it reads, and for a
# class by its bases and every attribute of its body. Names and module paths are left out. Installed
# code (the surveyed library, torch) keeps its qualified name: the library's code is keyed per job
# elsewhere (the job key's library fields), torch's by its version.

_INSTALLED: frozenset[str] | None = None
# Installed code that is case code all the same: the bundled suites' package, and opsweep's public
# case toolkit (wrappers, input helpers, fresh-input declarations), whose code enters fingerprints.
CASE_CODE_PACKAGES = frozenset({"opsweep_suites"})
TOOLKIT = "opsweep.toolkit"


def _installed_top_levels() -> frozenset[str]:
    """Top-level modules that belong to an installed distribution (torch, numpy, the surveyed library, ...)."""
    global _INSTALLED
    if _INSTALLED is None:
        try:
            found = frozenset(importlib.metadata.packages_distributions())
        except Exception:  # noqa: BLE001 - a broken metadata entry must not stop loading
            found = frozenset()
        _INSTALLED = found - {"opsweep", *CASE_CODE_PACKAGES}
    return _INSTALLED


def _defining_file(obj: Any) -> str | None:
    if isinstance(obj, types.FunctionType):
        return obj.__code__.co_filename
    module = sys.modules.get(getattr(obj, "__module__", None) or "")
    filename = getattr(module, "__file__", None)
    if filename:
        return filename
    for value in vars(obj).values():
        if isinstance(value, types.FunctionType):
            return value.__code__.co_filename
    return None


_HASHED_BY_CODE: dict[Any, bool] = {}


def hashed_by_code(obj: Any) -> bool:
    """True for a Python function or class written in a registry, a registry helper module (the
    case toolkit and the bundled suites included) or a test: code that is part of the case. False for
    installed code (site-packages, an installed distribution in a source checkout), the standard
    library, builtins and opsweep's harness (keyed by the harness digest)."""
    if not isinstance(obj, (types.FunctionType, type)):
        return False
    try:
        return _HASHED_BY_CODE[obj]
    except (KeyError, TypeError):
        pass
    answer = _hashed_by_code(obj)
    try:
        _HASHED_BY_CODE[obj] = answer
    except TypeError:  # an unhashable class object
        pass
    return answer


def _hashed_by_code(obj: Any) -> bool:
    module = getattr(obj, "__module__", None) or ""
    top = module.split(".", 1)[0]
    if top == "opsweep" or top in CASE_CODE_PACKAGES:  # the rest of opsweep is keyed by the harness digest
        return is_case_code_module(module)
    if top in sys.stdlib_module_names or top == "builtins":
        return False
    filename = _defining_file(obj)
    if not filename or filename.startswith("<frozen"):
        return False
    if is_registry_file(filename):
        return True
    parts = os.path.normpath(filename).split(os.sep)
    if "site-packages" in parts or "dist-packages" in parts:
        return False
    return top not in _installed_top_levels()


def type_identity(cls: type) -> Any:
    """How a class enters a fingerprint: its qualified name when installed, else its code digest."""
    if hashed_by_code(cls):
        return {"class": _class_digest(cls)}
    return qualified_name(cls)


def _const_repr(const: Any) -> str:
    """A process-independent text of a code constant (frozensets of strings are sorted: their repr
    order depends on the hash seed)."""
    if isinstance(const, types.CodeType):
        return "code:" + _code_digest(const)
    if isinstance(const, frozenset):
        return "frozenset(" + ",".join(sorted(_const_repr(c) for c in const)) + ")"
    if isinstance(const, tuple):
        return "(" + ",".join(_const_repr(c) for c in const) + ")"
    return _ADDRESS.sub("", repr(const))


def is_case_code_module(module: str) -> bool:
    """True for a module of the case toolkit or of a bundled suite: case code, hashed by what it does."""
    top = module.split(".", 1)[0]
    return top in CASE_CODE_PACKAGES or module == TOOLKIT or module.startswith(TOOLKIT + ".")


def _names_without_case_code_modules(code: types.CodeType) -> tuple:
    """``co_names`` with the module an import of case code names left out (``from <suite>._common
    import Built`` in a function body): where a helper lives is not what it does, so moving one
    re-keys nothing. What the import takes (``Built``) stays, as do imports of installed code."""
    if not any(is_case_code_module(n) for n in code.co_names):
        return code.co_names
    imported = {ins.argval for ins in dis.get_instructions(code) if ins.opname == "IMPORT_NAME"}
    return tuple("<case code module>" if n in imported and is_case_code_module(n) else n for n in code.co_names)


def _code_digest(code: types.CodeType, doc: str | None = None) -> str:
    """Process-independent digest of a code object: bytecode, names and constants (nested code
    too). ``doc``, the function's docstring, is left out: it does not change what the code does."""
    h = hashlib.blake2b(digest_size=12)
    h.update(code.co_code)
    h.update(repr((_names_without_case_code_modules(code), code.co_varnames, code.co_freevars)).encode())
    for i, const in enumerate(code.co_consts):
        if i == 0 and doc is not None and const == doc:
            const = None
        h.update(_const_repr(const).encode() + b"\0")
    return h.hexdigest()


# The instructions that read or write a global by name (3.11 to 3.13). ``co_names`` also holds
# attribute and imported names (``t.data`` lists "data"), so a global that merely shares its name
# with an attribute the code reads was part of the fingerprint.
_GLOBAL_OPS = frozenset({"LOAD_GLOBAL", "LOAD_NAME", "STORE_GLOBAL", "DELETE_GLOBAL", "LOAD_FROM_DICT_OR_GLOBALS"})


def _global_names(code: types.CodeType) -> set[str]:
    """The global names ``code`` (and the code nested in it) loads, stores or deletes."""
    names = {ins.argval for ins in dis.get_instructions(code) if ins.opname in _GLOBAL_OPS}
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return names


class _CodeDigests:
    """Digests of registry-written functions and classes, with cycle cutting and, while registries
    load, a memo (the objects are kept alive so that their ids stay theirs)."""

    def __init__(self) -> None:
        self.memo: dict[int, tuple[Any, str]] | None = None
        self.active: list[int] = []
        self.cuts: list[set[int]] = []

    def digest(self, obj: Any, compute: Any) -> str:
        key = id(obj)
        if self.memo is not None and key in self.memo:
            return self.memo[key][1]
        self.active.append(key)
        self.cuts.append(set())
        try:
            parts = compute(obj)
            data = json.dumps(parts, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
            value = hashlib.blake2b(data.encode(), digest_size=16).hexdigest()
        finally:
            self.active.pop()
            cuts = self.cuts.pop()
        cuts.discard(key)
        if self.cuts:
            self.cuts[-1] |= cuts
        if self.memo is not None and not cuts:  # a digest cut by an enclosing object depends on where it began
            self.memo[key] = (obj, value)
        return value

    def cut(self, obj: Any) -> Any:
        """The marker for an object already being digested (recursion), or None."""
        key = id(obj)
        if key not in self.active:
            return None
        if self.cuts:
            self.cuts[-1].add(key)
        return {"recursion": getattr(obj, "__name__", "?")}


_CODE = _CodeDigests()


def _encode_global(value: Any) -> Any:
    if isinstance(value, types.ModuleType):
        return {"module": value.__name__}
    return encode(value)


def _function_parts(fn: types.FunctionType) -> dict[str, Any]:
    names = sorted(n for n in _global_names(fn.__code__) if n in fn.__globals__)
    return {
        "code": _code_digest(fn.__code__, fn.__doc__),
        "defaults": encode(fn.__defaults__),
        "kwdefaults": encode(fn.__kwdefaults__),
        "closure": _closure(fn),
        "globals": {n: _encode_global(fn.__globals__[n]) for n in names},
    }


def _function_identity(fn: types.FunctionType) -> Any:
    return _CODE.cut(fn) or {"function": _CODE.digest(fn, _function_parts)}


_CLASS_BOOKKEEPING = frozenset(
    {"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__firstlineno__", "__static_attributes__"}
)
# What a class declares for a tool that never runs it, not what its call does: a wrapper's
# ``__opsweep_forwards__`` (opsweep/toolkit/wrappers.py), which only ``opsweep repro`` reads.
_TOOL_DECLARATIONS = frozenset({"__opsweep_forwards__"})


def _class_attribute(value: Any) -> Any:
    if isinstance(value, (staticmethod, classmethod)):
        return {type(value).__name__: encode(value.__func__)}
    if isinstance(value, property):
        return {"property": [encode(value.fget), encode(value.fset), encode(value.fdel)]}
    return encode(value)


def _class_parts(cls: type) -> dict[str, Any]:
    return {
        "bases": [type_identity(b) for b in cls.__bases__],
        "attrs": {k: _class_attribute(v) for k, v in sorted(vars(cls).items())
                  if k not in _CLASS_BOOKKEEPING and k not in _TOOL_DECLARATIONS},
    }


def _class_digest(cls: type) -> Any:
    marker = _CODE.cut(cls)
    return marker if marker is not None else _CODE.digest(cls, _class_parts)


def _closure(fn: types.FunctionType) -> list[Any]:
    cells = fn.__closure__ or ()
    out = []
    for cell in cells:
        try:
            out.append(encode(cell.cell_contents))
        except ValueError:  # an empty cell
            out.append(None)
    return out


def _stable_repr(value: Any) -> str:
    try:
        text = repr(value)
    except Exception as e:  # noqa: BLE001
        text = f"<unrepresentable {type(value).__qualname__}: {type(e).__name__}>"
    return _ADDRESS.sub("", text)


def _lazy_parts(value: Lazy) -> dict[str, Any]:
    return {
        "builder": encode(value.builder),
        "args": encode(list(value.args)),
        "kwargs": encode(dict(value.kwargs)),
        "builds": public_name(value),
    }


# The modules whose encoding is under way (ids): a module met again inside its own encoding (a
# wrapper metric keeps bound methods of itself) is a cycle, encoded as such instead of recursing.
_ENCODING_MODULES: set[int] = set()


def encode(value: Any, depth: int = 0) -> Any:
    """A JSON-able, process-independent encoding of a value (for fingerprints)."""
    if isinstance(value, torch.Tensor):
        return {
            "tensor": list(value.shape),
            "dtype": str(value.dtype),
            "stride": list(value.stride()) if value.layout == torch.strided else None,
            "values": tensor_digest(value),
        }
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return {"float": repr(value)}
    if isinstance(value, (torch.dtype, torch.device, torch.memory_format, torch.layout)):
        return {"torch": str(value)}
    if isinstance(value, enum.Enum):
        return {"enum": f"{qualified_name(type(value))}.{value.name}"}
    if isinstance(value, Case):  # a registry's CASES list read by a helper: the cases are keyed on their own
        return {"case": value.name}
    if isinstance(value, Lazy):
        return {"lazy": _lazy_parts(value)}
    if isinstance(value, types.FunctionType) and hashed_by_code(value):
        return _function_identity(value)
    if isinstance(value, type) and hashed_by_code(value):
        return {"class": _class_digest(value)}
    if isinstance(value, types.MethodType) and isinstance(value.__func__, types.FunctionType) and hashed_by_code(value.__func__):
        return {"method": _function_identity(value.__func__), "self": encode(value.__self__, depth + 1)}
    if isinstance(value, types.MethodType):  # a bound method: the object it is bound to is part of the call
        return {"callable": qualified_name(value), "self": encode(value.__self__, depth + 1)}
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, type)):
        return {"callable": qualified_name(value)}
    if isinstance(value, torch.nn.Module):
        if id(value) in _ENCODING_MODULES:  # reached again through its own attributes (a bound method
            return {"module": type_identity(type(value)), "cycle": True}  # of itself): said once, above
        _ENCODING_MODULES.add(id(value))
        try:
            return {
                "module": type_identity(type(value)),
                "state": _module_state_digest(value),
                "repr": _stable_repr(value),
                "training": value.training,
                "config": _module_config(value, depth),
            }
        finally:
            _ENCODING_MODULES.discard(id(value))
    if depth >= _MAX_DEPTH:
        return {"repr": _stable_repr(value)}
    if isinstance(value, (list, tuple)):
        return {type(value).__name__: [encode(v, depth + 1) for v in value]}
    if isinstance(value, dict):
        items = [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]
        items.sort(key=lambda kv: json.dumps(kv[0], sort_keys=True))
        return {"dict": items}
    if isinstance(value, (set, frozenset)):
        return {"set": sorted((encode(v, depth + 1) for v in value), key=lambda e: json.dumps(e, sort_keys=True))}
    if dataclasses.is_dataclass(value):
        return {
            "dataclass": type_identity(type(value)),
            "fields": {f.name: encode(getattr(value, f.name, None), depth + 1) for f in dataclasses.fields(value)},
        }
    attrs = getattr(value, "__dict__", None)
    if isinstance(attrs, dict):
        return {
            "object": type_identity(type(value)),
            "attrs": {k: encode(v, depth + 1) for k, v in sorted(attrs.items())},
        }
    return {"object": type_identity(type(value)), "repr": _stable_repr(value)}


def _target_encoding(c: Case) -> Any:
    t = c.target
    if isinstance(t, Lazy):
        # never built here: the builder's code and arguments, and the seed it is built under
        return {"lazy": _lazy_parts(t), "construction_seed": construction_seed(c)}
    if (
        isinstance(t, torch.nn.Module)
        or not callable(t)
        or not hasattr(t, "__qualname__")
        or hashed_by_code(t)
        or (isinstance(t, types.MethodType) and hashed_by_code(getattr(t, "__func__", None)))
    ):
        return encode(t)
    return {"callable": qualified_name(t)}


def fingerprint_fields(c: Case) -> dict[str, Any]:
    """The tagged fields a case fingerprint covers (kept separate for debugging)."""
    return {
        "name": c.name,
        "group": c.group,
        "target": _target_encoding(c),
        "method": c.method,
        "inputs": [encode(x) for x in c.inputs],
        "kwargs": encode(dict(c.kwargs)),
        "check": c.check,
        "atol": repr(float(c.atol)),
        "rtol": repr(float(c.rtol)),
        "skip": c.skip,
        "fresh_inputs": c.fresh_inputs if isinstance(c.fresh_inputs, str) or c.fresh_inputs is None
        else [encode(x) for x in c.fresh_inputs],
        "dynamic": c.dynamic if not isinstance(c.dynamic, dict) else {str(k): list(v) for k, v in sorted(c.dynamic.items())},
    }


def fingerprint(c: Case) -> str:
    h = hashlib.blake2b(digest_size=16, person=b"opsweep-case")
    h.update(FINGERPRINT_VERSION.encode() + b"\0")
    for tag, value in fingerprint_fields(c).items():
        data = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        h.update(tag.encode() + b"\0" + len(data).to_bytes(8, "little") + data.encode())
    return h.hexdigest()


@contextlib.contextmanager
def code_memo() -> Iterator[None]:
    """Memoise code digests while one registry's cases are fingerprinted (its wrappers are shared):
    a memo only while it is active, so an object edited between registries is digested anew."""
    previous = _CODE.memo
    _CODE.memo = {}
    try:
        yield
    finally:
        _CODE.memo = previous
