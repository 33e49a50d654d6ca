"""The case API.

A case is one public callable of the surveyed library with concrete tensor inputs. A registry is a
Python file that defines ``CASES``, a list of cases. This module only describes cases; loading
registries, fingerprinting and probing live elsewhere (registry.py, worker.py, paths/).
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Any, Mapping, Sequence


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


def _caller_origin() -> str:
    frame = sys._getframe(2)
    import os

    return f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}"


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
    if method is not None and not hasattr(target, method):
        raise RegistryError(f"{origin}: case {name!r}: target has no method {method!r}")
    if not callable(target) and method is None:
        raise RegistryError(f"{origin}: case {name!r}: target is not callable")
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
