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

Fresh inputs: every captured program is also run on a second input set (the harness redraws each
floating input uniformly in its own [min, max]). For an input with structure (a rotation, a camera,
a homography, boxes, a LAF, a 0/1 mask) such a redraw is not a valid input, and a difference there
would be a false verdict. The helpers that build such inputs declare a valid second value for them,
built the same way with another seed (``structured(trace, fresh)``, ``derived(fn, *args)`` for an
input computed from structured ones); this module's ``case`` gives a case whose inputs include a
declared tensor its own fresh set (``fresh_set``): the declared second values, every other floating
input redrawn as the harness would. Registries with structured inputs import ``case`` from here.
"""

from __future__ import annotations

import copy
import hashlib
from typing import Any, Callable, Mapping, Sequence

import torch
from torch import nn

from opsweep.case import RegistryError
from opsweep.case import case as _case


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
    """The identity (no second value is declared: an identity often means "no transform")."""
    return torch.eye(3).expand(batch_size, 3, 3).contiguous()


def _homography(seed: int, batch_size: int) -> torch.Tensor:
    h = torch.eye(3).expand(batch_size, 3, 3) + rand(batch_size, 3, 3, seed=seed, low=-0.05, high=0.05)
    h = h.clone()
    h[:, 2, 2] = 1.0
    h[:, 2, :2] *= 0.01
    return h.contiguous()


def homography(seed: int = 7, batch_size: int = 1) -> torch.Tensor:
    """A mild, well-conditioned homography (identity plus a small perturbation); its second value is
    the one of seed + FRESH_OFFSET."""
    return structured(_homography(seed, batch_size), _homography(seed + FRESH_OFFSET, batch_size))


def _camera(batch_size: int, fx: float, fy: float, cx: float, cy: float) -> torch.Tensor:
    k = torch.tensor([[fx, 0.0, cx], [0.0, fy, cy], [0.0, 0.0, 1.0]])
    return k.expand(batch_size, 3, 3).contiguous()


def camera_matrix(batch_size: int = 1, fx: float = 40.0, fy: float = 40.0, cx: float = 20.0, cy: float = 16.0) -> torch.Tensor:
    """Pinhole intrinsics; the second value is another camera (focal lengths 10 % and 5 % longer,
    the principal point moved by 1.5 and -1 pixels)."""
    return structured(_camera(batch_size, fx, fy, cx, cy), _camera(batch_size, fx * 1.1, fy * 1.05, cx + 1.5, cy - 1.0))


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
    from opsweep.case import _LOADING

    return _LOADING[-1] if _LOADING else ""


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


def _generator(text: str) -> torch.Generator:
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
    return redraw(x, _generator(_digest(x).hex()))


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
    gen = _generator("fresh:" + name)
    return tuple(s if s is not None else redraw(x, gen) for x, s in zip(inputs, seconds))


def case(name: str, group: str, target: Any, inputs: Sequence[Any], **kwargs: Any) -> Any:
    """``opsweep.case``, with ``fresh_inputs=fresh_set(name, inputs)`` unless the case gives its own."""
    if kwargs.get("fresh_inputs") is None:
        kwargs["fresh_inputs"] = fresh_set(name, [inputs] if isinstance(inputs, torch.Tensor) else inputs)
    return _case(name, group, target, inputs, **kwargs)
