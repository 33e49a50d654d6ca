"""ONNX runtimes beside onnxruntime: the one exported file, run in each, each compared with eager.

The onnx path (paths/onnx.py) exports once, checks the file, runs it in onnxruntime inside the
worker (the path's own status, comparable with earlier snapshots), then hands the same bytes to
every runtime of ``RUNTIMES``. Each runtime's verdict is a *sub-verdict* of the onnx record
(``record["subverdicts"][id]``, docs/formats.md section 3); docs/runtimes.md says how each runtime
is called and why.

Isolation (the design in one paragraph): the runtimes are not imported by the worker. One
persistent *runtime host* per worker (``host.py``, ``python -m opsweep.runtimes.host``) is started
on first use, imports each runtime once, and serves requests (load / compile / run / close) over
two pipes; ``client.py`` sends them with a deadline. A runtime that hangs past its time limit, or
kills the host (a segfault, an abort), costs only its own verdict (``timeout`` / ``crash``): the
host is killed and started again for the next runtime, the worker and its torch state never see
it. Start-up is paid once per worker, not once per job.

A runtime is described once, here: ``RuntimeSpec`` (id, title, label, the adapter class the host
instantiates, the distribution whose version keys the job, its time limit per job).

This package never imports torch, and ``host.py`` / ``adapters.py`` never import opsweep at all:
the host is started as a script, so its start-up costs an interpreter and numpy, not torch.
"""

from __future__ import annotations

import dataclasses

import importlib.metadata


@dataclasses.dataclass(frozen=True)
class RuntimeSpec:
    """One ONNX runtime the onnx path runs its exported file in (besides onnxruntime)."""

    id: str  # persisted (the sub-verdict id): never renamed or reused
    title: str  # "OpenVINO"
    label: str  # short, for the page's compact marks: "OV"
    # "name:Class" (the file name.py beside host.py) or "/abs/file.py:Class" (a test's fake),
    # loaded and instantiated inside the runtime host
    adapter: str
    distribution: str  # the package whose version keys the job ("" when another field covers it)
    time_limit_s: float  # per job: load + compile + every run, together
    description: str = ""
    steps: tuple[str, ...] = ("load", "compile", "run", "compare")  # where its sub-verdict can stop

    def version(self) -> str:
        if not self.distribution:
            return ""
        try:
            return importlib.metadata.version(self.distribution)
        except importlib.metadata.PackageNotFoundError:
            return ""


# The limits bound a job's worst case well inside the engine's job timeout (600 s by default):
# 60 + 60 + 30 s. The reference evaluator is numpy code, slow on convolutions of big inputs; it
# gets half the time (its verdict on such cases is ``timeout``, which says exactly that).
RUNTIMES: tuple[RuntimeSpec, ...] = (
    RuntimeSpec(
        id="openvino",
        title="OpenVINO",
        label="OV",
        adapter="adapters:OpenVINO",
        distribution="openvino",
        time_limit_s=60.0,
        description="OpenVINO on the CPU device, float32 inference precision",
    ),
    RuntimeSpec(
        id="tract",
        title="tract",
        label="tract",
        adapter="adapters:Tract",
        distribution="tract",
        time_limit_s=60.0,
        description="tract (Sonos) through its Python bindings, default CPU runtime (optimised plan)",
    ),
    RuntimeSpec(
        id="reference",
        title="onnx.reference",
        label="ref",
        adapter="adapters:Reference",
        distribution="",  # onnx.reference ships with onnx: the "onnx" field keys it
        time_limit_s=30.0,
        description="onnx.reference.ReferenceEvaluator: the specification's semantics in numpy",
        steps=("load", "run", "compare"),  # no compile step
    ),
)

BY_ID = {spec.id: spec for spec in RUNTIMES}


def versions() -> dict[str, str]:
    """{distribution: version} of every runtime that has a distribution of its own."""
    return {spec.distribution: spec.version() for spec in RUNTIMES if spec.distribution}


_enabled: tuple[RuntimeSpec, ...] = RUNTIMES


def enabled() -> tuple[RuntimeSpec, ...]:
    """The runtimes the onnx path runs (all of ``RUNTIMES`` unless a caller chose otherwise)."""
    return _enabled


def set_enabled(runtimes: tuple[RuntimeSpec, ...]) -> None:
    """Choose the runtimes (benchmarks measure the path without them; tests plant fakes)."""
    global _enabled
    _enabled = tuple(runtimes)
