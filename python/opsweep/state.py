"""The state a module's call updates, and whether a capture keeps the update (docs/formats.md
section 3, ``checks.state``).

A module whose call updates its own state (a metric that accumulates on every forward, a
normalisation's running statistics) is only supported by a capture that returns the right values
AND leaves the state as eager leaves it. The state compared is what the module holds as
registered buffers, parameters and public tensor attributes: attributes whose names do not start
with ``_`` and that hold a tensor or a list or tuple of tensors before the call (a ``Metric``'s
states, list states included). Private bookkeeping (an augmentation's last ``_params``) and an
attribute first set by the call (a lazily built cache) are not state.

``snapshot(module)`` reads the state before the call (values of buffers and attributes are copied;
a parameter is identified by its object and version counter, since copying every weight of a
network for each job would cost more than the job); ``updated(module, before)`` after the call
gives each name whose value the call changed, with its value after the call: eager's update, the
reference a capture's state is compared with (``compare_state``).
"""

from __future__ import annotations

from typing import Any

import torch

# name -> ("value", copy) | ("param", (id, version)) | ("list", tuple of copies)
Snapshot = dict[str, tuple[str, Any]]


def _tensors(value: Any) -> tuple[torch.Tensor, ...] | None:
    if isinstance(value, (list, tuple)) and all(isinstance(v, torch.Tensor) for v in value):
        return tuple(value)
    return None


def _entries(module: torch.nn.Module) -> dict[str, Any]:
    """name -> the object the module holds under it: buffers, parameters and public tensor (or
    tensor list) attributes of every submodule, by their dotted names."""
    out: dict[str, Any] = {}
    for prefix, sub in module.named_modules(remove_duplicate=True):
        dot = f"{prefix}." if prefix else ""
        for name, buf in sub._buffers.items():
            if buf is not None:
                out[dot + name] = buf
        for name, param in sub._parameters.items():
            if param is not None:
                out[dot + name] = param
        for name, value in vars(sub).items():
            if name.startswith("_") or dot + name in out:
                continue
            if isinstance(value, torch.Tensor) or _tensors(value) is not None:
                out[dot + name] = value
    return out


def snapshot(module: torch.nn.Module) -> Snapshot:
    """The module's state before a call (see the module docstring)."""
    snap: Snapshot = {}
    for name, value in _entries(module).items():
        if isinstance(value, torch.nn.Parameter):
            snap[name] = ("param", (id(value), value._version))
        elif isinstance(value, torch.Tensor):
            snap[name] = ("value", value.detach().clone())
        else:
            snap[name] = ("list", tuple(t.detach().clone() for t in value))
    return snap


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.is_floating_point() or a.is_complex():
        return bool(torch.equal(torch.nan_to_num(a), torch.nan_to_num(b)) and
                    torch.equal(torch.isnan(a), torch.isnan(b)))
    return bool(torch.equal(a, b))


def updated(module: torch.nn.Module, before: Snapshot) -> dict[str, Any]:
    """The state the call changed: name -> its value after the call (a tensor, a tuple of tensors,
    or None when the call removed it), for every name of ``before`` whose value differs."""
    now = _entries(module)
    out: dict[str, Any] = {}
    for name, (kind, old) in sorted(before.items()):
        value = now.get(name)
        if kind == "param":
            if value is None or (id(value), value._version) != old:
                out[name] = None if value is None else value.detach().clone()
            continue
        if kind == "value":
            if not isinstance(value, torch.Tensor) or not _same(old, value):
                out[name] = value.detach().clone() if isinstance(value, torch.Tensor) else None
            continue
        seq = _tensors(value)
        if seq is None or len(seq) != len(old) or not all(_same(a, b) for a, b in zip(old, seq)):
            out[name] = None if seq is None else tuple(t.detach().clone() for t in seq)
    return out


def read(module: torch.nn.Module, names: list[str]) -> dict[str, Any]:
    """A captured module's values under ``names`` (dotted, as ``updated`` gives them): a tensor, a
    tuple of tensors, or None when the captured module holds nothing there."""
    out: dict[str, Any] = {}
    for name in names:
        value: Any = module
        for part in name.split("."):
            value = getattr(value, part, None)
            if value is None:
                break
        if isinstance(value, torch.Tensor):
            out[name] = value.detach()
        else:
            seq = _tensors(value)
            out[name] = None if seq is None else tuple(t.detach() for t in seq)
    return out


def _close(expected: Any, actual: Any, atol: float, rtol: float) -> bool:
    if expected is None or actual is None:
        return expected is None and actual is None
    if isinstance(expected, torch.Tensor):
        if not isinstance(actual, torch.Tensor) or actual.shape != expected.shape:
            return False
        if not (expected.is_floating_point() or expected.is_complex()):
            return bool(torch.equal(actual.to(expected.dtype), expected))
        return bool(torch.allclose(actual.to(expected.dtype), expected, atol=atol, rtol=rtol, equal_nan=True))
    if not isinstance(actual, tuple) or len(actual) != len(expected):
        return False
    return all(_close(e, a, atol, rtol) for e, a in zip(expected, actual))


def _shown(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, tuple):
        return f"a list of {len(value)} tensors"
    if value.numel() == 1:
        return f"{value.item():.6g}"
    return f"a {value.dtype} tensor of shape {list(value.shape)}"


def compare_state(expected: dict[str, Any], actual: dict[str, Any] | None, atol: float, rtol: float) -> str | None:
    """What differs between eager's updated state and a capture's (``actual`` None: the capture
    has no state to read, only its outputs), in words; None when every name matches."""
    names = ", ".join(expected)
    if actual is None:
        return f"the call updates the module's {names}; the capture returns the outputs only and keeps no update"
    lost = [n for n in expected if not _close(expected[n], actual.get(n), atol, rtol)]
    if not lost:
        return None
    first = lost[0]
    return (f"the call updates the module's {names}; the capture's {', '.join(lost)} "
            f"{'is' if len(lost) == 1 else 'are'} not eager's after the call "
            f"({first}: eager {_shown(expected[first])}, capture {_shown(actual.get(first))})")


def form(value: Any) -> Any:
    """A state value with its values left out: zeros of its shape and dtype (None stays None)."""
    if value is None:
        return None
    if isinstance(value, tuple):
        return tuple(form(v) for v in value)
    return torch.zeros(value.shape, dtype=value.dtype)


def capture_problem(expected: dict[str, Any], captured: Any, check: bool, atol: float, rtol: float) -> str | None:
    """What differs between eager's updated state (``expected``) and the state a capture leaves
    after its first call, in words; None when it kept the update. ``captured``: the captured module
    (already called once), a function that gives its state under the names it is given, or None
    for a capture that returns outputs only. For a check=False case only the state's shapes and
    dtypes are compared (its values are draws)."""
    names = list(expected)
    if captured is None:
        actual = None
    elif isinstance(captured, torch.nn.Module):
        actual = read(captured, names)
    else:
        actual = captured(names)
    if not check:
        expected = {n: form(v) for n, v in expected.items()}
        actual = None if actual is None else {n: form(v) for n, v in actual.items()}
    return compare_state(expected, actual, atol, rtol)

