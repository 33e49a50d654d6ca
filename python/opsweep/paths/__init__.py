"""Capture paths: a path is a name plus a probe function (see paths/base.py for the contract).

A new axis (dynamic shapes, AOTInductor, another opset, CUDA) is a new module here and one entry
in ``PATHS``; nothing else in the harness changes. The order of ``PATHS`` is the order reported
in the worker's ``hello``.
"""

from __future__ import annotations

from opsweep.paths.base import Outcome, Probe, ProbeContext
from opsweep.paths.compile import probe_compile
from opsweep.paths.export import probe_export
from opsweep.paths.onnx import OPSET, probe_onnx

PATHS: dict[str, Probe] = {
    "onnx": probe_onnx,
    "export": probe_export,
    "compile": probe_compile,
}

__all__ = ["OPSET", "PATHS", "Outcome", "Probe", "ProbeContext", "probe_compile", "probe_export", "probe_onnx"]
