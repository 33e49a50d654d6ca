"""Wrappers: modules that make a public callable a case target when it cannot be one as it is.

A case's target is called as ``target(*inputs, **kwargs)``. When a public callable cannot be called
that way (a tensor argument after a Python-valued one, a Python object that is not a plain kwarg, a
method of an object rebuilt from tensors, recorded augmentation parameters), the case wraps it in
one of the modules below. Each name says what its forward does; each sets ``__opsweep_target__`` to
the public object it surveys, so the page and coverage name that object, not the wrapper.

    Positional(fn, **fixed)          fn(*inputs, **fixed, **kwargs)
    ByName(fn, names, **fixed)       fn(**dict(zip(names, inputs)), **fixed, **kwargs)
    Assembled(fn, names, assemble)   fn(*args, **kw) with (args, kw) = assemble(**dict(zip(names, inputs)))
    Forward(surveys, fn)             fn(*inputs, **kwargs): a forward written in the registry
    method_call(cls, name, fn)       the same, reachable as the attribute ``name`` (for ``method=name``)
    ModuleCall(module, fn)           fn(module, *inputs), the module registered as a child
    WithParams(module, template, n)  module(*inputs[:n], params=<inputs[n:] put back into template>)
    Built(builder, model)            model(*inputs), surveyed under the builder that made it

Their code is part of every case that uses them: a case fingerprint hashes a wrapper's code, not the
module it lives in (``opsweep.fingerprint.hashed_by_code``), so editing a wrapper re-probes the cases
that use it and moving one re-probes nothing.

A wrapper that only forwards its call to one function declares how (``__opsweep_forwards__()``
gives a ``Forwarding``): ``opsweep repro`` then writes a script that calls that function directly
through the declaration, instead of carrying the wrapper. The declaration says what the wrapper's
forward does, so it is left out of the fingerprint (a reproducer reads it, no job runs it).
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any, Callable, Mapping, Sequence

import torch
from torch import nn

__all__ = [
    "Assembled",
    "Built",
    "ByName",
    "Forward",
    "Forwarding",
    "ModuleCall",
    "ParamSlot",
    "Positional",
    "WithParams",
    "join_params",
    "method_call",
    "split_params",
]


@dataclasses.dataclass(frozen=True)
class Forwarding:
    """How a wrapper forwards its call to one function: ``fn(*inputs, **fixed, **kwargs)`` when
    ``names`` is None, else ``fn(**dict(zip(names, inputs)), **fixed, **kwargs)``; calling it makes
    that call. A wrapper that only forwards declares it (``__opsweep_forwards__``): ``opsweep repro``
    calls ``fn`` through it, and a test holds it to the wrapper's own forward."""

    fn: Callable[..., Any]
    fixed: Mapping[str, Any]
    names: tuple[str, ...] | None = None

    def __call__(self, *inputs: Any, **kwargs: Any) -> Any:
        if self.names is None:
            return self.fn(*inputs, **self.fixed, **kwargs)
        return self.fn(**dict(zip(self.names, inputs)), **self.fixed, **kwargs)


class Positional(nn.Module):
    """``fn(*inputs, **fixed, **kwargs)``: the tensor inputs positionally, plus Python objects that
    cannot be plain case kwargs (a ColorMap, a CFA) baked in ``fixed``."""

    def __init__(self, fn: Callable[..., Any], *, surveys: Any = None, **fixed: Any):
        super().__init__()
        self.fn = fn
        self.fixed = fixed
        self.__opsweep_target__ = fn if surveys is None else surveys

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        return self.fn(*inputs, **self.fixed, **kwargs)

    def __opsweep_forwards__(self) -> Forwarding:
        """What forward does: ``fn`` with the inputs positionally (see ``Forwarding``)."""
        return Forwarding(self.fn, self.fixed)


class ByName(nn.Module):
    """``fn(**dict(zip(names, inputs)), **fixed, **kwargs)``: each tensor input bound to the parameter
    it is named after (tensor arguments that follow a Python-valued one, keyword-only ones), plus
    baked ``fixed`` arguments. Exactly one input per name."""

    def __init__(self, fn: Callable[..., Any], names: Sequence[str] = (), *, surveys: Any = None, **fixed: Any):
        super().__init__()
        self.fn = fn
        self.names = tuple(names)
        self.fixed = fixed
        self.__opsweep_target__ = fn if surveys is None else surveys

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        if len(inputs) != len(self.names):
            raise TypeError(f"ByName: {len(inputs)} inputs for the {len(self.names)} names {list(self.names)}")
        return self.fn(**dict(zip(self.names, inputs)), **self.fixed, **kwargs)

    def __opsweep_forwards__(self) -> Forwarding:
        """What forward does: ``fn`` with each input bound to its name (see ``Forwarding``)."""
        return Forwarding(self.fn, self.fixed, self.names)


class Assembled(nn.Module):
    """``fn(*args, **kw, **fixed)`` where ``(args, kw) = assemble(**dict(zip(names, inputs)))``: for
    APIs that take dicts or lists of tensors, built from the named tensor inputs in forward."""

    def __init__(
        self,
        fn: Callable[..., Any],
        names: Sequence[str],
        assemble: Callable[..., tuple],
        *,
        surveys: Any = None,
        **fixed: Any,
    ):
        super().__init__()
        self.fn = fn
        self.names = tuple(names)
        self.assemble = assemble
        self.fixed = fixed
        self.__opsweep_target__ = fn if surveys is None else surveys

    def forward(self, *inputs: Any) -> Any:
        if len(inputs) != len(self.names):
            raise TypeError(f"Assembled: {len(inputs)} inputs for the {len(self.names)} names {list(self.names)}")
        args, kwargs = self.assemble(**dict(zip(self.names, inputs)))
        return self.fn(*args, **kwargs, **self.fixed)


class Forward(nn.Module):
    """A forward written in the registry: ``outputs(fn(*inputs, **kwargs))`` (``outputs`` defaults to
    the identity; geometry registries use it to take the tensors out of a library's geometry object).
    ``surveys`` is the public API the function calls in a particular way."""

    def __init__(self, surveys: Any, fn: Callable[..., Any], *, outputs: Callable[[Any], Any] | None = None):
        super().__init__()
        self.__opsweep_target__ = surveys
        self.fn = fn
        self.outputs = outputs

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        out = self.fn(*inputs, **kwargs)
        return out if self.outputs is None else self.outputs(out)


# one subclass of Forward per method name, whose attribute <name> is its forward
_METHOD_CALLS: dict[str, type] = {}


def method_call(cls: type, name: str, fn: Callable[..., Any], *, outputs: Callable[[Any], Any] | None = None) -> Forward:
    """A ``Forward`` around ``fn`` whose attribute ``name`` is also its forward, for a case with
    ``method=name``: ``fn`` rebuilds an object of ``cls`` from the tensor inputs and calls its method
    ``name``, so the object's state is a live graph input, not a baked constant."""
    sub = _METHOD_CALLS.get(name)
    if sub is None:
        sub = type(f"MethodCall_{name.strip('_')}", (Forward,), {name: Forward.forward, "__module__": __name__})
        _METHOD_CALLS[name] = sub
    return sub(cls, fn, outputs=outputs)


class ModuleCall(nn.Module):
    """``fn(module, *inputs)``: a call structure other than ``module(*inputs)`` (a dict input,
    forward then inverse, per-child dispatch), with ``module`` registered as a child so that its
    parameters, buffers and train/eval mode belong to the graph."""

    def __init__(self, module: nn.Module, fn: Callable[..., Any], surveys: Any):
        super().__init__()
        self.module = module
        self.fn = fn
        self.__opsweep_target__ = surveys

    def forward(self, *inputs: Any) -> Any:
        return self.fn(self.module, *inputs)


class _Slot:
    """Where the i-th parameter input goes back into a parameter structure."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index

    def __repr__(self) -> str:
        return f"<param input {self.index}>"


# The public name of a slot. The class keeps its first name: a slot's repr and the name in its
# member descriptor reach the fingerprints of every case whose template holds one.
ParamSlot = _Slot


def _split(obj: Any, tensors: list, keys: list, path: str, key: str | None, baked: frozenset) -> Any:
    """Replace each sampled tensor of a parameter structure by a _Slot; collect the tensors in order."""
    if isinstance(obj, torch.Tensor):
        if key in baked:
            return obj.clone()
        tensors.append(obj.detach().clone().contiguous())
        keys.append(path)
        return _Slot(len(tensors) - 1)
    if isinstance(obj, dict):
        return {k: _split(v, tensors, keys, f"{path}.{k}" if path else str(k), k, baked) for k, v in obj.items()}
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # ParamItem, PatchParamItem
        return type(obj)(*[_split(v, tensors, keys, f"{path}.{f}" if path else f, None, baked) for f, v in zip(obj._fields, obj)])
    if isinstance(obj, (list, tuple)):
        return type(obj)(_split(v, tensors, keys, f"{path}[{i}]", None, baked) for i, v in enumerate(obj))
    return copy.deepcopy(obj)


def split_params(params: Any, baked: frozenset = frozenset()) -> tuple:
    """(template, tensors, paths): the parameter structure with its sampled tensors taken out as
    inputs; tensors under a key in ``baked`` (shape records) stay in the template as constants."""
    tensors: list = []
    paths: list = []
    template = _split(params, tensors, paths, "", None, frozenset(baked))
    return template, tensors, paths


def join_params(template: Any, inputs: Sequence[torch.Tensor]) -> Any:
    """Rebuild a parameter structure from its template and the parameter inputs (fresh containers each call)."""
    if isinstance(template, _Slot):
        return inputs[template.index]
    if isinstance(template, torch.Tensor):
        return template
    if isinstance(template, dict):
        return {k: join_params(v, inputs) for k, v in template.items()}
    if isinstance(template, tuple) and hasattr(template, "_fields"):
        return type(template)(*[join_params(v, inputs) for v in template])
    if isinstance(template, (list, tuple)):
        return type(template)(join_params(v, inputs) for v in template)
    return template


class WithParams(nn.Module):
    """An augmentation replayed with parameters recorded once: the first ``n_data`` inputs are the
    data, the rest the sampled tensors of ``template`` (``split_params``). Forward puts them back
    (``join_params``) and calls ``module(*data, params=params, **call_kwargs)``, or
    ``call(module, params, *data)`` for other call structures."""

    def __init__(
        self,
        module: nn.Module,
        template: Any,
        n_data: int,
        surveys: Any,
        *,
        call: Callable[..., Any] | None = None,
        call_kwargs: Mapping[str, Any] | None = None,
    ):
        super().__init__()
        self.module = module
        self.template = template
        self.n_data = n_data
        self.call = call
        self.call_kwargs = dict(call_kwargs or {})
        self.__opsweep_target__ = surveys

    def forward(self, *inputs: torch.Tensor) -> Any:
        data, param_inputs = inputs[: self.n_data], inputs[self.n_data :]
        params = join_params(self.template, param_inputs)
        if self.call is None:
            return self.module(*data, params=params, **self.call_kwargs)
        return self.call(self.module, params, *data)


class Built(nn.Module):
    """The model a public builder returns, surveyed under that builder (its `__opsweep_target__`)."""

    def __init__(self, builder, model):
        super().__init__()
        self.__opsweep_target__ = builder
        self.model = model

    def forward(self, *args):
        return self.model(*args)

