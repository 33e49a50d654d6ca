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
    )
