"""How each runtime is called: load, compile, run. Imported inside the runtime host only.

Contract of an adapter (the host instantiates ``Class(threads)`` once per job and runtime):
- ``load(model: bytes, input_names: list[str])``: parse the ONNX file (a failure is the runtime's
  ``load`` step); ``input_names`` are the graph's inputs, in order (the case's inputs);
- ``compile()``: whatever the runtime does before it can run (typing, shape inference,
  optimisation, kernel selection; a failure is its ``compile`` step); a no-op when it has none;
- ``run(inputs: list[np.ndarray]) -> list[np.ndarray]``: inputs by position (the graph's input
  order, which is the case's input order), outputs in the graph's output order, as numpy arrays
  that own their memory;
- ``clean_message(text)``: the part of an error text a user needs first (the host keeps the whole
  text as the chain).
This module imports numpy and the runtime, never torch or opsweep (see host.py). Every choice
that can change a verdict is written down in docs/runtimes.md.
"""

from __future__ import annotations

import os
import re
import tempfile
from typing import Any

import numpy as np


class Adapter:
    def __init__(self, threads: int):
        self.threads = max(1, int(threads))

    def load(self, model: bytes, input_names: list[str]) -> None:
        raise NotImplementedError

    def compile(self) -> None:
        return None

    def run(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        raise NotImplementedError

    @staticmethod
    def clean_message(text: str) -> str:
        return text


def _check_count(what: str, expected: int, got: int) -> None:
    if expected != got:
        raise ValueError(f"the ONNX graph has {expected} {what}, the case has {got}")


def _own(x: Any) -> np.ndarray:
    """A numpy array that owns its memory; 0-d stays 0-d."""
    return np.array(x, copy=True)


_OV_LOCATION = re.compile(r"^\s*(Exception from|Check '.*' failed at) \S+:\d+:?\s*$")
_OV_CORE: Any = None


class OpenVINO(Adapter):
    """OpenVINO's CPU plugin. ``read_model`` is the load, ``compile_model`` the compile.

    Inference precision is pinned to f32: the CPU plugin's default on CPUs with bf16 units
    (AVX512-BF16, AMX) runs float32 models in bfloat16, which depends on the host and is not what
    the exported file says. One stream, the worker's thread count, no thread pinning (several
    workers share the machine).

    OpenVINO's ONNX reader drops graph inputs that no node uses (the compiled model does not have
    them, and feeding one by name is refused: "Port for tensor name x was not found"); inputs are
    fed by name, and the graph inputs OpenVINO dropped are left out.
    """

    def load(self, model: bytes, input_names: list[str]) -> None:
        self.input_names = list(input_names)
        global _OV_CORE
        import openvino as ov

        if _OV_CORE is None:
            _OV_CORE = ov.Core()
        self.core = _OV_CORE
        self.model = self.core.read_model(model, b"")

    def compile(self) -> None:
        config = {
            "INFERENCE_PRECISION_HINT": "f32",
            "INFERENCE_NUM_THREADS": self.threads,
            "NUM_STREAMS": 1,
            "ENABLE_CPU_PINNING": False,
        }
        self.compiled = self.core.compile_model(self.model, "CPU", config)
        self.request = self.compiled.create_infer_request()

    def run(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        _check_count("inputs", len(self.input_names), len(inputs))
        kept = {name for port in self.compiled.inputs for name in port.get_names()}
        feeds = {name: x for name, x in zip(self.input_names, inputs) if name in kept}
        results = self.request.infer(feeds)
        return [_own(results[port]) for port in self.compiled.outputs]

    @staticmethod
    def clean_message(text: str) -> str:
        """Source locations dropped; the front end's summary ("No conversion rule found for
        operations: Det-18", "Conversion is failed for: GridSample-18") first, with the node's
        validation message when there is one; then the rest of the text."""
        lines = [line.rstrip() for line in text.splitlines() if not _OV_LOCATION.match(line)]
        summary = [
            line.strip()[3:]
            for line in lines
            if line.strip().startswith("-- ")
            and ("No conversion rule found" in line or "Conversion is failed for" in line)
        ]
        why = ""
        for i, line in enumerate(lines[:-1]):
            if line.strip().startswith("While validating ONNX node") and lines[i + 1].strip():
                why = lines[i + 1].strip()
                break
        head = [f"{summary[0]}: {why}" if why else summary[0]] if summary else []
        return "\n".join(head + lines).strip()


class Tract(Adapter):
    """tract through its Python bindings: ``onnx().load(path)`` is the load; ``into_model()``
    (type and shape inference) plus ``into_runnable()`` (the default CPU runtime: an optimised
    plan) the compile. tract 0.22 (the torch 2.9.1 environment's) names them differently:
    ``onnx().model_for_path(path)``, and ``into_optimized()`` (typing and the optimised plan) before
    ``into_runnable()``; each release is called by its own names (calling 0.23's names on 0.22
    failed every load with "'Onnx' object has no attribute 'load'", which is opsweep's error, not
    tract's).

    tract keeps integer shape arithmetic as ``TDim`` (symbolic dimensions); its Python API cannot
    hand a TDim tensor to numpy ("Unsupported DatumType in the public API TDim"), so such outputs
    are converted to int64 with ``Tensor.convert_to`` (what a Rust caller does). tract runs
    single-threaded.
    """

    def load(self, model: bytes, input_names: list[str]) -> None:
        import tract

        self.tract = tract
        with tempfile.TemporaryDirectory(prefix="opsweep-tract-") as tmp:
            path = os.path.join(tmp, "model.onnx")
            with open(path, "wb") as f:
                f.write(model)
            onnx = tract.onnx()
            load = onnx.load if hasattr(onnx, "load") else onnx.model_for_path  # tract >= 0.23 / 0.22
            self.inference = load(path)

    def compile(self) -> None:
        if hasattr(self.inference, "into_model"):  # tract >= 0.23: the runnable is the optimised plan
            typed = self.inference.into_model()
        else:  # tract 0.22: typed and optimised in one step
            typed = self.inference.into_optimized()
        self.runnable = typed.into_runnable()

    def run(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        _check_count("inputs", self.runnable.input_count(), len(inputs))
        outputs = self.runnable.run(list(inputs))
        return [self._numpy(t) for t in outputs]

    def _numpy(self, tensor: Any) -> np.ndarray:
        try:
            return _own(tensor.to_numpy())
        except self.tract.TractError as e:
            if "TDim" not in str(e) or not hasattr(tensor, "convert_to"):  # tract 0.22 cannot convert
                raise
            return _own(tensor.convert_to(self.tract.DatumType.I64).to_numpy())

    @staticmethod
    def clean_message(text: str) -> str:
        return text.split("Stack backtrace:", 1)[0].strip()


class Reference(Adapter):
    """onnx.reference.ReferenceEvaluator: building the evaluator is the load (it resolves every
    node's implementation); it has no compile; inputs are fed by the graph's input names."""

    def load(self, model: bytes, input_names: list[str]) -> None:
        import onnx
        from onnx.reference import ReferenceEvaluator

        proto = onnx.load_model_from_string(model)
        self.session = ReferenceEvaluator(proto)
        self.names = list(self.session.input_names)

    def run(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        _check_count("inputs", len(self.names), len(inputs))
        outputs = self.session.run(None, dict(zip(self.names, inputs)))
        return [_own(x) for x in outputs]
