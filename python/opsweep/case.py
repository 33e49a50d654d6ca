"""The case API.

A case is one public callable of the surveyed library with concrete tensor inputs. A registry is a
Python file that defines ``CASES``, a list of cases. This module describes cases, and builds the
targets that a registry declared lazy (``lazy``, ``materialize``); loading registries,
fingerprinting and probing live elsewhere (registry.py, fingerprint.py, worker.py, paths/).

A target that is expensive to construct (a network) is written ``lazy(builder, *args, **kwargs)``:
loading the registry then costs nothing for it, and its fingerprint covers the builder's code, its
arguments and the construction seed without building it. The harness calls ``materialize(case)``
before running a job of the case; the object is built once per worker.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import random
import sys
from typing import Any, Callable, Iterator, Mapping, Sequence

from opsweep.public_names import public_name


class RegistryError(Exception):
    """A registry or a case is malformed. The message names the problem and the file."""


@dataclasses.dataclass(frozen=True)
class Case:
    name: str  # unique across everything surveyed; variants are op[variant]
    group: str  # package[.section], e.g. "geometry.epipolar"
    target: Any  # a callable, or an object whose `method` attribute is called
    inputs: tuple  # tensors; each is a live graph input
    kwargs: Mapping[str, Any]  # Python-only arguments baked in as constants
    note: str = ""
    check: bool = True  # False: randomness inside the graph, values are not compared
    atol: float = 2e-4
    rtol: float = 1e-3
    skip: str | None = None  # a reason string: the case is recorded n/a without probing
    tags: tuple = ()
    method: str | None = None
    origin: str = ""  # "file.py:line" where case() was called, for error messages
    # The second input set every captured program is also run on (docs/formats.md section 3):
    # None = drawn by the harness (float tensors get new values in the range of the originals,
    # integer and bool tensors are kept); a tuple of tensors = the case's own set (same shapes and
    # dtypes as ``inputs``); a string = no fresh-input check, for this reason (inputs with
    # structure: rotation matrices, intrinsics, sorted keypoints).
    fresh_inputs: tuple | str | None = None
    # Which dimensions may vary on the dynamic-shape paths: None = the defaults (batch, and H/W of
    # image-like inputs); {input index: (dims...)}; a string = not probed at other shapes, for
    # this reason.
    dynamic: Mapping[int, tuple] | str | None = None

    @property
    def operator(self) -> str:
        return self.name.split("[", 1)[0]


# Real paths of the registry files being imported, innermost last (registry.load_registry_file).
_LOADING: list[str] = []
_REAL: dict[str, str] = {}


@contextlib.contextmanager
def loading(real_path: str) -> Iterator[None]:
    """Mark ``real_path`` as the registry file being imported (for ``origin``)."""
    _LOADING.append(real_path)
    try:
        yield
    finally:
        _LOADING.pop()


def loading_registry() -> str:
    """The real path of the registry file being imported, or "" outside a registry import."""
    return _LOADING[-1] if _LOADING else ""


def _real(filename: str) -> str:
    real = _REAL.get(filename)
    if real is None:
        real = _REAL[filename] = os.path.realpath(filename)
    return real


def _caller_origin(depth: int = 2) -> str:
    """``file.py:line`` of the registry line that made the case: the outermost frame on the stack
    that runs the registry file being imported, so a case built by a helper (in the registry or in
    another module, e.g. a suite's helper or opsweep.toolkit) names the registry line that called the helper. Outside a
    registry import, or when no frame runs that file, the direct caller of ``case()``."""
    caller = sys._getframe(depth)
    if _LOADING:
        wanted = _LOADING[-1]
        frame: Any = caller
        while frame is not None:
            if _real(frame.f_code.co_filename) == wanted:
                caller = frame
            frame = frame.f_back
    return f"{os.path.basename(caller.f_code.co_filename)}:{caller.f_lineno}"


# ---------------------------------------------------------------------------------------------
# Lazy targets


class Lazy:
    """A target built only when a job of its case runs: ``builder(*args, **kwargs)``.

    ``__opsweep_target__`` (and ``__module__`` / ``__qualname__``) name what it builds, so the
    inventory, the library guess and coverage never need the built object."""

    def __init__(self, builder: Callable[..., Any], args: tuple, kwargs: Mapping[str, Any], surveys: Any):
        self.builder = builder
        self.args = tuple(args)
        self.kwargs = dict(kwargs)
        self.__opsweep_target__ = surveys
        self.__module__ = getattr(surveys, "__module__", None)
        self.__qualname__ = getattr(surveys, "__qualname__", None) or getattr(surveys, "__name__", "?")

    def __repr__(self) -> str:
        name = getattr(self.builder, "__qualname__", None) or type(self.builder).__qualname__
        return f"lazy({name}, {len(self.args)} args, {sorted(self.kwargs)})"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """A lazy target is never run itself: a job that reaches this skipped ``materialize``."""
        raise RegistryError(f"{self!r} was not built: call opsweep.case.materialize(case) before running the case")


def lazy(builder: Callable[..., Any], *args: Any, surveys: Any = None, **kwargs: Any) -> Lazy:
    """A target that ``materialize`` builds as ``builder(*args, **kwargs)`` when a job of its case
    runs. ``surveys`` is the public object the built target surveys (its class, or the builder API
    a wrapper names in ``__opsweep_target__``); it defaults to ``builder`` when that is a class (or
    to the class's own ``__opsweep_target__``, for a registry wrapper class that names it)."""
    origin = _caller_origin()
    if not callable(builder):
        raise RegistryError(f"{origin}: lazy(): the builder {builder!r} is not callable")
    if surveys is None:
        if not isinstance(builder, type):
            raise RegistryError(
                f"{origin}: lazy(): {getattr(builder, '__qualname__', builder)!r} is not a class: "
                "say what it builds with surveys=<the public class or function>"
            )
        surveys = getattr(builder, "__opsweep_target__", builder)
    return Lazy(builder, args, kwargs, surveys)


def construction_seed(case: Case) -> int:
    """The seed torch, numpy and random get while a lazy target of ``case`` is built: derived from
    the case name alone (blake2b), so the built object never depends on the process or on which
    cases were built before it. Part of the case fingerprint."""
    digest = hashlib.blake2b(b"opsweep-construction\0" + case.name.encode(), digest_size=4).digest()
    return int.from_bytes(digest, "little") & 0x7FFFFFFF


@contextlib.contextmanager
def seeded(seed: int) -> Iterator[None]:
    """torch (CPU), numpy and random seeded with ``seed`` inside; their previous states restored after."""
    import torch

    try:
        import numpy as np
    except ImportError:  # pragma: no cover - torch runs without numpy
        np = None  # type: ignore[assignment]
    py_state = random.getstate()
    np_state = np.random.get_state() if np is not None else None
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        random.seed(seed)
        if np is not None:
            np.random.seed(seed)
        try:
            yield
        finally:
            random.setstate(py_state)
            if np is not None:
                np.random.set_state(np_state)


# id(lazy case) -> (the lazy case, kept alive so that its id stays its own; the built case; files)
_BUILT: dict[int, tuple[Case, Case, frozenset]] = {}


def materialize(case: Case) -> Case:
    """The case ready to run: its lazy target built. Call it before running any job of the case.

    - A case whose target is not lazy is returned as it is (the same object): calling it on every
      case, or twice on one, is harmless.
    - A lazy target is built on the first call for that case, under ``seeded(construction_seed(case))``
      (torch CPU, numpy and random; their states are restored afterwards, so the caller's random
      state does not move), with grad mode as at registry import. The result is
      ``dataclasses.replace(case, target=built)``, cached for the life of the process: later calls
      return that same object for the cost of a dict lookup. Two cases that share one ``lazy(...)``
      get one object each (each is built under its own seed).
    - The files of the Python frames entered while building are kept: ``construction_files(case)``.
    - Failures: whatever the builder raises propagates unchanged and nothing is cached (the next
      call builds again). A built object that does not survey what the lazy target declared (its
      ``public_name`` differs), that lacks the case's ``method`` or, without ``method``, is not
      callable, raises ``RegistryError`` naming the case and its origin.
    """
    target = case.target
    if not isinstance(target, Lazy):
        return case
    cached = _BUILT.get(id(case))
    if cached is not None and cached[0] is case:
        return cached[1]
    files: set[str] = set()
    add = files.add

    def tracer(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            add(frame.f_code.co_filename)
        return None

    previous = sys.gettrace()
    with seeded(construction_seed(case)):
        sys.settrace(tracer)
        try:
            built = target.builder(*target.args, **target.kwargs)
        finally:
            sys.settrace(previous)
    _check_built(case, built)
    ready = dataclasses.replace(case, target=built)
    _BUILT[id(case)] = (case, ready, frozenset(files))
    return ready


def construction_files(case: Case) -> frozenset:
    """Absolute file names of the Python code entered while ``materialize`` built the case's lazy
    target (empty for a case that is not lazy or not built yet). The job records these with the
    files its eager call entered: the library code that constructed the object is code the job ran."""
    cached = _BUILT.get(id(case))
    if cached is not None and cached[0] is case:
        return cached[2]
    for lazy_case, ready, found in _BUILT.values():
        if ready is case:
            return found
    return frozenset()


def _check_built(case: Case, built: Any) -> None:
    declared, got = public_name(case.target), public_name(built)
    if declared != got:
        raise RegistryError(f"{case.origin}: case {case.name!r}: lazy target declared {declared}, built {got}")
    if case.method is not None and not hasattr(built, case.method):
        raise RegistryError(f"{case.origin}: case {case.name!r}: the built target has no method {case.method!r}")
    if case.method is None and not callable(built):
        raise RegistryError(f"{case.origin}: case {case.name!r}: the built target is not callable")


def case(
    name: str,
    group: str,
    target: Any,
    inputs: Sequence[Any],
    *,
    kwargs: Mapping[str, Any] | None = None,
    note: str = "",
    check: bool = True,
    atol: float = 2e-4,
    rtol: float = 1e-3,
    skip: str | None = None,
    tags: Sequence[str] = (),
    method: str | None = None,
    fresh_inputs: Sequence[Any] | str | None = None,
    dynamic: Mapping[int, Sequence[int]] | str | None = None,
) -> Case:
    """Describe one case. Validates what can be validated without running anything."""
    import torch

    origin = _caller_origin()
    if not isinstance(name, str) or not name:
        raise RegistryError(f"{origin}: case name must be a non-empty string, got {name!r}")
    if name.count("[") != name.count("]") or (("[" in name) and not name.endswith("]")):
        raise RegistryError(f"{origin}: case {name!r}: variants are written op[variant], brackets unbalanced")
    if not isinstance(group, str) or not group or group.startswith(".") or group.endswith("."):
        raise RegistryError(f"{origin}: case {name!r}: group must be 'package' or 'package.section', got {group!r}")
    if isinstance(inputs, torch.Tensor):
        inputs = (inputs,)
    if not isinstance(inputs, (list, tuple)):
        raise RegistryError(f"{origin}: case {name!r}: inputs must be a list or tuple of tensors, got {type(inputs).__name__}")
    for i, x in enumerate(inputs):
        if not isinstance(x, torch.Tensor):
            raise RegistryError(
                f"{origin}: case {name!r}: input {i} is a {type(x).__name__}, not a tensor "
                "(inputs are live graph inputs; put Python values in kwargs)"
            )
    if kwargs is not None and not isinstance(kwargs, Mapping):
        raise RegistryError(f"{origin}: case {name!r}: kwargs must be a mapping")
    if isinstance(target, Lazy):
        # checked when built (materialize); a class builder can be checked now
        if method is not None and isinstance(target.builder, type) and not hasattr(target.builder, method):
            raise RegistryError(f"{origin}: case {name!r}: {target.builder.__qualname__} has no method {method!r}")
    else:
        if method is not None and not hasattr(target, method):
            raise RegistryError(f"{origin}: case {name!r}: target has no method {method!r}")
        if not callable(target) and method is None:
            raise RegistryError(f"{origin}: case {name!r}: target is not callable")
    if any(isinstance(v, Lazy) for v in (kwargs or {}).values()):
        raise RegistryError(f"{origin}: case {name!r}: only the target may be lazy, not a kwarg")
    if skip is not None and (not isinstance(skip, str) or not skip.strip()):
        raise RegistryError(f"{origin}: case {name!r}: skip must be a reason string")
    if not (atol >= 0 and rtol >= 0):
        raise RegistryError(f"{origin}: case {name!r}: atol and rtol must be >= 0")
    fresh = _fresh_inputs(origin, name, inputs, fresh_inputs)
    dyn = _dynamic(origin, name, inputs, dynamic)
    return Case(
        name=name,
        group=group,
        target=target,
        inputs=tuple(inputs),
        kwargs=dict(kwargs or {}),
        note=note,
        check=bool(check),
        atol=float(atol),
        rtol=float(rtol),
        skip=skip,
        tags=tuple(tags),
        method=method,
        origin=origin,
        fresh_inputs=fresh,
        dynamic=dyn,
    )


def _fresh_inputs(origin: str, name: str, inputs: Sequence[Any], fresh: Any) -> tuple | str | None:
    import torch

    if fresh is None:
        return None
    if isinstance(fresh, str):
        if not fresh.strip():
            raise RegistryError(f"{origin}: case {name!r}: fresh_inputs opt-out needs a reason string")
        return fresh
    if isinstance(fresh, torch.Tensor):
        fresh = (fresh,)
    if not isinstance(fresh, (list, tuple)) or len(fresh) != len(inputs):
        raise RegistryError(
            f"{origin}: case {name!r}: fresh_inputs must be a reason string or {len(inputs)} tensors like inputs"
        )
    for i, (x, y) in enumerate(zip(inputs, fresh)):
        if not isinstance(y, torch.Tensor) or tuple(y.shape) != tuple(x.shape) or y.dtype != x.dtype:
            raise RegistryError(
                f"{origin}: case {name!r}: fresh input {i} must be a tensor of shape {list(x.shape)} and dtype "
                f"{str(x.dtype).replace('torch.', '')}"
            )
    return tuple(fresh)


def _dynamic(origin: str, name: str, inputs: Sequence[Any], dynamic: Any) -> Mapping[int, tuple] | str | None:
    if dynamic is None:
        return None
    if isinstance(dynamic, str):
        if not dynamic.strip():
            raise RegistryError(f"{origin}: case {name!r}: dynamic opt-out needs a reason string")
        return dynamic
    if not isinstance(dynamic, Mapping):
        raise RegistryError(f"{origin}: case {name!r}: dynamic must be a reason string or {{input index: dims}}")
    out: dict[int, tuple] = {}
    for index, dims in dynamic.items():
        if not isinstance(index, int) or not 0 <= index < len(inputs):
            raise RegistryError(f"{origin}: case {name!r}: dynamic names input {index!r}, the case has {len(inputs)}")
        rank = inputs[index].dim()
        dims = tuple(dims)
        if any(not isinstance(d, int) or not -rank <= d < rank for d in dims):
            raise RegistryError(f"{origin}: case {name!r}: dynamic dims {list(dims)} out of range for input {index}")
        out[index] = tuple(sorted(d % rank for d in dims))
    return out
