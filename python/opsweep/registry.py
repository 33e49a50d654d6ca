"""Loading registries, refusing malformed ones, and fingerprinting cases.

Contract:
- A registry is a Python file that defines ``CASES``, a list of ``opsweep.case(...)`` results.
  ``load_registries(files)`` imports each file (inside a package under its dotted name, so
  relative imports work; a loose file with its folder appended to ``sys.path``, so it can import
  helpers beside it) and returns every case with its registry and fingerprint, in file
  order then list order. The same file given twice is loaded once.
- Each import runs with torch (CPU), numpy and random seeded from the file's basename
  (``registry_seed``) and their states restored afterwards: a registry that draws from the global
  generators defines the same cases in every process, whatever was loaded before it.
- Any problem raises ``RegistryError`` with one line that names the file and the problem: file
  missing; import failure (exception type, message, and the registry line that raised); ``CASES``
  missing; ``CASES`` not a list; an element that is not a Case; a duplicate case name (both
  places, ``file:line``, across files too; a case's ``origin`` is the registry line that built it,
  also when a helper did).
- ``fingerprint(case)`` is a hex blake2b digest over tagged fields: name, group, target, method,
  each input's shape / dtype / strides / a digest of its bytes, kwargs, check, atol, rtol, skip,
  fresh inputs and dynamic dims. Values are encoded canonically (``encode``): tensors by value,
  ``nn.Module`` instances by class, a digest of the state_dict values, the repr and the plain
  attributes of it and its children; bound methods with their object; reprs without memory
  addresses. Installed code (the library, torch, the standard library) is named by its qualified
  name. Code written in a registry, a registry's helper module or a test (``hashed_by_code``) is
  named by a digest of what it does, never by where it sits: a function by its code objects,
  defaults, closure cells and the globals it reads; a class by its bases and the attributes of its
  body (methods by code). So editing a wrapper re-keys its cases and moving it to another module
  does not. A lazy target (``opsweep.case.lazy``) is encoded without building it: the builder, its
  arguments, what it builds and the case's construction seed. Fingerprints never use ``hash()`` or
  ``id()``, so they are identical across processes. ``note`` and ``tags`` do not change results and
  are left out.
- Registry wrappers may name the API they survey in ``__opsweep_target__``; the inventory's
  ``target`` and the library guess use it.
- ``is_registry_file(path)`` tells registry code from the library's in a traceback.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import dis
import enum
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import re
import sys
import traceback
import types
import weakref
from typing import Any, Iterator, Sequence

import torch

from opsweep.case import Case, Lazy, RegistryError, construction_seed, loading, seeded

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
            "aliases": public_names(c.target),
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

    Inside a package (e.g. ``opsweep_suites/lib/cases_color.py``) it is the file's dotted
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
    text = f"{base}: import failed{where}: {type(exc).__name__}: {exc}"
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        text += (f" (module {exc.name!r} is not installed for the workers' interpreter {_interpreter()}: install it "
                 f"there, or give the interpreter of the library's environment with --python PATH or OPSWEEP_PYTHON)")
    return _one_line(text)


def _interpreter() -> str:
    """This interpreter's path, the home folder written ``~`` (messages never carry a home path)."""
    home = os.path.expanduser("~")
    exe = sys.executable or "python"
    return "~" + exe[len(home):] if home not in ("", "/") and exe.startswith(home + os.sep) else exe


# Real paths of the registry files loaded in this process, and the folders of registry packages
# (whose other modules, e.g. _common.py, are the registries' helpers).
_REGISTRY_FILES: set[str] = set()
_REGISTRY_PACKAGES: set[str] = set()
_REALPATHS: dict[str, str] = {}
_TOOLKIT_DIR = os.path.join(os.path.dirname(os.path.realpath(__file__)), "toolkit")


def is_registry_file(path: str) -> bool:
    """True when ``path`` (absolute, as in a traceback) is registry code: a registry file loaded by
    ``load_registries`` / ``load_registry_file`` in this process, or another module of a loaded
    registry's package (its helpers, such as a suite's ``_common.py``), or a module of the case
    toolkit (``opsweep/toolkit/``, whose wrappers a registry's case runs). Symlinks are resolved; ``<string>`` and other pseudo-files are not registry code. The evidence of a failure
    uses it to tell a registry's own mistake from a finding about the library."""
    if not path or path.startswith("<"):
        return False
    real = _REALPATHS.get(path)
    if real is None:
        real = _REALPATHS[path] = os.path.realpath(path)
    folder = os.path.dirname(real)
    return real in _REGISTRY_FILES or folder in _REGISTRY_PACKAGES or folder == _TOOLKIT_DIR


def registry_seed(path: str) -> int:
    """The seed of torch, numpy and random while a registry file is imported: derived from the
    file's basename (blake2b, not ``hash()``), so every process and every checkout draws the same
    module-level values, whatever was loaded before."""
    digest = hashlib.blake2b(b"opsweep-registry-seed\0" + os.path.basename(path).encode(), digest_size=4).digest()
    return int.from_bytes(digest, "little") & 0x7FFFFFFF


def load_registry_file(path: str) -> list[Case]:
    """Import one registry file and return its CASES, validated. Raises RegistryError.

    The import runs under ``seeded(registry_seed(path))``: a registry that draws from the global
    random generators at module level still defines the same cases in every process."""
    base = os.path.basename(path)
    if not os.path.isfile(path):
        raise RegistryError(f"{path}: registry file not found")
    name = _module_name(path)
    real = os.path.realpath(path)
    _REGISTRY_FILES.add(real)
    if _package_location(real) is not None:
        _REGISTRY_PACKAGES.add(os.path.dirname(real))
    try:
        _prepare_import(path)
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise RegistryError(f"{base}: cannot be imported as a Python module")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        with seeded(registry_seed(path)), loading(real):
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
        cases = load_registry_file(path)
        with _code_memo():
            loaded.extend(_fingerprinted(cases, base, first_seen))
    return loaded


def _fingerprinted(cases: list[Case], base: str, first_seen: dict[str, tuple[str, Case]]) -> list[LoadedCase]:
    """Fingerprint one registry's cases; a name seen before (in this or an earlier file) is refused."""
    loaded: list[LoadedCase] = []
    for c in cases:
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


@contextlib.contextmanager
def _code_memo() -> Iterator[None]:
    """Memoise code digests while one registry's cases are fingerprinted (its wrappers are shared)."""
    previous = _CODE.memo
    _CODE.memo = {}
    try:
        yield
    finally:
        _CODE.memo = previous


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
        return {
            "module": type_identity(type(value)),
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
