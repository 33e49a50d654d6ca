"""The recorder: the calls that example code makes into the library, as they were when they started.

``Recorder(table, is_example_code)`` installs a profile function (``sys.setprofile``; Python 3.11
has no ``sys.monitoring``) while an example runs. A ``call`` event counts only when the calling
frame runs example code (``is_example_code(code)``: a doctest's ``<doctest ...>`` code, or a test
file's), so a call the library makes internally is never recorded: an example of ``outer`` that
calls ``inner`` inside the library records ``outer`` only. What is recorded, for every call from
example code into a callable defined in the library (public or not: a non-public call can still
build an object a later call needs):

- **function**: a function (a staticmethod included), by the frame's code; a function behind a
  decorator whose wrapper lives outside the library is found through the wrapper's closure;
- **classmethod**: a classmethod, on the class it was called on;
- **method**: a function of a library class called on an instance (``boxes.area()``, ``q1 + q2``);
- **construct**: ``Cls(...)``, seen as the ``__init__`` frame of an instance of a library class
  (inherited ``__init__`` included); the object is the record's result;
- **module**: an instance of a library class called (``m(x)``: ``nn.Module.__call__``, or a
  ``__call__`` of the class).

Arguments are taken from the frame's locals at the ``call`` event, before the callee runs a line,
and encoded at once (``Encoder``): tensors are cloned (a function that edits its input in place
is recorded with the input it was given), Python values kept as literals, objects that a recorded
call returned referenced by that record, importable functions and classes by their path; anything
else is marked as not rebuildable, with its type. At the ``return`` event the result is kept:
whether it holds a tensor (opsweep.flatten), and, for an object, which record built it.
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import inspect
import math
import sys
import types
from typing import Any, Callable

import torch

from opsweep.flatten import flatten

_MODULE_CALL_CODES = frozenset({torch.nn.Module._wrapped_call_impl.__code__, torch.nn.Module._call_impl.__code__})
_GENERATOR_FLAGS = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR | inspect.CO_ITERABLE_COROUTINE
# the longest list, tuple or dict argument kept as a literal
MAX_LITERAL_ITEMS = 256
MAX_DEPTH = 6


@dataclasses.dataclass
class Callee:
    """What a call reached: its kind, the object a case calls, and the public operator if any."""

    kind: str  # function | classmethod | method | construct | module
    obj: Any  # the function, the bound classmethod, the method's function, or the class
    operator: str | None  # the public operator's name (coverage's), or None
    surveys: Any = None  # a module call on what a factory class returned: that class


@dataclasses.dataclass
class Record:
    """One recorded call."""

    index: int
    kind: str
    callee: Any  # the function / class / bound classmethod
    operator: str | None
    receiver: Any  # encoded receiver (method, module) or None
    args: list  # encoded positional arguments
    kwargs: dict  # encoded keyword arguments, in parameter order
    step: int
    line: int  # the line of example code that made the call
    file: str  # the file of example code that made the call (``<doctest ...>`` for a docstring)
    tensors: list  # the tensors the encoded values refer to ({"t": i})
    has_tensor_output: bool | None = None  # None until the call returned
    returned: bool = False
    result_module: bool = False  # the result (a constructed object) is an nn.Module
    surveys: Any = None  # a module call on what a factory class returned: that class
    factory: bool = False  # a construction seen at ``__new__`` (its result may be of another class)


class PublicTable:
    """The library's public operators, looked up by object: ``{id: name}`` over functions, classes
    and methods' functions (opsweep.coverage's ``public_surface``), and the library's root folder."""

    def __init__(self, library: str, operators: dict[int, Any], objects: dict[int, Any], root: str,
                 names: dict[int, str] | None = None):
        self.library = library
        self.operators = operators  # id -> operator name
        self.objects = objects  # id -> object (kept alive, so ids stay theirs)
        self.root = root  # the folder of the library's package, with a trailing separator
        self.names = names or {}  # id -> a public dotted path of any library object (for references)
        self.by_code: dict[types.CodeType, Any] = {}
        for key, obj in objects.items():
            fn = inspect.unwrap(obj) if inspect.isfunction(obj) else None
            code = getattr(fn, "__code__", None)
            if code is not None:
                self.by_code[code] = obj

    def operator(self, obj: Any) -> str | None:
        name = self.operators.get(id(obj))
        return name if name is not None and self.objects.get(id(obj)) is obj else None

    def in_library(self, cls_or_fn: Any) -> bool:
        module = getattr(cls_or_fn, "__module__", None) or ""
        return isinstance(module, str) and (module == self.library or module.startswith(self.library + "."))


def reference(obj: Any, table: PublicTable) -> str | None:
    """An importable dotted path for ``obj`` (``module.attr.attr``), or None: the library's public
    name when it has one, else its ``__module__`` and ``__qualname__`` when they lead back to it."""
    public = table.names.get(id(obj))
    if public is not None and resolve(public) is obj:
        return public
    if inspect.ismethod(obj) and inspect.isclass(obj.__self__):  # a classmethod, bound to its class
        owner = reference(obj.__self__, table)
        path = f"{owner}.{obj.__name__}" if owner else None
        return path if path is not None and resolve(path) == obj else None
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str) or "<" in qualname:
        return None
    path = f"{module}.{qualname}"
    return path if resolve(path) is obj else None


_MISSING = object()


def resolve(path: str) -> Any:
    """The object a dotted path names as Python evaluates it after ``import <module_of(path)>``:
    attributes from the top-level package down, a submodule imported where no attribute has its
    name (a package attribute that shadows a submodule of the same name wins, as it does in code)."""
    parts = path.split(".")
    try:
        obj: Any = sys.modules.get(parts[0]) or importlib.import_module(parts[0])
    except Exception:  # noqa: BLE001 - not importable
        return None
    for i, attr in enumerate(parts[1:], start=1):
        nxt = getattr(obj, attr, _MISSING)
        if nxt is _MISSING and inspect.ismodule(obj):
            try:
                importlib.import_module(".".join(parts[: i + 1]))
            except Exception:  # noqa: BLE001
                return None
            nxt = getattr(obj, attr, _MISSING)
        if nxt is _MISSING:
            return None
        obj = nxt
    return obj


def module_of(path: str) -> str:
    """The module to import so that the dotted path evaluates: its longest prefix that evaluates
    (by ``resolve``) to a module."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        prefix = ".".join(parts[:cut])
        if inspect.ismodule(resolve(prefix)):
            return prefix
    return parts[0]


class Encoder:
    """Values of one call as JSON-able nodes; tensors cloned into ``tensors``.

    Nodes: ``{"t": i}`` a tensor; ``{"lit": text}`` a Python literal (its source text);
    ``{"list"|"tuple": [...]}``, ``{"dict": [[key, value], ...]}``; ``{"ref": path}`` an importable
    object; ``{"obj": record}`` the result of a recorded call; ``{"bad": why}`` none of these."""

    def __init__(self, table: PublicTable, produced: dict[int, tuple[Any, int]]):
        self.table = table
        self.produced = produced
        self.tensors: list[torch.Tensor] = []

    def encode(self, value: Any, depth: int = 0) -> dict:
        if isinstance(value, torch.Tensor):
            self.tensors.append(_copy_tensor(value))
            return {"t": len(self.tensors) - 1}
        made = self.produced.get(id(value))
        if made is not None and made[0] is value:
            return {"obj": made[1]}
        literal = _literal(value)
        if literal is not None:
            return {"lit": literal}
        if depth >= MAX_DEPTH:
            return {"bad": f"a value nested deeper than {MAX_DEPTH} levels"}
        if type(value) in (list, tuple):
            if len(value) > MAX_LITERAL_ITEMS:
                return {"bad": f"a {type(value).__name__} of {len(value)} items"}
            return {type(value).__name__: [self.encode(v, depth + 1) for v in value]}
        if type(value) in (set, frozenset):
            items = [_literal(v) for v in value]
            if None in items or len(items) > MAX_LITERAL_ITEMS:
                return {"bad": f"a {type(value).__name__} of values that are not literals"}
            text = "{" + ", ".join(sorted(items)) + "}" if items else "set()"
            return {"lit": text if type(value) is set else f"frozenset({text})"}
        if type(value) is dict:
            if len(value) > MAX_LITERAL_ITEMS:
                return {"bad": f"a dict of {len(value)} items"}
            return {"dict": [[self.encode(k, depth + 1), self.encode(v, depth + 1)] for k, v in value.items()]}
        if isinstance(value, enum.Enum):
            path = reference(type(value), self.table)
            return {"ref": f"{path}.{value.name}"} if path else {"bad": f"an enum member of {type(value).__qualname__}"}
        if callable(value) and (inspect.isfunction(value) or inspect.isclass(value) or inspect.isbuiltin(value)
                                or isinstance(value, (types.BuiltinMethodType, types.MethodWrapperType))):
            path = reference(value, self.table)
            if path is not None:
                return {"ref": path}
        return {"bad": f"a {_type_name(value)}"}


def _type_name(value: Any) -> str:
    t = type(value)
    module = getattr(t, "__module__", "") or ""
    return t.__qualname__ if module in ("builtins", "") else f"{module}.{t.__qualname__}"


def _copy_tensor(t: torch.Tensor) -> torch.Tensor:
    x = t.detach()
    if type(x) is not torch.Tensor and isinstance(x, torch.Tensor):
        x = x.as_subclass(torch.Tensor)
    return x.clone().contiguous() if x.layout == torch.strided else x.clone()


def _literal(value: Any) -> str | None:
    """Source text that evaluates to ``value`` for plain Python and torch scalars, else None."""
    if value is None or value is Ellipsis or isinstance(value, (bool, str, bytes)):
        return repr(value)
    if type(value) is int:
        return repr(value)
    if type(value) is float:
        if math.isnan(value):
            return 'float("nan")'
        if math.isinf(value):
            return 'float("inf")' if value > 0 else '-float("inf")'
        return repr(value)
    if type(value) is complex:
        return repr(value)
    if isinstance(value, torch.dtype):
        return str(value)  # torch.float32
    if isinstance(value, torch.device):
        return f"torch.device({str(value)!r})"
    if isinstance(value, torch.Size):
        return f"torch.Size({list(value)!r})"
    if isinstance(value, (torch.memory_format, torch.layout)):
        return str(value)
    if type(value) in (slice, range):
        parts = [_literal(value.start), _literal(value.stop), _literal(value.step)]
        return None if None in parts else f"{type(value).__name__}({', '.join(parts)})"
    return None


class Recorder:
    """Records calls from example code into the library (see the module docstring).

    ``on_step(step)`` sets the example the next calls belong to; ``active()`` is the context in
    which the profile function is installed. ``records`` holds every record in call order."""

    def __init__(self, table: PublicTable, is_example_code: Callable[[types.CodeType], bool]):
        self.table = table
        self._is_example = is_example_code
        self._example_codes: dict[types.CodeType, bool] = {}
        self._callees: dict[types.CodeType, Any] = {}
        self._stack: list[tuple[Any, Record]] = []
        self.records: list[Record] = []
        self.produced: dict[int, tuple[Any, int]] = {}  # id(object) -> (object, record index)
        self.step = 0

    # --- installing ---------------------------------------------------------------------------

    def start(self) -> None:
        sys.setprofile(self._profile)

    def stop(self) -> None:
        sys.setprofile(None)
        self._stack.clear()

    # --- the profile function ----------------------------------------------------------------

    def _profile(self, frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            back = frame.f_back
            if back is None:
                return
            code = back.f_code
            example = self._example_codes.get(code)
            if example is None:
                example = self._example_codes[code] = bool(self._is_example(code))
            if example:
                try:
                    self._on_call(frame, back.f_lineno, code.co_filename)
                except Exception:  # noqa: BLE001 - the recorder must never change what the example does
                    pass
        elif event == "return":
            stack = self._stack
            if stack and stack[-1][0] is frame:
                _, record = stack.pop()
                try:
                    self._on_return(frame, record, arg)
                except Exception:  # noqa: BLE001
                    pass

    def _on_call(self, frame: Any, line: int, file: str) -> None:
        code = frame.f_code
        if code.co_flags & _GENERATOR_FLAGS:
            return
        found = self._callee(frame)
        if found is None:
            return
        callee, args, kwargs, receiver = found
        encoder = Encoder(self.table, self.produced)
        record = Record(
            index=len(self.records),
            kind=callee.kind,
            callee=callee.obj,
            operator=callee.operator,
            receiver=encoder.encode(receiver) if callee.kind in ("method", "module") else None,
            args=[encoder.encode(a) for a in args],
            kwargs={k: encoder.encode(v) for k, v in kwargs.items()},
            step=self.step,
            line=line,
            file=file,
            tensors=encoder.tensors,
            surveys=callee.surveys,
            factory=frame.f_code.co_name == "__new__" and callee.kind == "construct",
        )
        self.records.append(record)
        self._stack.append((frame, record))

    def _on_return(self, frame: Any, record: Record, value: Any) -> None:
        record.returned = True
        if record.factory:
            if isinstance(value, record.callee):  # an ordinary construction: its __init__ records it
                record.operator = None
                return
            self.produced[id(value)] = (value, record.index)
            record.has_tensor_output = bool(flatten(value))
            record.result_module = isinstance(value, torch.nn.Module)
            return
        if record.kind == "construct":
            obj = frame.f_locals.get(frame.f_code.co_varnames[0])
            if obj is not None:
                self.produced[id(obj)] = (obj, record.index)
                record.has_tensor_output = bool(flatten(obj))
                record.result_module = isinstance(obj, torch.nn.Module)
            return
        record.result_module = isinstance(value, torch.nn.Module)
        record.has_tensor_output = bool(flatten(value))
        if value is not None and not isinstance(value, (torch.Tensor, bool, int, float, str, tuple, list, dict)):
            self.produced[id(value)] = (value, record.index)

    # --- what was called -----------------------------------------------------------------------

    def _callee(self, frame: Any) -> tuple[Callee, list, dict, Any] | None:
        code = frame.f_code
        table = self.table
        if code in _MODULE_CALL_CODES or code.co_name == "__call__":
            return self._instance_call(frame)
        if code.co_name == "__new__" and code.co_argcount >= 1:  # a class whose __new__ may build another
            cls = frame.f_locals.get(code.co_varnames[0])
            if inspect.isclass(cls) and table.in_library(cls) and "<" not in cls.__qualname__:
                new = getattr(cls, "__new__", None)
                if inspect.isfunction(new) and getattr(inspect.unwrap(new), "__code__", None) is code:
                    args, kwargs = _arguments(frame, _signature(new), skip_first=True)
                    return Callee("construct", cls, table.operator(cls)), args, kwargs, None
            return None
        if code.co_name == "__init__" and code.co_argcount >= 1:
            this = frame.f_locals.get(code.co_varnames[0])
            cls = type(this)
            if this is not None and table.in_library(cls) and "<" not in cls.__qualname__:
                if getattr(cls, "__init__", None) is not None and _init_code(cls) is code:
                    args, kwargs = _arguments(frame, _signature(cls.__init__), skip_first=True)
                    return Callee("construct", cls, table.operator(cls)), args, kwargs, None
            return None
        fn = table.by_code.get(code)
        if fn is None and code.co_filename.startswith(table.root):
            fn = self._function_of(frame)
        if fn is None:
            return self._through_wrapper(frame)
        return self._function_call(frame, fn)

    def _instance_call(self, frame: Any) -> tuple[Callee, list, dict, Any] | None:
        code = frame.f_code
        if code.co_argcount < 1:
            return None
        this = frame.f_locals.get(code.co_varnames[0])
        cls = type(this)
        if this is None or not self.table.in_library(cls):
            return None
        if code in _MODULE_CALL_CODES:
            locals_ = frame.f_locals
            args, kwargs = list(locals_.get("args", ())), dict(locals_.get("kwargs", {}))
        else:
            if _call_code(cls) is not code:
                return None
            args, kwargs = _arguments(frame, _signature(cls.__call__), skip_first=True)
        made = self.produced.get(id(this))
        if made is not None and made[0] is this:
            maker = self.records[made[1]]
            if maker.factory and inspect.isclass(maker.callee) and not isinstance(this, maker.callee):
                # `Accuracy(task="binary")` returned a BinaryAccuracy: the example calls Accuracy
                return Callee("module", cls, self.table.operator(maker.callee), maker.callee), args, kwargs, this
        return Callee("module", cls, self.table.operator(cls)), args, kwargs, this

    def _function_of(self, frame: Any) -> Any:
        """The function object whose code the frame runs, found by module and qualified name."""
        code = frame.f_code
        cached = self._callees.get(code)
        if cached is not None:
            return cached or None
        module = frame.f_globals.get("__name__", "")
        found = None
        if "<" not in code.co_qualname:
            obj = resolve(f"{module}.{code.co_qualname}") if module else None
            if obj is not None:
                raw = _raw_attribute(module, code.co_qualname)
                fn = raw.__func__ if isinstance(raw, (classmethod, staticmethod)) else obj
                fn = getattr(fn, "__func__", fn)
                if getattr(inspect.unwrap(fn), "__code__", None) is code:
                    found = fn
        self._callees[code] = found or False
        return found

    def _through_wrapper(self, frame: Any) -> tuple[Callee, list, dict, Any] | None:
        """A decorated public function whose wrapper is not library code: the wrapper's frame,
        with the public function in its closure (``functools.wraps`` style)."""
        code = frame.f_code
        if not code.co_freevars:
            return None
        locals_ = frame.f_locals
        for name in code.co_freevars:
            value = locals_.get(name)
            if value is not None and inspect.isfunction(value) and self.table.operator(value) is not None:
                positional, keywords = _passed(frame)
                try:
                    bound = _signature(value).bind(*positional, **keywords)
                except TypeError:
                    return None
                args, kwargs = _split_bound(_signature(value), dict(bound.arguments), skip_first=False)
                return Callee("function", value, self.table.operator(value)), args, kwargs, None
        return None

    def _function_call(self, frame: Any, fn: Any) -> tuple[Callee, list, dict, Any] | None:
        qual = getattr(fn, "__qualname__", "")
        owner_name, _, attr = qual.rpartition(".")
        owner = resolve(f"{fn.__module__}.{owner_name}") if owner_name and "<" not in qual else None
        raw = vars(owner).get(attr) if inspect.isclass(owner) else None
        sig = _signature(fn)
        if isinstance(raw, classmethod):
            cls = frame.f_locals.get(frame.f_code.co_varnames[0])
            if not inspect.isclass(cls):
                return None
            args, kwargs = _arguments(frame, sig, skip_first=True)
            bound = getattr(cls, attr)
            return Callee("classmethod", bound, self.table.operator(fn)), args, kwargs, None
        if inspect.isclass(owner) and not isinstance(raw, staticmethod) and frame.f_code.co_argcount >= 1:
            this = frame.f_locals.get(frame.f_code.co_varnames[0])
            if isinstance(this, owner):
                args, kwargs = _arguments(frame, sig, skip_first=True)
                return Callee("method", fn, self.table.operator(fn)), args, kwargs, this
        args, kwargs = _arguments(frame, sig, skip_first=False)
        return Callee("function", fn, self.table.operator(fn)), args, kwargs, None


def _raw_attribute(module: str, qualname: str) -> Any:
    owner_name, _, attr = qualname.rpartition(".")
    if not owner_name:
        return None
    owner = resolve(f"{module}.{owner_name}")
    return vars(owner).get(attr) if inspect.isclass(owner) else None


def _init_code(cls: type) -> Any:
    fn = getattr(cls, "__init__", None)
    return getattr(inspect.unwrap(fn), "__code__", None) if inspect.isfunction(fn) else None


def _call_code(cls: type) -> Any:
    fn = getattr(cls, "__call__", None)
    return getattr(fn, "__code__", None) if inspect.isfunction(fn) else None


_SIGNATURES: dict[int, tuple[Any, inspect.Signature]] = {}


def _signature(fn: Any) -> inspect.Signature:
    cached = _SIGNATURES.get(id(fn))
    if cached is not None and cached[0] is fn:
        return cached[1]
    sig = inspect.signature(inspect.unwrap(fn) if inspect.isfunction(fn) else fn)
    _SIGNATURES[id(fn)] = (fn, sig)
    return sig


def _passed(frame: Any) -> tuple[list, dict]:
    """A ``(*args, **kwargs)`` wrapper's arguments as passed."""
    code = frame.f_code
    names = code.co_varnames
    n = code.co_argcount + code.co_kwonlyargcount
    locals_ = frame.f_locals
    positional = [locals_[v] for v in names[: code.co_argcount]]
    keywords = {v: locals_[v] for v in names[code.co_argcount : n]}
    i = n
    if code.co_flags & inspect.CO_VARARGS:
        positional += list(locals_.get(names[i], ()))
        i += 1
    if code.co_flags & inspect.CO_VARKEYWORDS:
        keywords.update(locals_.get(names[i], {}))
    return positional, keywords


def _arguments(frame: Any, sig: inspect.Signature, skip_first: bool) -> tuple[list, dict]:
    """The call's arguments from the frame's locals at its start, as (positional, keyword)."""
    locals_ = frame.f_locals
    values = {name: locals_[name] for name in sig.parameters if name in locals_}
    return _split_bound(sig, values, skip_first)


def _split_bound(sig: inspect.Signature, values: dict, skip_first: bool) -> tuple[list, dict]:
    """Bound parameter values as the call to replay: positional-only parameters, the leading
    tensor arguments (and every parameter before a non-empty ``*args``) by position, the rest by
    name; a parameter whose value is its default (the same object) is left out, as the example
    left it out."""
    params = list(sig.parameters.values())
    if skip_first and params and params[0].kind in (params[0].POSITIONAL_ONLY, params[0].POSITIONAL_OR_KEYWORD):
        params = params[1:]
    varargs = next((values.get(p.name) for p in params if p.kind == p.VAR_POSITIONAL), None)
    by_position = bool(varargs)
    args: list = []
    kwargs: dict = {}
    pending_defaults: list = []  # positional defaults left out, kept if a later positional follows
    leading = True  # still in the leading run of tensor arguments
    for p in params:
        if p.name not in values:
            continue
        value = values[p.name]
        if p.kind == p.VAR_POSITIONAL:
            args.extend(pending_defaults)
            pending_defaults = []
            args.extend(value)
        elif p.kind == p.VAR_KEYWORD:
            kwargs.update(value)
        elif p.kind == p.POSITIONAL_ONLY or (p.kind == p.POSITIONAL_OR_KEYWORD and (
                by_position or (leading and isinstance(value, torch.Tensor)))):
            if p.default is not p.empty and value is p.default:
                pending_defaults.append(value)
            else:
                args.extend(pending_defaults)
                pending_defaults = []
                args.append(value)
        else:
            leading = False
            if p.default is not p.empty and value is p.default:
                continue
            kwargs[p.name] = value
    return args, kwargs
