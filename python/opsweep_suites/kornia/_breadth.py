"""Helpers of the breadth registries (cases_breadth_*.py): the public names below kornia's packages
that `opsweep coverage` counts at any depth (building blocks of the models, module-level helpers,
public methods of public classes).

* ``Call(target, fn, *parts)`` is a module whose ``forward(*inputs)`` returns ``fn(*parts,
  *inputs)``; ``__opsweep_target__`` names the public API it surveys (a function, a class, or a
  method's function such as ``Boxes.trim``), so coverage and the page's API links name it. The
  ``parts`` (modules) are registered children: their weights belong to the graph and to the case
  fingerprint; ``fn`` is hashed by its code (registry functions are), so editing it re-measures.
* ``seeded(seed, build, *args, **kwargs)`` builds an object (a randomly initialised network) from
  a private RNG state: reproducible from ``seed`` alone, and the global RNG is left untouched.
* ``lazy_built(surveys, build, ...)`` defers a large network to the job that runs it
  (``opsweep.case.lazy``), so loading the registries stays cheap.
"""

from __future__ import annotations

from typing import Any, Callable

import torch
from torch import nn


class Call(nn.Module):
    """``forward(*inputs) = fn(*parts, *inputs)``; ``__opsweep_target__`` is the API surveyed."""

    def __init__(self, target: Any, fn: Callable[..., Any], *parts: nn.Module):
        super().__init__()
        self.__opsweep_target__ = target
        self.fn = fn
        self.parts = nn.ModuleList(parts)

    def forward(self, *inputs: Any) -> Any:
        return self.fn(*self.parts, *inputs)


def seeded(seed: int, build: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``build(*args, **kwargs)`` under ``torch.manual_seed(seed)`` in a forked RNG state; modules in eval mode."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        out = build(*args, **kwargs)
    if isinstance(out, nn.Module):
        out.eval()
    return out


def _built(surveys: Any, build: Callable[..., Any], args: tuple, kwargs: dict) -> nn.Module:
    from opsweep.toolkit.wrappers import Built

    out = build(*args, **kwargs)
    model = out if getattr(out, "__opsweep_target__", None) is not None else Built(surveys, out)
    return model.eval()


def lazy_built(surveys: Any, build: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """A lazy target (``opsweep.case.lazy``) for a large network: ``build(*args, **kwargs)``, built
    only when a job of the case runs (under the case's construction seed), in eval mode, wrapped in
    ``Built(surveys, ...)`` unless it already names what it surveys. Loading the registry costs
    nothing for it."""
    from opsweep.case import lazy

    return lazy(_built, surveys, build, args, kwargs, surveys=surveys)


def _lazy_call(surveys: Any, make: Callable[[], Any], fn: Callable[..., Any]) -> nn.Module:
    obj = make()
    if isinstance(obj, nn.Module):
        obj.eval()
        return Call(surveys, fn, obj)
    return Call(surveys, lambda *xs: fn(obj, *xs))


def lazy_call(surveys: Any, make: Callable[[], Any], fn: Callable[..., Any]) -> Any:
    """A lazy target: ``fn(make(), *inputs)``, with the object (a network, a prompter holding one)
    built only when a job of the case runs; a module object is registered in the call."""
    from opsweep.case import lazy

    return lazy(_lazy_call, surveys, make, fn, surveys=surveys)


def truncated(build: Callable[..., nn.Module], keep: Callable[[nn.Module], None], seed: int) -> nn.Module:
    """A network too large to run whole (a billion parameters), at reduced depth: built with every
    parameter and buffer moved to the meta device as it is registered (so the whole network never
    exists in memory), cut down by ``keep(model)`` (for example to its first blocks), then
    materialised on the CPU with seeded random values: N(0, 0.02) for weights, 1 for norms' weights,
    0 for biases and buffers. The architecture is the released one; the values are random."""
    register_parameter, register_buffer = nn.Module.register_parameter, nn.Module.register_buffer

    def on_meta_parameter(self: nn.Module, name: str, param: Any) -> None:
        if param is not None:
            param = nn.Parameter(param.detach().to("meta"), requires_grad=param.requires_grad)
        register_parameter(self, name, param)

    def on_meta_buffer(self: nn.Module, name: str, tensor: Any, persistent: bool = True) -> None:
        register_buffer(self, name, None if tensor is None else tensor.to("meta"), persistent)

    nn.Module.register_parameter, nn.Module.register_buffer = on_meta_parameter, on_meta_buffer  # type: ignore[assignment]
    try:
        model = build()
    finally:
        nn.Module.register_parameter, nn.Module.register_buffer = register_parameter, register_buffer  # type: ignore[assignment]
    keep(model)
    model = model.to_empty(device="cpu")
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name and name.endswith("weight"):
                p.fill_(1.0)
            elif name.endswith("bias"):
                p.zero_()
            else:
                p.copy_(torch.randn(p.shape, generator=g) * 0.02)
        for b in model.buffers():
            b.zero_()
    return model.eval()


# ---------------------------------------------------------------------------------------------
# Internal steps of a pipeline, probed on the arguments a real run gives them


def record(target: Any, run: Callable[[], Any], *, index: int = 0) -> tuple[tuple, dict]:
    """The (args, kwargs) of the ``index``-th call of ``target`` while ``run()`` executes; see
    ``record_many``. Raises LookupError when there is no such call."""
    return record_many([target], run, index=index)[_key(target)]


def _key(target: Any) -> Any:
    return target if isinstance(target, tuple) else id(target)


def record_many(targets: list, run: Callable[[], Any], *, index: int = 0, missing: str = "raise", seed: int = 0) -> dict:
    """The (args, kwargs) of the ``index``-th call of each target while ``run()`` executes once
    (under ``seed``, no_grad), keyed by the target (a method's ``(cls, name)``, a function's id).

    A target is a function (every loaded kornia module that holds it under some name sees the
    recorder, so callers that imported it are caught too) or ``(cls, "method")`` (then ``args[0]``
    is the instance). Tensors are cloned at the call, so later in-place edits do not change them.
    A target without such a call raises LookupError (the pipeline changed: the registry must be
    revisited), or with ``missing="skip"`` is left out of the result."""
    import inspect
    import sys

    calls: dict = {_key(t): [] for t in targets}
    sites: list = []

    def spy_for(key: Any, fn: Callable[..., Any]) -> Callable[..., Any]:
        def spy(*args: Any, **kwargs: Any) -> Any:
            if len(calls[key]) <= index:
                calls[key].append((_frozen(args), _frozen(kwargs)))
            return fn(*args, **kwargs)

        return spy

    modules = [m for m in list(sys.modules.values()) if getattr(m, "__name__", "").startswith("kornia")]
    for target in targets:
        if isinstance(target, tuple):
            cls, name = target
            raw = inspect.getattr_static(cls, name)
            fn = raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw
            kind = type(raw)
            spy = spy_for(_key(target), fn)
            sites.append((cls, name, raw if name in vars(cls) else None, kind(spy) if kind in (staticmethod, classmethod) else spy))
        else:
            spy = spy_for(_key(target), target)
            sites += [(m, n, v, spy) for m in modules for n, v in list(vars(m).items()) if v is target]
    for owner, name, _, spy in sites:
        setattr(owner, name, spy)
    try:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            with torch.no_grad():
                run()
    finally:
        for owner, name, raw, _ in reversed(sites):
            if raw is None:
                delattr(owner, name)  # it was inherited: the class had no attribute of its own
            else:
                setattr(owner, name, raw)
    out = {}
    for target in targets:
        got = calls[_key(target)]
        if len(got) > index:
            out[_key(target)] = got[index]
        elif missing == "raise":
            name = getattr(target[0], "__name__", "?") + "." + target[1] if isinstance(target, tuple) else target.__qualname__
            raise LookupError(f"{name} was called {len(got)} times, not {index + 1}")
    return out


def _is_tensor_record(value: Any) -> bool:
    """A kornia object that holds tensors in its attributes (Boxes, Keypoints, their 3-D forms)."""
    if isinstance(value, (torch.Tensor, nn.Module, type)) or not type(value).__module__.startswith("kornia"):
        return False
    attrs = getattr(value, "__dict__", None)
    return isinstance(attrs, dict) and any(isinstance(v, torch.Tensor) for v in attrs.values())


class _Rebuilt:
    """A kornia object among a replayed call's arguments, rebuilt on every call from its attributes
    with its tensors live graph inputs. Kept as it was recorded, the object was shared by every
    call: an in-place method (``transform_boxes`` edits its Boxes) made each call see the previous
    call's result, and the capture "differed" from eager by a transform applied twice."""

    def __init__(self, cls: type, attrs: dict):
        self.cls = cls
        self.attrs = attrs

    def __repr__(self) -> str:
        return f"<{self.cls.__name__} rebuilt per call>"


def _frozen(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if _is_tensor_record(value):  # its tensors as they are at the call, like a tensor argument's
        copy = object.__new__(type(value))
        copy.__dict__.update(_frozen(dict(vars(value))))
        return copy
    if isinstance(value, tuple):
        return _rebuild(value, [_frozen(v) for v in value])
    if isinstance(value, list):
        return [_frozen(v) for v in value]
    if isinstance(value, dict):
        return {k: _frozen(v) for k, v in value.items()}
    return value


class _ReplayedInput:
    """Where the i-th tensor input goes in a replayed call."""

    def __init__(self, i: int):
        self.i = i

    def __repr__(self) -> str:
        return f"<input {self.i}>"


def _rebuild(value: tuple, items: list) -> tuple:
    """A tuple of the same type (named tuples keep their class)."""
    return type(value)(*items) if hasattr(value, "_fields") else tuple(items)


def _split(value: Any, tensors: list[torch.Tensor]) -> Any:
    if isinstance(value, torch.Tensor):
        tensors.append(value)
        return _ReplayedInput(len(tensors) - 1)
    if _is_tensor_record(value):
        return _Rebuilt(type(value), _split(dict(vars(value)), tensors))
    if isinstance(value, tuple):
        return _rebuild(value, [_split(v, tensors) for v in value])
    if isinstance(value, list):
        return [_split(v, tensors) for v in value]
    if isinstance(value, dict):
        return {k: _split(v, tensors) for k, v in value.items()}
    return value


def _fill(value: Any, inputs: tuple) -> Any:
    if isinstance(value, _ReplayedInput):
        return inputs[value.i]
    if isinstance(value, _Rebuilt):
        obj = object.__new__(value.cls)
        obj.__dict__.update(_fill(value.attrs, inputs))
        return obj
    if isinstance(value, tuple):
        return _rebuild(value, [_fill(v, inputs) for v in value])
    if isinstance(value, list):
        return [_fill(v, inputs) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, inputs) for k, v in value.items()}
    return value


def method_function(cls: type, name: str) -> Callable[..., Any]:
    """The function behind ``cls.<name>`` (unwrapped from staticmethod / classmethod)."""
    import inspect

    raw = inspect.getattr_static(cls, name)
    return raw.__func__ if isinstance(raw, (staticmethod, classmethod)) else raw


def replay(target: Any, fn: Callable[..., Any], args: tuple, kwargs: dict, *, returns: str = "result",
           post: Callable[[Any], Any] | None = None) -> tuple[nn.Module, list]:
    """A ``Call`` that runs ``fn(*args, **kwargs)`` with every tensor of the arguments (at any depth
    of tuples, lists and dicts) a live graph input, and those tensors in order: ``(module, inputs)``.
    A module among the positional arguments (``self`` of a method) is registered, so its weights
    are part of the graph. ``returns="arguments"`` returns the arguments after the call instead of
    the result: for a step that fills tensors in place and returns None. ``post`` maps the result
    (Python sizes or indices into a tensor, an iterator into a list) so the case has tensor outputs."""
    tensors: list[torch.Tensor] = []
    parts = [a for a in args if isinstance(a, nn.Module)]
    spec = tuple(("part", parts.index(a)) if isinstance(a, nn.Module) else ("value", _split(a, tensors)) for a in args)
    kspec = _split(kwargs, tensors)

    def call(*xs: Any) -> Any:
        mods, inputs = xs[: len(parts)], xs[len(parts):]
        a = [mods[v] if kind == "part" else _fill(v, inputs) for kind, v in spec]
        k = _fill(kspec, inputs)
        out = fn(*a, **k)
        out = (a, k) if returns == "arguments" else out
        return post(out) if post is not None else out

    return Call(target, call, *parts), tensors


def replayed_inputs(args: tuple, kwargs: dict) -> list[torch.Tensor]:
    """The tensors ``replay`` takes as graph inputs from ``(args, kwargs)``, in its order."""
    tensors: list[torch.Tensor] = []
    for a in args:
        if not isinstance(a, nn.Module):
            _split(a, tensors)
    _split(kwargs, tensors)
    return tensors


def fresh_replay(name: str, inputs: list, args: tuple, kwargs: dict) -> tuple | None:
    """The fresh input set of a replayed step: the tensors of the same step's call in a second run
    of its pipeline on other valid data (another scene, other masks and boxes), where the pipeline
    itself makes them consistent (parameters sampled for that data, masks of its inliers). The
    second call must have the structure of the first (as many tensors, the same shapes and
    dtypes) and differ from it somewhere: a RegistryError otherwise (the registry must give that
    step another second run). None for a step whose inputs are integer sizes and indices that the
    second run repeats (the harness keeps such inputs as they are)."""
    from opsweep.case import RegistryError

    fresh = replayed_inputs(args, kwargs)
    same = len(fresh) == len(inputs) and all(
        a.shape == b.shape and a.dtype == b.dtype for a, b in zip(inputs, fresh))
    if not same:
        raise RegistryError(f"{name}: its call in the second run has another structure "
                            f"({[tuple(t.shape) for t in fresh]} for {[tuple(t.shape) for t in inputs]})")
    if all(torch.equal(a, b) for a, b in zip(inputs, fresh)):
        if not any(t.is_floating_point() for t in inputs):
            return None  # sizes and indices only: the harness keeps them as they are
        raise RegistryError(f"{name}: its call in the second run has the same values")
    return tuple(t.detach().clone().contiguous() for t in fresh)


def _structure(call: tuple) -> list:
    return [(tuple(t.shape), t.dtype) for t in replayed_inputs(*call)]


def record_second_run(targets: list, run: Callable[[], Any], first: dict, *, index: int = 0, seeds: range = range(1, 64)) -> dict:
    """``record_many`` of a pipeline's second run (``run`` on the second data), under the first seed
    of ``seeds`` whose calls have the structure of the first run's (``first``): the same steps
    called, each with as many tensors of the same shapes and dtypes. A random pipeline samples its
    parameters and gates again, and a seed that changes a gate's outcome changes the sub-batches'
    sizes, so the structure test keeps the parameters consistent with the gates (kornia itself
    sampled them together). LookupError when no seed gives the structure."""
    for seed in seeds:
        calls = record_many(targets, run, index=index, missing="skip", seed=seed)
        if calls.keys() >= first.keys() and all(_structure(calls[k]) == _structure(first[k]) for k in first):
            return {k: calls[k] for k in first}
    raise LookupError(f"no seed in {seeds} gives the second run the structure of the first")


def skipped_cases(not_probed: dict[str, str], group: str) -> list[Any]:
    """A skipped case for each callable that cannot be probed offline (``not_probed`` maps its
    dotted name to why): named by its last three parts, the page lists it with the reason."""
    import importlib

    from opsweep import case

    out = []
    for dotted, reason in not_probed.items():
        parts = dotted.split(".")
        for i in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:i]))
                break
            except ImportError:
                continue
        for part in parts[i:]:
            obj = getattr(obj, part)
        out.append(case(".".join(parts[-3:]), group, getattr(obj, "__func__", obj), [], skip=reason))
    return out
