"""Fresh-input declarations: a valid second value for inputs with structure.

Every captured program is also run on a second input set (the harness redraws each floating input
from its own value range). For an input with structure (a rotation, a camera, a homography, boxes,
a 0/1 mask) such a redraw is not a valid input, and a difference there would be a false verdict.
The helpers below declare a valid second value for such inputs, built the same way with another seed
(``structured(trace, fresh)``; ``derived(fn, *args)`` for an input computed from structured ones;
``twin(build, ...)`` for a builder with a ``second=True`` form; ``keep(x)`` for a value that must
stay). This module's ``case`` gives a case whose inputs include a declared tensor its own fresh set
(``fresh_set``): the declared second values, every other floating input redrawn as the harness
would. Declarations are scoped to the registry file being loaded.
"""

from __future__ import annotations

import hashlib
from typing import Any, Callable, Sequence

import torch

from opsweep.case import RegistryError, loading_registry
from opsweep.case import case as _case

__all__ = [
    "FRESH_OFFSET",
    "case",
    "derived",
    "fresh_set",
    "fresh_value",
    "seeded_generator",
    "keep",
    "redraw",
    "second_value",
    "structured",
    "twin",
]

# ---------------------------------------------------------------------------------------------
# fresh input sets of structured inputs

# Seeds of second values are the trace seeds plus this offset (no helper uses seeds that large).
FRESH_OFFSET = 10_000

# (registry file being imported, digest of a tensor's dtype, shape and bytes) -> its second value.
# Declarations are scoped to the registry that makes them: an identity declared a camera pose in one
# registry is not a pose in another.
class _SecondValues:
    """The declarations, keyed as above. Not a dict: a case fingerprint that reaches this table
    (through the code of a helper) must not take its contents, which hold the absolute path of
    each registry file and grow with every registry loaded before it."""

    __slots__ = ("_by_key",)

    def __init__(self) -> None:
        self._by_key: dict[tuple[str, bytes], torch.Tensor] = {}

    def get(self, key: tuple[str, bytes]) -> torch.Tensor | None:
        return self._by_key.get(key)

    def __setitem__(self, key: tuple[str, bytes], value: torch.Tensor) -> None:
        self._by_key[key] = value

    def __repr__(self) -> str:
        return "<the declared second values of structured inputs>"


_SECOND = _SecondValues()


def _scope() -> str:
    return loading_registry()


def _digest(x: torch.Tensor) -> bytes:
    x = x.detach().cpu().contiguous()
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{x.dtype}|{tuple(x.shape)}|".encode())
    h.update(x.view(-1).view(torch.uint8).numpy().tobytes() if x.numel() else b"")
    return h.digest()


def structured(trace: torch.Tensor, fresh: torch.Tensor) -> torch.Tensor:
    """Declare ``fresh`` the second value of the structured tensor ``trace`` (another valid rotation,
    camera, set of boxes): a case with ``trace`` among its inputs runs its fresh-input check with
    ``fresh`` in its place. Returns ``trace``. The values identify the tensor (a clone counts);
    declaring another second value for the same values is a RegistryError."""
    if not isinstance(trace, torch.Tensor) or not isinstance(fresh, torch.Tensor):
        raise RegistryError("structured(): both values must be tensors")
    if trace.shape != fresh.shape or trace.dtype != fresh.dtype:
        raise RegistryError(f"structured(): the second value has shape {list(fresh.shape)} {fresh.dtype}, "
                            f"the tensor {list(trace.shape)} {trace.dtype}")
    if torch.equal(trace, fresh):
        raise RegistryError("structured(): the second value equals the tensor (use keep() to keep a value)")
    return _declare(trace, fresh)


def keep(x: torch.Tensor) -> torch.Tensor:
    """Declare that ``x`` keeps its value in the fresh set (the identity pose of a scene's reference
    camera): not redrawn, and ``derived`` computes from it as it is. Returns ``x``."""
    return _declare(x, x)


def _declare(trace: torch.Tensor, fresh: torch.Tensor) -> torch.Tensor:
    key = (_scope(), _digest(trace))
    known = _SECOND.get(key)
    fresh = fresh.detach().clone().contiguous()
    if known is not None and not torch.equal(known, fresh):
        raise RegistryError(f"structured(): a tensor of shape {list(trace.shape)} already has another second value")
    _SECOND[key] = fresh
    return trace


def second_value(x: Any) -> torch.Tensor | None:
    """The declared second value of ``x``, or None."""
    if not isinstance(x, torch.Tensor):
        return None
    found = _SECOND.get((_scope(), _digest(x)))
    return None if found is None else found.clone()


def redraw(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """What the harness does to an input without structure: a floating tensor with more than one
    finite value gets new values uniform in its own [min, max]; anything else is kept."""
    x = x.detach()
    if x.is_floating_point() and x.numel() > 0:
        lo, hi = float(x.min()), float(x.max())
        if lo < hi and all(v == v and abs(v) != float("inf") for v in (lo, hi)):
            u = torch.rand(x.shape, generator=gen, dtype=torch.float64)
            return (lo + (hi - lo) * u).to(x.dtype).contiguous()
    return x.clone()


def seeded_generator(text: str) -> torch.Generator:
    """A torch generator seeded from ``text`` (blake2b): the same draws in every process."""
    seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=4).digest(), "little")
    return torch.Generator().manual_seed(seed)


def fresh_value(x: Any) -> Any:
    """The second value of ``x`` for ``derived``: the declared one, else ``redraw`` (seeded by the
    values); a non-tensor is itself."""
    if not isinstance(x, torch.Tensor):
        return x
    found = second_value(x)
    if found is not None:
        return found
    return redraw(x, seeded_generator(_digest(x).hex()))


def _tensors(x: Any) -> list:
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (tuple, list)):
        return [t for v in x for t in _tensors(v)]
    return []


def derived(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)``, each tensor of the result declared ``structured`` with the same
    computation on the second values of the arguments (``fresh_value``): for an input computed from
    structured ones (corners of boxes, the projection matrix of a camera, a rotation's quaternion)."""
    out = fn(*args, **kwargs)
    alt = fn(*[fresh_value(a) for a in args], **{k: fresh_value(v) for k, v in kwargs.items()})
    for t, a in zip(_tensors(out), _tensors(alt)):
        _declare(t, a)
    return out


def twin(build: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``build(*args, **kwargs)``, each tensor of the result declared ``structured`` with the same
    build's ``second=True`` result as its second value (a builder whose ``second`` flag picks
    another seed or other parameters of the same kind of input)."""
    out = build(*args, **kwargs)
    alt = build(*args, second=True, **kwargs)
    for t, a in zip(_tensors(out), _tensors(alt)):
        _declare(t, a)
    return out


def fresh_set(name: str, inputs: Sequence[Any]) -> tuple | None:
    """A case's own fresh set when some input has a declared second value: those second values, and
    every other input as the harness would draw it (``redraw``, seeded from the case name). None when
    no input is declared (the harness then draws the set itself)."""
    seconds = [second_value(x) for x in inputs]
    if all(s is None for s in seconds):
        return None
    gen = seeded_generator("fresh:" + name)
    return tuple(s if s is not None else redraw(x, gen) for x, s in zip(inputs, seconds))


def case(name: str, group: str, target: Any, inputs: Sequence[Any], **kwargs: Any) -> Any:
    """``opsweep.case``, with ``fresh_inputs=fresh_set(name, inputs)`` unless the case gives its own."""
    if kwargs.get("fresh_inputs") is None:
        kwargs["fresh_inputs"] = fresh_set(name, [inputs] if isinstance(inputs, torch.Tensor) else inputs)
    return _case(name, group, target, inputs, **kwargs)
