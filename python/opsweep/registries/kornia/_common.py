"""Shared inputs and wrappers for the bundled kornia registries.

Every tensor here is made by a generator seeded at the call, so a case's inputs (and therefore its
fingerprint) never depend on how many tensors were made before it: adding a case elsewhere does not
invalidate stored results. Shapes follow the reference survey: images 1x3x32x40, batches 2x3x32x40,
volumes 1x1x8x16x16, detector images 1x1x64x80.

Wrappers: when a public callable cannot be the case target as it is (a tensor argument after a
Python-valued one, a Python object that is not a plain kwarg, a method of an object rebuilt from
tensors, recorded augmentation parameters), the case wraps it in one of the modules below. Each name
says what its forward does; each sets ``__opsweep_target__`` to the public object it surveys, so the
page and coverage name that object, not the wrapper. Their code is part of every case that uses them
(a case fingerprint hashes it), wherever they live.

    Positional(fn, **fixed)          fn(*inputs, **fixed, **kwargs)
    ByName(fn, names, **fixed)       fn(**dict(zip(names, inputs)), **fixed, **kwargs)
    Assembled(fn, names, assemble)   fn(*args, **kw) with (args, kw) = assemble(**dict(zip(names, inputs)))
    Forward(surveys, fn)             fn(*inputs, **kwargs): a forward written in the registry
    method_call(cls, name, fn)       the same, reachable as the attribute ``name`` (for ``method=name``)
    ModuleCall(module, fn)           fn(module, *inputs), the module registered as a child
    WithParams(module, template, n)  module(*inputs[:n], params=<inputs[n:] put back into template>)
    Built(builder, model)            model(*inputs), surveyed under the builder that made it
"""

from __future__ import annotations

import copy
from typing import Any, Callable, Mapping, Sequence

import torch
from torch import nn


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
    the identity; geometry registries use it to take the tensors out of a kornia geometry object).
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


def rand(*shape: int, seed: int = 0, low: float = 0.0, high: float = 1.0, dtype=torch.float32) -> torch.Tensor:
    """Uniform values in [low, high), reproducible from `seed` alone."""
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(*shape, generator=g, dtype=dtype) * (high - low) + low).contiguous()


def randn(*shape: int, seed: int = 0, scale: float = 1.0, dtype=torch.float32) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g, dtype=dtype) * scale).contiguous()


def randint(low: int, high: int, *shape: int, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randint(low, high, shape, generator=g)


def img(seed: int = 1) -> torch.Tensor:
    """An RGB image, 1x3x32x40, values in [0, 1)."""
    return rand(1, 3, 32, 40, seed=seed)


def batch(seed: int = 2) -> torch.Tensor:
    """A batch of two RGB images, 2x3x32x40."""
    return rand(2, 3, 32, 40, seed=seed)


def gray(seed: int = 3) -> torch.Tensor:
    """A grayscale image, 1x1x32x40."""
    return rand(1, 1, 32, 40, seed=seed)


def rgba(seed: int = 4) -> torch.Tensor:
    return rand(1, 4, 32, 40, seed=seed)


def volume(seed: int = 5) -> torch.Tensor:
    """A volume, 1x1x8x16x16."""
    return rand(1, 1, 8, 16, 16, seed=seed)


def detector_image(seed: int = 6) -> torch.Tensor:
    """A grayscale image with structure (blobs and edges), 1x1x64x80, for detectors and descriptors."""
    y = torch.linspace(-1, 1, 64).view(64, 1)
    x = torch.linspace(-1.25, 1.25, 80).view(1, 80)
    pattern = torch.sin(6 * x) * torch.cos(5 * y) + ((x * x + y * y) < 0.3).float()
    noise = rand(64, 80, seed=seed) * 0.1
    out = (pattern - pattern.min()) / (pattern.max() - pattern.min())
    return (0.9 * out + noise).clamp(0, 1).view(1, 1, 64, 80).contiguous()


def identity_homography(batch_size: int = 1) -> torch.Tensor:
    return torch.eye(3).expand(batch_size, 3, 3).contiguous()


def homography(seed: int = 7, batch_size: int = 1) -> torch.Tensor:
    """A mild, well-conditioned homography (identity plus a small perturbation)."""
    h = torch.eye(3).expand(batch_size, 3, 3) + rand(batch_size, 3, 3, seed=seed, low=-0.05, high=0.05)
    h = h.clone()
    h[:, 2, 2] = 1.0
    h[:, 2, :2] *= 0.01
    return h.contiguous()


def camera_matrix(batch_size: int = 1, fx: float = 40.0, fy: float = 40.0, cx: float = 20.0, cy: float = 16.0) -> torch.Tensor:
    k = torch.tensor([[fx, 0.0, cx], [0.0, fy, cy], [0.0, 0.0, 1.0]])
    return k.expand(batch_size, 3, 3).contiguous()
