"""An opset below 18 is converted in the runtime host, not in the worker.

Under torch 2.9.1 (onnxscript 0.5.4) the conversion falls back to onnx's C API version converter,
which died with SIGSEGV inside ``onnx.version_converter.convert_version`` in at least eleven onnx jobs of
the torch 2.9.1 survey, and took the worker, and the path's own opset-18 verdict, with it. These
tests plant a converter that kills its process (the framework-API module torch would call is
replaced by one that segfaults), and check that only the opset's sub-verdict is lost, that a first
crash is asked again in a fresh host, and that a conversion that raises is the same error object
the worker would have built for it.
"""

from __future__ import annotations

import os
import textwrap

import pytest
import torch

from opsweep import case
from opsweep.evidence import evidence
from opsweep.job import run_job
from opsweep.runtimes import client, opsets

torch.set_num_threads(1)

PLANTED = '''
import os, signal
from {real} import optimize  # noqa: F401  (the real one: only the conversion is planted)
from {real} import convert_version as _real_convert


def convert_version(model, target_version):
    if os.environ.get("OPSWEEP_TEST_HANG"):
        import time
        time.sleep(600)
    marker = os.environ.get("OPSWEEP_TEST_CRASH_ONCE")
    if marker is None or not os.path.exists(marker):
        if marker is not None:
            open(marker, "w").close()
        os.kill(os.getpid(), signal.SIGSEGV)
    return _real_convert(model, target_version)
'''


@pytest.fixture
def planted_converter(tmp_path, monkeypatch):
    """The host's conversions call a converter that segfaults (always, or only the first time when
    ``OPSWEEP_TEST_CRASH_ONCE`` names a marker file). The host is restarted before and after, so it
    starts with this environment and later tests get a host without it."""
    real = opsets.apis_name()
    (tmp_path / "planted_apis.py").write_text(textwrap.dedent(PLANTED.format(real=real)))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setattr(opsets, "apis_name", lambda: "planted_apis")
    client.shared_host(1).kill()
    yield tmp_path
    client.shared_host(1).kill()


def _softmax():
    return case("softmax", "t", lambda x: x.softmax(-1) + x.sum(dim=1, keepdim=True), [torch.rand(2, 3)])


@pytest.fixture
def no_runtimes(monkeypatch):
    """The opsets alone: no runtime uses the host before them."""
    from opsweep import runtimes

    monkeypatch.setattr(runtimes, "_enabled", ())


def test_a_conversion_that_kills_its_process_costs_only_its_opset(requested, planted_converter, no_runtimes):
    requested(17, 23)
    r = run_job(_softmax(), "onnx", library=None, threads=1)
    assert r["status"] == "ok", r  # the path's own verdict stands
    v = r["subverdicts"]["opset17"]
    assert (v["status"], v["step"], v["error"]) == ("crash", "convert", None), v
    assert v["detail"] == ("the runtime host exited with signal 11 (SIGSEGV) during convert (in a fresh runtime "
                           "host too): the version conversion killed its process, as it would the caller of "
                           "torch.onnx.export(opset_version=17); the path's own verdict stands"), v
    assert r["subverdicts"]["opset23"]["status"] == "ok", r["subverdicts"]["opset23"]  # the next one runs


def test_a_first_crash_is_asked_again_in_a_fresh_host(requested, planted_converter, no_runtimes, monkeypatch):
    monkeypatch.setenv("OPSWEEP_TEST_CRASH_ONCE", str(planted_converter / "crashed-once"))
    requested(17)
    r = run_job(_softmax(), "onnx", library=None, threads=1)
    v = r["subverdicts"]["opset17"]
    assert (planted_converter / "crashed-once").exists()  # the first host did die
    assert (v["status"], v["step"]) == ("ok", ""), v
    assert "a first attempt crashed the shared runtime host (the runtime host exited with signal 11" in v["detail"]
    assert v["checks"]["fresh_inputs"]["passed"] is True


def test_a_conversion_that_outlasts_the_job_is_its_timeout_and_the_host_goes(requested, planted_converter,
                                                                               no_runtimes, monkeypatch):
    import time

    monkeypatch.setenv("OPSWEEP_TEST_HANG", "1")
    requested(17)
    t0 = time.perf_counter()
    r = run_job(_softmax(), "onnx", library=None, threads=1, timeout_s=20)
    assert time.perf_counter() - t0 < 20  # at the job's end less the reserve, not after 600 s
    assert r["status"] == "ok", r
    v = r["subverdicts"]["opset17"]
    assert (v["status"], v["step"]) == ("timeout", "convert"), v
    assert v["detail"].startswith("no result before the job's time limit of 20 s ran out (step convert"), v
    host = client.shared_host(1)
    assert not host.alive()  # the hanging host was killed: its unanswered request cannot answer the next one
    monkeypatch.delenv("OPSWEEP_TEST_HANG")
    r = run_job(_softmax(), "onnx", library=None, threads=1)
    assert r["subverdicts"]["opset17"]["status"] == "crash"  # a new host, the planted converter's SIGSEGV again


def test_a_conversion_that_raises_is_the_error_the_worker_would_have_built(requested):
    # onnx's C API converter cannot move ReduceMean's axes input back to an attribute (torch returns
    # the model at opset 18): the host's answer is the same error object as evidence() in the worker
    c = case("mean_dim", "t", lambda x: x.mean(dim=1, keepdim=True), [torch.rand(2, 3)])
    requested(17)
    capture = opsets.ConversionCapture(True)
    with capture.around_export():
        torch.onnx.export(_module(c), tuple(c.inputs), dynamo=True, opset_version=17, verbose=False)
    with pytest.raises(opsets.ConversionFailed) as raised:
        opsets.convert(capture.model, 17)
    local = evidence(raised.value)
    r = run_job(c, "onnx", library=None, threads=1)
    v = r["subverdicts"]["opset17"]
    assert (v["status"], v["step"]) == ("fail", "convert"), v
    assert v["error"]["type"] == local["type"] == "opsweep.runtimes.opsets.ConversionFailed"
    assert v["error"]["message"] == local["message"]
    assert (v["error"]["frames"], v["error"]["registry_frames"], v["error"]["raised_in"]) == (
        local["frames"], local["registry_frames"], local["raised_in"])
    assert "convert_serialized" in v["error"]["chain"]  # it ran in the host


def _module(c):
    from opsweep.case_module import make_module

    return make_module(c, flat_outputs=True)
