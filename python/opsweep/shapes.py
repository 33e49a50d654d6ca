"""Which dimensions of a case may vary, the other shapes the dynamic-shape paths run at, and the
inputs drawn at those shapes (docs/dynamic-shapes.md).

Contract:
- ``plan_for(case)`` decides the varied dimensions, in this order of precedence: the case's own
  ``dynamic=`` (``{input index: dims}``, or an opt-out reason string); an entry of an override
  module (``OVERRIDE_MODULES``: ``opsweep_suites/<suite>/_dynamic_overrides.py``, a dict
  ``DYNAMIC`` keyed by case name, see ``parse_override``); else the defaults:
  * dimension 0 (batch) of every tensor input whose dimension 0 has the first input's size
    (the first input must have at least one dimension);
  * the last two dimensions (H, W) of every image-like input: a floating 4-D input whose H and W
    are at least MIN_SPATIAL (8), and the last three (D, H, W) of such a 5-D input (smaller
    trailing sizes are kernels, LAFs ``BxNx2x3`` or broadcast parameters ``Bx1x1x1``);
  * in every other input, the first run of consecutive dimensions (after dimension 0, or the
    whole shape) whose sizes equal an image-like input's (D,) H, W: masks ``BxHxW``, label and
    depth maps ``Bx1xHxW``, point maps and grids ``BxHxWx2`` follow their image.
  Dimensions of size 0 never vary. A plan with no varied dimension carries why (``Plan.why``).
- ``Plan.shapes`` are three shapes per input: ``[0]`` the case's own (the trace shape), ``[1]`` and
  ``[2]`` two others. Each original size of a varied dimension maps to the same new size wherever it
  occurs (two inputs with the same batch keep the same batch; a square stays square), distinct
  original sizes map to distinct new sizes in the same order, and every new size is larger than the
  original and keeps its divisibility: a size n is stepped by m, the largest power of two dividing n
  (at most 16): 1 -> 2, 3; 32 -> 48, 64; 40 -> 48, 56 (or the next free multiple of m when an
  other size took it). An override may give the other shapes outright.
- ``inputs_at(case, shapes)`` draws an input set at the given shapes: an input whose shape is
  unchanged is the case's own; a floating input whose image dimensions (H, W, D, as
  ``spatial_dims`` finds them) grow gets values drawn uniformly in [min, max] of the original (as
  ``draw_fresh_inputs`` does), unless the case opted out of fresh values; every other changed
  input (integer and bool inputs, inputs that only gain batch items or points: matrices,
  intrinsics, boxes, parameters, whose structure random values would break and whose
  conditioning would make the comparison about numerics, not shapes) is resampled from the
  original (nearest index along the default spatial dims;
  cyclic repetition along other dimensions), which keeps indices, labels, masks and per-item structure valid. The
  generator is seeded from the case name and the shapes, so a job is reproducible. With
  ``values=RESAMPLED`` every changed input is resampled: the dynamic paths fall back to it at a
  shape where eager rejects drawn values (boxes, rotation matrices, cameras).
- Text helpers name dimensions the way the page does: ``batch``, ``H``, ``W``, ``D`` for the
  default roles, ``x1[2]`` (input 1, dimension 2) otherwise; shapes as ``2x3x48x56`` (inputs
  joined with ``, ``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import math
import pkgutil
from typing import Any, Iterable, Mapping, Sequence

import torch

from opsweep.case import Case

MAX_STEP = 16
# Seed of the generator that draws inputs at other shapes (mixed with the case name and shapes).
SHAPES_SEED = 20261215
# Override modules: every ``opsweep_suites/<suite>/_dynamic_overrides.py`` (found once).
OVERRIDE_MODULE_NAME = "_dynamic_overrides"


@dataclasses.dataclass(frozen=True)
class VariedDim:
    input: int
    dim: int
    name: str  # "batch", "H", "W", "D", or "x<input>[<dim>]"


@dataclasses.dataclass(frozen=True)
class Plan:
    """The varied dimensions of a case and the three shapes of every input."""

    dims: tuple[VariedDim, ...]
    shapes: tuple[tuple[tuple[int, ...], ...], ...]  # [shape index][input index] -> shape
    source: str  # "default", "case", "override"
    why: str = ""  # when no dimension varies: why

    @property
    def varies(self) -> bool:
        return bool(self.dims)

    def dims_by_input(self) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        for d in self.dims:
            out.setdefault(d.input, []).append(d.dim)
        return {i: sorted(ds) for i, ds in sorted(out.items())}

    def spatial(self) -> dict[int, tuple[int, ...]]:
        """{input index: its varied dims named D, H or W}."""
        out: dict[int, list[int]] = {}
        for d in self.dims:
            if d.name in ("D", "H", "W"):
                out.setdefault(d.input, []).append(d.dim)
        return {i: tuple(sorted(ds)) for i, ds in out.items()}

    def name_of(self, input_index: int, dim: int) -> str:
        for d in self.dims:
            if d.input == input_index and d.dim == dim:
                return d.name
        return f"x{input_index}[{dim}]"

    def as_record(self) -> dict[str, Any]:
        """The plan's part of ``record["dynamic"]`` (docs/formats.md section 3)."""
        by_input = self.dims_by_input()
        return {
            "dims": {str(i): ds for i, ds in by_input.items()},
            "names": {str(i): [self.name_of(i, d) for d in ds] for i, ds in by_input.items()},
            "source": self.source,
            "shapes": [[list(s) for s in shape_set] for shape_set in self.shapes],
        }


# ---------------------------------------------------------------------------------------------
# Which dimensions vary


def dim_name(x: torch.Tensor, input_index: int, dim: int) -> str:
    """The page's name of a dimension: batch, D, H, W for image-like roles, else ``x1[2]``."""
    rank = x.dim()
    if dim == 0 and rank >= 1:
        return "batch"
    if rank in (4, 5) and dim >= rank - (3 if rank == 5 else 2):
        return "DHW"[dim - (rank - 3)] if rank == 5 else "HW"[dim - (rank - 2)]
    return f"x{input_index}[{dim}]"


MIN_SPATIAL = 8  # an image's H, W (and D) are at least this; smaller trailing dims are not spatial


def _image_spatial(x: torch.Tensor) -> tuple[int, ...] | None:
    """The spatial dims of an image-like input: a floating 4-D (N, C, H, W) or 5-D (N, C, D, H, W)
    tensor whose spatial sizes are all at least MIN_SPATIAL (else it is a kernel, a LAF
    ``Bx N x2x3`` or a broadcast parameter ``Bx1x1x1``); None for anything else."""
    if not x.is_floating_point() or x.dim() not in (4, 5):
        return None
    dims = tuple(range(x.dim() - (3 if x.dim() == 5 else 2), x.dim()))
    return dims if all(x.shape[d] >= MIN_SPATIAL for d in dims) else None


def batch_dims(inputs: Sequence[torch.Tensor]) -> dict[int, tuple[int, ...]]:
    """Dimension 0 of every input whose dimension 0 has the first input's size."""
    if not inputs or inputs[0].dim() < 1:
        return {}
    batch = inputs[0].shape[0]
    return {i: (0,) for i, x in enumerate(inputs) if x.dim() >= 1 and x.shape[0] == batch}


def spatial_dims(inputs: Sequence[torch.Tensor]) -> dict[int, tuple[int, ...]]:
    """The (D,) H, W of image-like inputs, and the dims of other inputs that follow them."""
    out: dict[int, tuple[int, ...]] = {}
    images: set[tuple[int, ...]] = set()
    for i, x in enumerate(inputs):
        dims = _image_spatial(x)
        if dims is not None:
            out[i] = dims
            images.add(tuple(x.shape[d] for d in dims))
            images.add(tuple(x.shape[d] for d in dims[-2:]))
    # masks, label maps, depth maps, point maps and grids follow their image: consecutive dims
    # equal to an image's (D,) H, W: BxHxW, Bx1xHxW, BxHxWx2, HxW
    for i, x in enumerate(inputs):
        if i in out:
            continue
        for sizes in sorted(images, key=len, reverse=True):
            n = len(sizes)
            starts = [0] if x.dim() == n else range(1, x.dim() - n + 1)
            hit = next((p for p in starts if tuple(x.shape[p:p + n]) == sizes), None)
            if hit is not None:
                out[i] = tuple(range(hit, hit + n))
                break
    return out


def spatial_roles(inputs: Sequence[torch.Tensor]) -> dict[tuple[int, int], str]:
    """(input, dim) -> "D", "H" or "W" for the dims ``spatial_dims`` finds (followers included)."""
    out = {}
    for i, ds in spatial_dims(inputs).items():
        for name, d in zip(reversed("DHW"), reversed(ds)):
            out[(i, d)] = name
    return out


def default_dims(inputs: Sequence[torch.Tensor]) -> dict[int, tuple[int, ...]]:
    """The default varied dimensions (see the module docstring), {input index: dims}."""
    out: dict[int, set[int]] = {}
    for part in (batch_dims(inputs), spatial_dims(inputs)):
        for i, ds in part.items():
            out.setdefault(i, set()).update(ds)
    return {i: tuple(sorted(ds)) for i, ds in sorted(out.items())}


def _override_modules() -> list[str]:
    names: list[str] = []
    try:
        import opsweep_suites as registries
    except ImportError:  # no bundled suites installed: no overrides
        return names
    for info in sorted(pkgutil.iter_modules(registries.__path__), key=lambda m: m.name):
        if not info.ispkg:
            continue
        package = f"{registries.__name__}.{info.name}"
        try:
            sub = importlib.import_module(package)
        except Exception:  # noqa: BLE001 - a broken suite has no overrides
            continue
        if any(m.name == OVERRIDE_MODULE_NAME for m in pkgutil.iter_modules(sub.__path__)):
            names.append(f"{package}.{OVERRIDE_MODULE_NAME}")
    return names


OVERRIDE_MODULES: tuple[str, ...] = tuple(_override_modules())
_overrides: dict[str, Any] | None = None


def overrides() -> dict[str, Any]:
    """Every override entry by case name (the ``DYNAMIC`` dicts of OVERRIDE_MODULES, merged)."""
    global _overrides
    if _overrides is None:
        merged: dict[str, Any] = {}
        for name in OVERRIDE_MODULES:
            table = getattr(importlib.import_module(name), "DYNAMIC", {})
            for case_name, entry in table.items():
                if case_name in merged:
                    raise ValueError(f"{name}: dynamic override for {case_name!r} given twice")
                merged[case_name] = entry
        _overrides = merged
    return _overrides


@dataclasses.dataclass(frozen=True)
class Override:
    """A parsed override entry: dims per input, other shapes outright, or an opt-out reason."""

    dims: Mapping[int, tuple[int, ...]] | None = None
    shapes: tuple[tuple[tuple[int, ...], ...], ...] | None = None  # the two other shapes
    opt_out: str | None = None
    only: str | None = None  # "batch" or "spatial": that part of the defaults


def parse_override(case: Case, entry: Any) -> Override:
    """Validate one override entry against its case. Raises ValueError naming the problem.

    An entry is a reason string (not probed at other shapes), ``{input index: dims}`` (like
    ``case(dynamic=)``), ``{"only": "batch"}`` or ``{"only": "spatial"}`` (that part of the
    defaults: the batch dimensions only, e.g. descriptors of fixed-size patches; or the image
    dimensions only, e.g. detectors that take one image), or ``{"shapes": [[shape of each input],
    [shape of each input]]}`` (the two other shapes outright; the varied dimensions are those that
    differ from the case's own).
    """
    where = f"dynamic override for {case.name!r}"
    inputs = case.inputs
    if isinstance(entry, str):
        if not entry.strip():
            raise ValueError(f"{where}: an opt-out needs a reason string")
        return Override(opt_out=entry)
    if not isinstance(entry, Mapping):
        raise ValueError(f"{where}: expected a reason string, {{input index: dims}} or {{'shapes': ...}}")
    if "only" in entry:
        if set(entry) != {"only"} or entry["only"] not in ("batch", "spatial"):
            raise ValueError(f"{where}: 'only' must be 'batch' or 'spatial', alone")
        return Override(only=entry["only"])
    if "shapes" in entry:
        if set(entry) != {"shapes"}:
            raise ValueError(f"{where}: 'shapes' cannot be combined with other keys")
        shapes = entry["shapes"]
        if not isinstance(shapes, (list, tuple)) or len(shapes) != 2:
            raise ValueError(f"{where}: 'shapes' must list the two other shapes")
        out = []
        for k, shape_set in enumerate(shapes, start=1):
            if not isinstance(shape_set, (list, tuple)) or len(shape_set) != len(inputs):
                raise ValueError(f"{where}: other shape {k} must give a shape for each of the {len(inputs)} inputs")
            one = []
            for i, (s, x) in enumerate(zip(shape_set, inputs)):
                s = tuple(int(v) for v in s)
                if len(s) != x.dim() or any(v < 0 for v in s):
                    raise ValueError(f"{where}: other shape {k} of input {i} must have {x.dim()} sizes >= 0")
                one.append(s)
            out.append(tuple(one))
        if all(s == tuple(x.shape) for shape_set in out for s, x in zip(shape_set, inputs)):
            raise ValueError(f"{where}: the other shapes equal the case's own")
        return Override(shapes=tuple(out))
    dims: dict[int, tuple[int, ...]] = {}
    for index, ds in entry.items():
        if not isinstance(index, int) or not 0 <= index < len(inputs):
            raise ValueError(f"{where}: names input {index!r}, the case has {len(inputs)}")
        rank = inputs[index].dim()
        ds = tuple(ds)
        if any(not isinstance(d, int) or not -rank <= d < rank for d in ds):
            raise ValueError(f"{where}: dims {list(ds)} out of range for input {index}")
        dims[index] = tuple(sorted(d % rank for d in ds))
    return Override(dims=dims)


def plan_for(case: Case) -> Plan:
    """The case's varied dimensions and shapes (see the module docstring)."""
    inputs = case.inputs
    own = tuple(tuple(x.shape) for x in inputs)
    if isinstance(case.dynamic, str):
        return Plan((), (own,), "case", f"the case opts out: {case.dynamic}")
    source = "default"
    explicit: tuple[tuple[tuple[int, ...], ...], ...] | None = None
    if case.dynamic is not None:
        dims = dict(case.dynamic)
        source = "case"
    elif case.name in overrides():
        parsed = parse_override(case, overrides()[case.name])
        source = "override"
        if parsed.opt_out is not None:
            return Plan((), (own,), source, f"not probed at other shapes: {parsed.opt_out}")
        if parsed.only is not None:
            dims = dict(batch_dims(inputs) if parsed.only == "batch" else spatial_dims(inputs))
        elif parsed.shapes is not None:
            explicit = parsed.shapes
            dims = {}
            for shape_set in explicit:
                for i, (s, x) in enumerate(zip(shape_set, inputs)):
                    dims.setdefault(i, set()).update(d for d in range(x.dim()) if s[d] != x.shape[d])
            dims = {i: tuple(sorted(ds)) for i, ds in dims.items() if ds}
        else:
            dims = dict(parsed.dims or {})
    else:
        dims = default_dims(inputs)
    roles = spatial_roles(inputs)
    varied = tuple(
        VariedDim(i, d, roles.get((i, d)) or dim_name(inputs[i], i, d))
        for i, ds in sorted(dims.items())
        for d in ds
        if explicit is not None or inputs[i].shape[d] > 0
    )
    if not varied:
        return Plan((), (own,), source, _why_nothing_varies(inputs, source))
    shapes = explicit if explicit is not None else other_shapes(inputs, varied)
    return Plan(varied, (own, *shapes), source)


def _why_nothing_varies(inputs: Sequence[torch.Tensor], source: str) -> str:
    if source != "default":
        return "the case names no dimension of size > 0 to vary"
    if not inputs:
        return "the case has no tensor input"
    return (
        "no dimension may vary by default: the first input has no batch dimension and no input is a "
        "floating 4-D or 5-D image"
        if inputs[0].dim() == 0
        else "no dimension may vary by default (only dimensions of size 0)"
    )


# ---------------------------------------------------------------------------------------------
# Other shapes


def step_of(n: int) -> int:
    """The step a size grows by: the largest power of two dividing it, at most MAX_STEP (1 for 1)."""
    if n < 2:
        return 1
    return min(n & -n, MAX_STEP)


def size_map(sizes: Iterable[int], k: int) -> dict[int, int]:
    """Original size -> its size in other shape ``k`` (1 or 2): larger, same divisibility, and
    strictly increasing over the sorted sizes (so distinct sizes stay distinct)."""
    out: dict[int, int] = {}
    previous = 0
    for n in sorted(set(sizes)):
        m = step_of(n)
        new = n + k * m
        if new <= previous:
            new = n + m * math.ceil((previous + 1 - n) / m)
        out[n] = new
        previous = new
    return out


def other_shapes(inputs: Sequence[torch.Tensor], varied: Sequence[VariedDim]) -> list[tuple[tuple[int, ...], ...]]:
    """The two other shapes of every input (see the module docstring)."""
    sizes = [inputs[v.input].shape[v.dim] for v in varied]
    result = []
    for k in (1, 2):
        mapping = size_map(sizes, k)
        shape_set = []
        for i, x in enumerate(inputs):
            s = list(x.shape)
            for v in varied:
                if v.input == i:
                    s[v.dim] = mapping[x.shape[v.dim]]
            shape_set.append(tuple(s))
        result.append(tuple(shape_set))
    return result


def dynamic_shapes_spec(plan: Plan, inputs: Sequence[torch.Tensor], hint: Any) -> tuple[Any, ...]:
    """``dynamic_shapes`` for torch.export / torch.onnx.export of a ``CaseModule`` (whose forward
    takes ``*inputs``): every varied dimension gets ``hint`` (a ``Dim.AUTO`` / ``Dim.DYNAMIC``),
    an input without one gets None."""
    by_input = plan.dims_by_input()
    per_input = tuple({d: hint for d in by_input[i]} if i in by_input else None for i in range(len(inputs)))
    return (per_input,)


# ---------------------------------------------------------------------------------------------
# Inputs at other shapes


def _stable_seed(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=4).digest(), "little")


def resample(x: torch.Tensor, shape: Sequence[int], spatial: Iterable[int] = ()) -> torch.Tensor:
    """``x`` at ``shape``: nearest index along the ``spatial`` dimensions (H, W, D), cyclic
    repetition along the others. Values are the original's, so they keep their meaning."""
    y = x.detach()
    spatial = set(spatial)
    for d, (old, new) in enumerate(zip(x.shape, shape)):
        if old == new:
            continue
        if old == 0:
            raise ValueError(f"cannot resample dimension {d} of size 0 to {new}")
        if d in spatial:
            index = torch.clamp(((torch.arange(new, dtype=torch.float64) + 0.5) * old / new).floor().long(), 0, old - 1)
        else:
            index = torch.arange(new) % old
        y = y.index_select(d, index)
    return y.contiguous()


def _uniform_like(x: torch.Tensor, shape: Sequence[int], gen: torch.Generator) -> torch.Tensor | None:
    """Values drawn uniformly in [min, max] of ``x`` at ``shape``; None when ``x`` has no range."""
    if not x.is_floating_point() or x.numel() == 0:
        return None
    lo, hi = float(x.min()), float(x.max())
    if not (lo < hi and math.isfinite(lo) and math.isfinite(hi)):
        return None
    u = torch.rand(tuple(shape), generator=gen, dtype=torch.float64)
    return (lo + (hi - lo) * u).to(x.dtype)


DRAWN = "drawn"
RESAMPLED = "resampled"


def inputs_at(case: Case, shapes: Sequence[Sequence[int]], values: str = DRAWN,
              spatial: Mapping[int, Sequence[int]] | None = None) -> tuple[torch.Tensor, ...]:
    """An input set of ``case`` at ``shapes`` (one per input; see the module docstring).
    ``spatial`` ({input: dims}, default ``spatial_dims`` of the case's inputs; the paths pass
    their plan's) says which dimensions are H, W, D.

    ``values`` DRAWN: floating inputs get uniform values in the original's range, unless the case
    opted out of fresh values (then, like integer and bool inputs, they are resampled); RESAMPLED:
    every changed input is resampled from the original (what the dynamic paths fall back to when
    eager rejects drawn values: boxes, rotations and cameras keep their structure that way).
    """
    structured = values == RESAMPLED or case.fresh_inputs is not None
    spatial = dict(spatial_dims(case.inputs) if spatial is None else spatial)
    key = ";".join("x".join(map(str, s)) for s in shapes)
    gen = torch.Generator().manual_seed(SHAPES_SEED ^ _stable_seed(f"{case.name}@{key}"))
    out = []
    for i, (x, shape) in enumerate(zip(case.inputs, shapes)):
        x = x.detach()
        shape = tuple(int(v) for v in shape)
        if shape == tuple(x.shape):
            out.append(x.clone())
            continue
        grows_spatially = any(shape[d] != x.shape[d] for d in spatial.get(i, ()))
        drawn = None if structured or not grows_spatially else _uniform_like(x, shape, gen)
        out.append(drawn if drawn is not None else resample(x, shape, spatial.get(i, ())))
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# Text


def shape_text(shapes: Sequence[Sequence[int]]) -> str:
    """``2x3x48x56`` for one input; inputs joined with ``, ``; a 0-d input is ``scalar``."""
    return ", ".join("x".join(str(v) for v in s) if len(s) else "scalar" for s in shapes)


def names_text(names: Iterable[str]) -> str:
    """Distinct names in the page's order: batch, D, H, W first, then the rest as given."""
    order = {"batch": 0, "D": 1, "H": 2, "W": 3}
    seen: list[str] = []
    for n in names:
        if n not in seen:
            seen.append(n)
    position = {n: k for k, n in enumerate(seen)}
    return ", ".join(sorted(seen, key=lambda n: (order.get(n, 4), position[n])))


def changed_names(plan: Plan, shape: Sequence[Sequence[int]]) -> list[str]:
    """Names of the varied dimensions whose size in ``shape`` differs from the trace shape."""
    own = plan.shapes[0]
    return [v.name for v in plan.dims if shape[v.input][v.dim] != own[v.input][v.dim]]
