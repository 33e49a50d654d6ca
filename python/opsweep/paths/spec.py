"""What a capture path is: its description (``PathSpec``), its verdict (``Outcome``), the verdicts
inside its record (``SubVerdict``) and its reproducer (``Reproducer``).

A path is one module of this package that defines ``PATH = PathSpec(...)``; ``paths/__init__.py``
finds every such module, so a new path is one new file. The spec is the only place that says what
the path is: its id, title, short label, description, steps, default expected seconds,
sub-verdicts, the environment fields its results depend on, the record fields it writes beyond
the common ones and which of them the page shows (its facts), how ``opsweep repro`` shows its
failures, and the other harness modules it uses.
The worker's ``hello`` carries ``describe()`` of every spec; the engine plans, keys, validates and
renders from those descriptions (stored in the database and the snapshot), never from a table of
its own.

Contract of a probe (``PathSpec.probe``): ``def probe_xxx(ctx: ProbeContext) -> Outcome``; see
paths/context.py.
"""

from __future__ import annotations

import dataclasses
import platform
from typing import Any, Callable, Mapping

# Steps any job can stop at, whatever its path (docs/formats.md section 1): the job runner's, before
# the probe starts, and the engine's (``worker``: crash, timeout, harness error).
COMMON_STEPS = ("skip", "eager", "no-tensor", "worker")

# Environment fields every job depends on, whatever its path (the library's code is keyed apart).
COMMON_ENV = ("python", "torch", "numpy", "device")


def common_env() -> dict[str, Any]:
    """The values of COMMON_ENV, measured in this interpreter."""
    import numpy
    import torch

    return {"python": platform.python_version(), "torch": torch.__version__, "numpy": numpy.__version__, "device": "cpu"}


def dist_version(name: str) -> str:
    """The installed version of distribution ``name``; "" when it is not installed."""
    import importlib.metadata

    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return ""


@dataclasses.dataclass(frozen=True)
class Outcome:
    """A probe's verdict: the record's status, the step it stopped at ("" when it finished) and
    its detail."""

    status: str
    step: str = ""
    detail: str = ""


@dataclasses.dataclass(frozen=True)
class SubVerdict:
    """A verdict reported inside a path's record beside the path's own (a runtime, an opset)."""

    id: str  # persisted: never renamed or reused
    title: str  # "OpenVINO"
    label: str  # short, for compact marks: "OV"
    # "runtime": the path's own file, run elsewhere (classified by the rules that name it);
    # "opset": the path's own pipeline at another opset (classified by the path's rules too)
    kind: str = "runtime"
    description: str = ""  # one sentence for the page's card
    steps: tuple[str, ...] = ()  # where it can stop, in order (the record's sub-verdict steps)

    def describe(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "label": self.label, "kind": self.kind,
                "description": self.description, "steps": list(self.steps)}


@dataclasses.dataclass(frozen=True)
class Reproducer:
    """How ``opsweep repro`` shows a failure of the path in a standalone script (opsweep/repro.py).

    ``script`` is the path's part of the script: it captures, runs and judges, with the names the
    common part defines (repro.py's module docstring lists them: ``module(flat)``, ``INPUTS``,
    ``check(run, step, what)``, ``failed(what, exc)``, ...). It calls the harness's own functions,
    never copies of them: those named in ``calls`` are carried into the script by their source
    (opsweep/standalone.py), so the script and the probe run the same code.
    """

    script: str
    calls: tuple[Any, ...] = ()  # harness functions (or (module, name) pairs) ``script`` calls
    needs: tuple[str, ...] = ()  # distributions beyond torch, numpy and the library ("onnx", ...)
    # True: the capture runs at the input sets the survey ran (the dynamic-shape paths): the job is
    # run once to learn them, and the script gets the names of repro.py's shape part too
    at_shapes: bool = False
    # files to write beside the script for the bug report: case -> {name: bytes} (the onnx path's
    # exported model.onnx)
    files: Callable[[Any], Mapping[str, bytes]] | None = None


@dataclasses.dataclass(frozen=True)
class PathSpec:
    """Everything the engine and the page need to know about one path, said once."""

    id: str  # persisted: never renamed or reused
    title: str  # "torch.export"
    label: str  # short, where reasons of several paths merge: "export"
    description: str  # one sentence for the page's legend and cards
    steps: tuple[str, ...]  # where a job of this path can stop, in order (COMMON_STEPS come on top)
    expected_seconds: float  # the scheduler's guess for a job with no earlier duration
    probe: Callable[..., Outcome]  # (ProbeContext) -> Outcome: paths/context.py
    # The environment fields (beyond COMMON_ENV) whose values can change this path's results,
    # measured in this interpreter: {"onnxruntime": "1.32.0", ...}. Keys are part of the job key.
    env: Callable[[], dict[str, Any]] = dict
    order: int = 100  # position among the paths: the page's column order, then by id
    # the sub-verdicts its records may hold; a callable when they depend on the worker's options
    # (the onnx path's requested opsets)
    subverdicts: tuple[SubVerdict, ...] | Callable[[], tuple[SubVerdict, ...]] = ()
    uses: tuple[str, ...] = ()  # other harness modules this path runs, e.g. ("opsweep.paths.onnx",)
    group: str = ""  # a heading over the page's columns of the paths that share it ("dynamic shapes")
    # The record fields this path writes beyond the common ones (docs/formats.md section 3), each
    # with the value a record has when it does not measure it: the probe sets them in
    # ``ctx.fields``; every record carries every path's fields (another path's at that value).
    # Paths that write one field declare the same empty value.
    record_fields: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    # `opsweep repro` writes a standalone script for this path's failures; the page shows the
    # repro command only for such paths (the description's ``reproducible``)
    repro: Reproducer | None = None
    # What the page shows beyond the verdict, read from the record fields above (paths/facts.py
    # ``Fact``: the executorch path's share delegated to XNNPACK beside its verdict, and its
    # "runs, but not delegated" filter)
    facts: tuple[Any, ...] = ()
    # Why the path does not compare the module's state with eager's (opsweep/state.py), kept in a
    # stateful case's ``checks["state"]``; "" for a path whose probe compares it (``verify``)
    state_unchecked: str = ""
    module: str = ""  # set by discovery: the module that defines the spec

    def __post_init__(self) -> None:
        if self.facts:
            from opsweep.paths.facts import check_facts

            check_facts(self.id, tuple(self.facts), dict(self.record_fields))

    def subverdict_list(self) -> tuple[SubVerdict, ...]:
        return tuple(self.subverdicts()) if callable(self.subverdicts) else tuple(self.subverdicts)

    def describe(self, harness: str) -> dict[str, Any]:
        """The path as the worker's hello carries it (docs/formats.md section 2)."""
        env_fields = list(COMMON_ENV) + [k for k in self.env() if k not in COMMON_ENV]
        return {
            "id": self.id,
            "title": self.title,
            "label": self.label,
            "description": self.description,
            "steps": list(self.steps),
            "expected_seconds": self.expected_seconds,
            "order": self.order,
            "env": env_fields,
            "subverdicts": [s.describe() for s in self.subverdict_list()],
            "harness": harness,
            **({"group": self.group} if self.group else {}),
            **({"reproducible": True} if self.repro is not None else {}),
            **({"facts": [f.describe() for f in self.facts]} if self.facts else {}),
        }
