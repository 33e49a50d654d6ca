"""Output flattening: any value an operator returns, as an ordered list of tensors.

Contract (one order for every path, so outputs compare position by position):
- a tensor is itself;
- tuples and lists (named tuples included) flatten their items in order; dicts their values in
  sorted key order (keys of mixed types sort by type name, then repr);
- an object with a tensor ``.data`` attribute (a library's boxes, keypoints, quaternions, rigid transforms,
  Image, ...) gives that tensor;
- a dataclass instance flattens its fields in declaration order;
- any other object flattens the values of its ``__dict__`` in insertion order;
- scalars, strings, None, callables and modules give nothing; depth is bounded and cycles are cut.
  Symbolic scalars are scalars too: under torch.export / torch.onnx tracing a Python number computed
  from a tensor (``x.sum().item()``, ``int(x.shape[0] * s)``) is a ``torch.SymInt`` / ``SymFloat`` /
  ``SymBool``, whose internals hold tensors; walking them gave the traced program outputs that eager
  (a plain float) does not have, and a false "output count differs" mismatch.

The capture paths that need a flat graph output (ONNX, torch.export) apply ``flatten`` *inside*
the traced forward (see case_module.py), so the exporter's output order is this order by
construction, and result objects that are not registered pytrees still export. An empty result
means the case has no tensor output (status ``n/a``, step ``no-tensor``).
"""

from __future__ import annotations

import dataclasses
import types
from typing import Any

import torch

MAX_DEPTH = 8

_LEAVES = (str, bytes, bytearray, int, float, complex, bool, type(None), torch.dtype, torch.device,
           torch.SymInt, torch.SymFloat, torch.SymBool)


def _sort_key(key: Any) -> tuple[str, str]:
    return (type(key).__name__, repr(key))


def flatten(value: Any) -> list[torch.Tensor]:
    """The tensors of ``value`` in the order described in the module docstring."""
    out: list[torch.Tensor] = []
    _flatten(value, out, 0, set())
    return out


def _flatten(value: Any, out: list[torch.Tensor], depth: int, seen: set[int]) -> None:
    if isinstance(value, torch.Tensor):
        out.append(value)
        return
    if depth >= MAX_DEPTH or isinstance(value, _LEAVES):
        return
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, types.MethodType, type)):
        return
    if isinstance(value, torch.nn.Module):
        return
    if id(value) in seen:
        return
    seen = seen | {id(value)}
    if isinstance(value, (tuple, list)):
        for item in value:
            _flatten(item, out, depth + 1, seen)
        return
    if isinstance(value, dict):
        for key in sorted(value, key=_sort_key):
            _flatten(value[key], out, depth + 1, seen)
        return
    try:
        data = getattr(value, "data", None)
    except Exception:  # a property that raises is not a data attribute
        data = None
    if isinstance(data, torch.Tensor):
        out.append(data)
        return
    if dataclasses.is_dataclass(value):
        for field in dataclasses.fields(value):
            _flatten(getattr(value, field.name, None), out, depth + 1, seen)
        return
    attrs = getattr(value, "__dict__", None)
    if isinstance(attrs, dict):
        for item in list(attrs.values()):
            _flatten(item, out, depth + 1, seen)


def describe(tensors: list[torch.Tensor]) -> dict[str, Any]:
    """The record's ``outputs`` summary: count, shapes, dtypes (``float32``, not ``torch.float32``)."""
    return {
        "count": len(tensors),
        "shapes": [list(t.shape) for t in tensors],
        "dtypes": [str(t.dtype).replace("torch.", "") for t in tensors],
    }
