"""kornia.onnx: the public methods of its classes. They load, download or run ONNX models in ONNX
Runtime on numpy arrays, so none is a torch operator; each is a skipped case with the reason, so
the page lists it and says why."""

from __future__ import annotations

import kornia.onnx as KONNX
from kornia.onnx import utils as KOU

from opsweep import case
from opsweep_suites.kornia._breadth import method_function

G = "onnx"
CASES = [
    case("ONNXLoader.load_config", G, method_function(KONNX.ONNXLoader, "load_config"), [],
         skip="reads (or downloads) a model's JSON configuration: no tensor computation"),
    case("ONNXLoader.load_model", G, method_function(KONNX.ONNXLoader, "load_model"), [],
         skip="reads (or downloads) an .onnx model: no tensor computation"),
    case("ONNXModule.create_session", G, method_function(KONNX.ONNXModule, "create_session"), [],
         skip="creates an ONNX Runtime session (numpy in and out): not a torch operator"),
    case("ONNXSequential.create_session", G, method_function(KONNX.ONNXSequential, "create_session"), [],
         skip="creates an ONNX Runtime session (numpy in and out): not a torch operator"),
    case("onnx.utils.onnx_type_to_numpy", G, KOU.onnx_type_to_numpy, [],
         skip="maps an ONNX type name to a numpy dtype: no tensor computation"),
]
NOT_SURVEYED: dict = {}
