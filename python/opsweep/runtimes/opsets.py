"""Other opsets of the onnx path: what ``torch.onnx.export(..., opset_version=N)`` gives a user.

The onnx path's own verdict is opset 18 (``OPSET``), comparable with every earlier snapshot. The
requested opsets (``opsweep run --opset 17,18,23``; the worker's ``--opsets``) add one sub-verdict
each, ``opset<N>``, produced exactly the way torch 2.13's exporter produces opset N
(torch/onnx/_internal/exporter/_compat.py and _core.py):

- N < 18: torch translates with the opset-18 registry (torchlib has nothing older), then calls
  ``onnxscript_apis.convert_version(model, N)`` (onnxscript's version converter, falling back to
  the onnx C API converter) and then optimises. Everything before the conversion is identical to
  the opset-18 export, so the path records the model handed to ``convert_version`` during its one
  export (``ConversionCapture``) and replays the rest: convert, optimise. A converter that fails
  leaves the model at 18 with a logged warning (torch returns it anyway); that is this opset's
  ``fail`` at step ``convert`` (the user asked for N and did not get it), with the warning as error.
- N > 18: torch builds the registry at opset N (implementations introduced after 18 become
  eligible) and traces with opset N, so nothing of the opset-18 export can be reused: the model
  is exported again, ``torch.onnx.export(opset_version=N)`` (step ``export``).
Then, for every N: ``onnx.checker`` (full check), onnxruntime (the onnx path's session options),
and the same fidelity checks as the path itself. Other runtimes run on opset 18 only.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
from typing import Any, Iterator

OPSET = 18  # the onnx path's own opset: its status is this opset's
MIN_OPSET = 7  # the oldest opset onnx's C API version converter targets

_requested: tuple[int, ...] = (OPSET,)


def max_opset() -> int:
    """The newest opset the installed onnx knows (torch.onnx accepts up to it)."""
    import onnx

    return int(onnx.defs.onnx_opset_version())


def newest_converter_opset() -> int:
    """The newest opset the pinned onnxscript's own version converter supports."""
    from onnxscript.version_converter import _version_converter

    return int(_version_converter.SUPPORTED_MAX_ONNX_OPSET)


def parse_opsets(text: str) -> tuple[tuple[int, ...] | None, str]:
    """``"17,18,23"`` -> ((17, 18, 23), "") or (None, one-line error). 18 is always included.

    An opset above 18 that this environment's onnxruntime cannot load is refused, except when
    ``$OPSWEEP_OPSETS_AS_STORED`` is set: ``opsweep explain`` describes stored results with their
    own opsets, which it does not run."""
    import os

    stored = bool(os.environ.get("OPSWEEP_OPSETS_AS_STORED"))
    values: set[int] = {OPSET}
    top = max_opset()
    for part in text.split(","):
        part = part.strip()
        if not part:
            return None, f"--opset {text!r}: an empty entry (expected integers like 17,18,23)"
        if not part.isdigit():
            return None, f"--opset {text!r}: {part!r} is not an opset number"
        n = int(part)
        if not MIN_OPSET <= n <= top:
            return None, (f"--opset {text!r}: opset {n} is outside {MIN_OPSET}..{top}, the opsets that this environment's "
                          f"onnx {_onnx_version()} knows")
        if n > OPSET and not stored and not onnxruntime_loads(n):
            newest = max((k for k in range(OPSET, n) if onnxruntime_loads(k)), default=OPSET)
            return None, (f"--opset {text!r}: this environment's onnxruntime {_onnxruntime_version()} does not load "
                          f"opset {n} models (the newest it loads is {newest}): every sub-verdict of opset {n} would "
                          f"fail at ort-load")
        values.add(n)
    return tuple(sorted(values)), ""


def onnxruntime_loads(opset: int) -> bool:
    """Whether onnxruntime loads a one-node model (Identity) at ``opset``, stamped with the oldest IR
    version that opset allows: an opset newer than the runtime knows fails at load for every model
    (onnxruntime 1.23.2, torch 2.9.1's, refuses opset 24: "ValidateOpsetForDomain")."""
    import onnx
    import onnxruntime
    from onnx import TensorProto, helper

    value = helper.make_tensor_value_info
    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "opset_probe",
                              [value("x", TensorProto.FLOAT, [1])], [value("y", TensorProto.FLOAT, [1])])
    ops = [helper.make_opsetid("", opset)]
    model = helper.make_model(graph, opset_imports=ops, ir_version=helper.find_min_ir_version_for(ops))
    try:
        onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    except Exception:  # noqa: BLE001 - any refusal of this model is a refusal of the opset
        return False
    return True


def _onnxruntime_version() -> str:
    import onnxruntime

    return str(onnxruntime.__version__)


def _onnx_version() -> str:
    import onnx

    return str(onnx.__version__)


def set_requested(opsets: tuple[int, ...]) -> None:
    global _requested
    _requested = tuple(sorted(set(opsets) | {OPSET}))


def requested() -> tuple[int, ...]:
    return _requested


def extra() -> tuple[int, ...]:
    """The requested opsets other than the path's own."""
    return tuple(n for n in _requested if n != OPSET)


def subverdict_id(opset: int) -> str:
    return f"opset{opset}"


def conversion_step(opset: int) -> str:
    """Where an opset's model is made: ``convert`` below 18 (a replayed conversion), ``export`` above."""
    return "convert" if opset < OPSET else "export"


def apis_name() -> str:
    """The name of the onnxscript framework-API module torch.onnx calls
    (``onnxscript._framework_apis.torch_2_9`` under torch 2.9)."""
    return _apis().__name__


def _apis() -> Any:
    """The onnxscript framework-API module torch.onnx calls (``_lazy_import.onnxscript_apis``)."""
    from torch.onnx._internal import _lazy_import

    name = getattr(_lazy_import.onnxscript_apis, "_name", None) or getattr(
        _lazy_import.onnxscript_apis, "__name__", None
    )
    return importlib.import_module(name)


class ConversionCapture:
    """Around the path's one export: keeps the model torch hands to ``convert_version`` (a
    serialized copy, taken before the conversion runs) when an opset below 18 was requested.

    ``model`` is None when nothing was captured (no such opset requested, or the export failed
    before its conversion step).
    """

    def __init__(self, wanted: bool):
        self.wanted = wanted
        self.model: Any = None  # onnx.ModelProto

    @contextlib.contextmanager
    def around_export(self) -> Iterator[None]:
        if not self.wanted:
            yield
            return
        apis = _apis()
        original = apis.convert_version

        def convert_version(model: Any, target_version: int) -> Any:
            if self.model is None:
                from onnxscript import ir

                self.model = ir.to_proto(model)
            return original(model, target_version)

        apis.convert_version = convert_version
        try:
            yield
        finally:
            apis.convert_version = original


class ConversionFailed(RuntimeError):
    """The converted model is not at the requested opset (torch would return it anyway)."""

    # its name in records wherever this file was loaded from (the runtime host loads it by path)
    __module__ = "opsweep.runtimes.opsets"


class _Collect(logging.Handler):
    """The converter's warnings; those that carry an exception are what went wrong."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []
        self.errors: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            self.errors.append(f"{type(exc).__name__}: {exc}")

    def summary(self) -> str:
        return "; ".join(dict.fromkeys(self.errors or self.lines)) or "no message"


def convert(captured: Any, opset: int, apis: Any = None) -> Any:
    """Replay torch's ``convert_version(model, N)`` + optimise on the captured opset-18 model
    (``apis``: torch's onnxscript framework-API module, found through torch when None).

    Returns the ModelProto; raises ConversionFailed (with the converter's warnings) when the
    result is not at ``opset``.
    """
    from onnxscript import ir

    apis = _apis() if apis is None else apis
    model = ir.from_proto(captured)
    collect = _Collect()
    loggers = [logging.getLogger(name) for name in ("onnxscript.version_converter", "onnxscript")]
    for lg in loggers:
        lg.addHandler(collect)
    try:
        apis.convert_version(model, opset)
    finally:
        for lg in loggers:
            lg.removeHandler(collect)
    model = apis.optimize(model)
    proto = ir.to_proto(model)
    got = model_opset(proto)
    if got != opset:
        raise ConversionFailed(
            f"torch.onnx.export(opset_version={opset}) returns a model at opset {got}: the version "
            f"conversion failed ({collect.summary()})"
        )
    return proto


def model_opset(model: Any) -> int | None:
    for entry in model.opset_import:
        if entry.domain in ("", "ai.onnx"):
            return int(entry.version)
    return None


def convert_serialized(model: bytes, opset: int, apis: str) -> bytes:
    """``convert`` on a serialized ModelProto, with the framework-API module named: what the
    runtime host runs for the request ``{"op": "convert", ...}`` (host.py). It runs there, not in
    the worker, because the conversion can kill its process: below opset 18, torch 2.9's
    onnxscript (0.5.4) hands the conversion to onnx's C API version converter, which died with
    SIGSEGV in at least eleven onnx jobs of the torch 2.9.1 survey (``adjust_contrast``, ``psnr_loss``, ...,
    inside ``onnx.version_converter.convert_version``), and with the worker went the path's own
    opset-18 verdict. In the host only this opset's sub-verdict is lost (``crash``)."""
    import onnx

    proto = onnx.ModelProto.FromString(model)
    return bytes(convert(proto, opset, importlib.import_module(apis)).SerializeToString())
