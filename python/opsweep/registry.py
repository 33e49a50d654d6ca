"""Loading registries, refusing malformed ones, and fingerprinting cases.

Contract:
- A registry is a Python file that defines ``CASES``, a list of ``opsweep.case(...)`` results.
  ``load_registries(files)`` imports each file (inside a package under its dotted name, so
  relative imports work; a loose file with its folder appended to ``sys.path``, so it can import
  helpers beside it) and returns every case with its registry and fingerprint, in file
  order then list order. The same file given twice is loaded once.
- Any problem raises ``RegistryError`` with one line that names the file and the problem: file
  missing; import failure (exception type, message, and the registry line that raised); ``CASES``
  missing; ``CASES`` not a list; an element that is not a Case; a duplicate case name (both
  places, ``file:line``, across files too).
- ``fingerprint(case)`` is a hex blake2b digest over tagged fields: name, group, the target's
  qualified name (functions and classes: defining module + qualname; ``nn.Module`` instances:
  class qualname, a digest of the state_dict values, the repr and the plain attributes of it and
  its children; other objects: class qualname and their attributes), method, each input's shape / dtype / strides / a digest of its bytes,
  kwargs (a canonical encoding: sorted keys, tensors by value, callables by qualified name, reprs
  with memory addresses removed), check, atol, rtol and skip. It never uses ``hash()`` or ``id()``
  so it is identical across processes, and names defined in a registry use the registry's file stem
  (not its import name, which depends on where the checkout lies). ``note`` and ``tags`` do not
  change results and are left out.
- Registry wrappers may name the API they survey in ``__opsweep_target__``; the inventory's
  ``target`` and the library guess use it.
"""

from __future__ import annotations

import collections
import dataclasses
import enum
import hashlib
import importlib.util
import json
import os
import re
import sys
import traceback
import types
import weakref
from typing import Any, Sequence

import torch

from opsweep.case import Case, RegistryError

FINGERPRINT_VERSION = "opsweep-case-v2"
_ADDRESS = re.compile(r"\s+at 0x[0-9a-fA-F]+")
_MAX_DEPTH = 6


@dataclasses.dataclass(frozen=True)
class LoadedCase:
    case: Case
    registry: str  # the registry file's basename, e.g. "cases_color.py"
    fingerprint: str

    def inventory_entry(self) -> dict[str, Any]:
        """The case's entry in the worker's ``inventory`` message (docs/formats.md section 2)."""
        c = self.case
        return {
            "name": c.name,
            "group": c.group,
            "registry": self.registry,
            "fingerprint": self.fingerprint,
            "target": public_name(c.target),
            "check": c.check,
            "skip": c.skip,
            "note": c.note,
            "tags": list(c.tags),
            "method": c.method,
            "origin": c.origin,
        }


# ---------------------------------------------------------------------------------------------
# Loading


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _package_location(path: str) -> tuple[str, str] | None:
    """(dotted module name, folder above the top package) for a file inside a package, else None."""
    folder = os.path.dirname(os.path.abspath(path))
    parts: list[str] = []
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        parts.append(os.path.basename(folder))
        folder = os.path.dirname(folder)
    stem = os.path.splitext(os.path.basename(path))[0]
    if not parts or not all(p.isidentifier() for p in [*parts, stem]):
        return None
    return ".".join([*reversed(parts), stem]), folder


def _module_name(path: str) -> str:
    """The name a registry file is imported under.

    Inside a package (e.g. ``opsweep/registries/kornia/cases_color.py``) it is the file's dotted
    name, so relative imports work; a loose file gets ``opsweep_registry_<stem>_<path digest>``.
    """
    located = _package_location(path)
    if located is not None:
        return located[0]
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    digest = hashlib.blake2b(os.path.realpath(path).encode(), digest_size=4).hexdigest()
    return f"opsweep_registry_{stem}_{digest}"


def _prepare_import(path: str) -> None:
    """Make the registry's helpers importable: its package (for relative imports) or its folder."""
    located = _package_location(path)
    if located is None:
        folder = os.path.dirname(os.path.abspath(path))
        if folder not in sys.path:
            sys.path.append(folder)
        return
    dotted, root = located
    parent = dotted.rsplit(".", 1)[0]
    try:
        importlib.import_module(parent)
        return
    except ImportError:
        pass
    if root not in sys.path:
        sys.path.append(root)
    importlib.import_module(parent)


def _import_failure(path: str, exc: BaseException) -> str:
    base = os.path.basename(path)
    real = os.path.realpath(path)
    line = None
    for fs in traceback.extract_tb(exc.__traceback__):
        if os.path.realpath(fs.filename) == real:
            line = fs.lineno  # innermost registry line wins
    if isinstance(exc, SyntaxError) and exc.lineno and os.path.realpath(exc.filename or "") == real:
        line = exc.lineno
    where = f" at {base}:{line}" if line else ""
    return _one_line(f"{base}: import failed{where}: {type(exc).__name__}: {exc}")


def load_registry_file(path: str) -> list[Case]:
    """Import one registry file and return its CASES, validated. Raises RegistryError."""
    base = os.path.basename(path)
    if not os.path.isfile(path):
        raise RegistryError(f"{path}: registry file not found")
    name = _module_name(path)
    try:
        _prepare_import(path)
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise RegistryError(f"{base}: cannot be imported as a Python module")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    except RegistryError as e:  # case() refused a case: its message already names the line
        sys.modules.pop(name, None)
        msg = _one_line(str(e))
        raise RegistryError(msg if msg.startswith(base) else f"{base}: {msg}") from None
    except BaseException as e:  # noqa: BLE001 - any failure of foreign code is reported
        sys.modules.pop(name, None)
        if isinstance(e, KeyboardInterrupt):
            raise
        raise RegistryError(_import_failure(path, e)) from None
    if not hasattr(module, "CASES"):
        raise RegistryError(f"{base}: defines no CASES (a list of opsweep.case(...) results)")
    cases = module.CASES
    if not isinstance(cases, list):
        raise RegistryError(f"{base}: CASES is a {type(cases).__name__}, not a list")
    for i, c in enumerate(cases):
        if not isinstance(c, Case):
            raise RegistryError(
                f"{base}: CASES[{i}] is a {type(c).__name__}, not a Case (build it with opsweep.case(...))"
            )
    return cases


def load_registries(paths: Sequence[str]) -> list[LoadedCase]:
    """Load every registry; refuse duplicates across all of them. Raises RegistryError."""
    loaded: list[LoadedCase] = []
    first_seen: dict[str, tuple[str, Case]] = {}
    done: set[str] = set()
    for path in paths:
        real = os.path.realpath(path)
        if real in done:
            continue
        done.add(real)
        base = os.path.basename(path)
        for c in load_registry_file(path):
            if c.name in first_seen:
                other_base, other = first_seen[c.name]
                raise RegistryError(
                    f"{base}: duplicate case name {c.name!r} ({other.origin or other_base} and {c.origin or base})"
                )
            first_seen[c.name] = (base, c)
            try:
                fp = fingerprint(c)
            except Exception as e:  # noqa: BLE001
                raise RegistryError(
                    _one_line(f"{base}: case {c.name!r} ({c.origin}) cannot be fingerprinted: {type(e).__name__}: {e}")
                ) from None
            loaded.append(LoadedCase(case=c, registry=base, fingerprint=fp))
    return loaded


# ---------------------------------------------------------------------------------------------
# Names


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

    ``kornia.color.gray.rgb_to_grayscale`` -> ``kornia.color.rgb_to_grayscale``. Only modules that
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


def top_level_module(target: Any) -> str | None:
    obj = surveyed_target(target)
    if not (callable(obj) and hasattr(obj, "__qualname__")):
        obj = type(obj)
    name = qualified_name(obj)
    return name.split(".", 1)[0] if "." in name else None


def guess_library(cases: Sequence[Case]) -> str | None:
    """The most common top-level module of the surveyed targets (ties: alphabetical)."""
    counts = collections.Counter(m for m in (top_level_module(c.target) for c in cases) if m)
    if not counts:
        return None
    best = max(counts.values())
    return sorted(m for m, n in counts.items() if n == best)[0]


# ---------------------------------------------------------------------------------------------
# Fingerprints


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
    h = hashlib.blake2b(digest_size=16)
    for key, value in sorted(m.state_dict().items()):
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
        name: {"class": qualified_name(type(child)), **_module_config(child, depth + 1)}
        for name, child in m.named_children()
    }
    return {"attrs": attrs, "children": children}


def _defined_outside_packages(fn: types.FunctionType) -> bool:
    """True for functions written in a registry or a test (not in an installed package): their
    code is part of the case, so it is hashed. Installed code (the library, torch) is covered by
    the library fingerprint and the versions in the job key."""
    parts = os.path.normpath(fn.__code__.co_filename).split(os.sep)
    return "site-packages" not in parts and "dist-packages" not in parts


def _code_digest(code: types.CodeType) -> str:
    """Process-independent digest of a code object: bytecode, names and constants (nested code too)."""
    h = hashlib.blake2b(digest_size=12)
    h.update(code.co_code)
    h.update(repr((code.co_names, code.co_varnames, code.co_freevars)).encode())
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            h.update(_code_digest(const).encode())
        else:
            h.update(_ADDRESS.sub("", repr(const)).encode())
    return h.hexdigest()


def _closure(fn: types.FunctionType, depth: int) -> list[Any]:
    cells = fn.__closure__ or ()
    out = []
    for cell in cells:
        try:
            out.append(encode(cell.cell_contents, depth + 1))
        except ValueError:  # an empty cell
            out.append(None)
    return out


def _stable_repr(value: Any) -> str:
    try:
        text = repr(value)
    except Exception as e:  # noqa: BLE001
        text = f"<unrepresentable {type(value).__qualname__}: {type(e).__name__}>"
    return _ADDRESS.sub("", text)


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
    if isinstance(value, types.FunctionType) and _defined_outside_packages(value):
        return {"callable": qualified_name(value), "code": _code_digest(value.__code__), "closure": _closure(value, depth)}
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, types.MethodType, type)):
        return {"callable": qualified_name(value)}
    if isinstance(value, torch.nn.Module):
        return {
            "module": qualified_name(type(value)),
            "state": _module_state_digest(value),
            "repr": _stable_repr(value),
            "training": value.training,
            "config": _module_config(value, depth),
        }
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
            "dataclass": qualified_name(type(value)),
            "fields": {f.name: encode(getattr(value, f.name, None), depth + 1) for f in dataclasses.fields(value)},
        }
    attrs = getattr(value, "__dict__", None)
    if isinstance(attrs, dict):
        return {
            "object": qualified_name(type(value)),
            "attrs": {k: encode(v, depth + 1) for k, v in sorted(attrs.items())},
        }
    return {"object": qualified_name(type(value)), "repr": _stable_repr(value)}


def fingerprint_fields(c: Case) -> dict[str, Any]:
    """The tagged fields a case fingerprint covers (kept separate for debugging)."""
    target: Any
    if (
        isinstance(c.target, torch.nn.Module)
        or not callable(c.target)
        or not hasattr(c.target, "__qualname__")
        or (isinstance(c.target, types.FunctionType) and _defined_outside_packages(c.target))
    ):
        target = encode(c.target)
    else:
        target = {"callable": qualified_name(c.target)}
    return {
        "name": c.name,
        "group": c.group,
        "target": target,
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
