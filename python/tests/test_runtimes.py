"""Sub-verdicts of the onnx path on real runtimes: small planted graphs, fakes for hangs and crashes.

Each planted graph is built with onnx.helper, so what a runtime is given is known exactly; the
case beside it is the eager reference (the torch function the graph computes). The verdicts are
measured by the real OpenVINO, tract and onnx.reference through the real runtime host.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time

import numpy as np
import onnx
import onnx.helper as oh
import pytest
import torch
from onnx import TensorProto

from opsweep import case
from opsweep.job import eager_calls, run_job
from opsweep.paths.context import ProbeContext
from opsweep.runtimes import BY_ID, RuntimeSpec
from opsweep.runtimes.client import RuntimeHost
from opsweep.runtimes.verdicts import judge_runtime
from opsweep.fresh_set import set_words

# what a passed fresh-input check says when both default sets ran (opsweep/fresh_set.py)
BOTH_SETS = set_words(["redrawn", "shifted"])
torch.set_num_threads(1)
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
FAKES = os.path.join(FIXTURES, "fake_runtimes.py")
REAL = ("openvino", "tract", "reference")


@pytest.fixture(scope="module")
def host():
    h = RuntimeHost(threads=1)
    yield h
    h.close()


def graph(nodes, inputs, outputs, opset=18):
    g = oh.make_graph(nodes, "planted", inputs, outputs)
    model = oh.make_model(g, opset_imports=[oh.make_opsetid("", opset)], ir_version=10)
    onnx.checker.check_model(model, full_check=True)
    return model.SerializeToString()


def tensor(name, shape, elem=TensorProto.FLOAT):
    return oh.make_tensor_value_info(name, elem, shape)


def context(c, tmp_path) -> ProbeContext:
    expected = eager_calls(c, [(tuple(x.clone() for x in c.inputs), 0)])[0]
    return ProbeContext(case=c, expected=expected, threads=1, workdir=str(tmp_path), library=None,
                        eager=lambda calls: eager_calls(c, calls))


def verdicts(c, model, tmp_path, host):
    ctx = context(c, tmp_path)
    return {rid: judge_runtime(ctx, BY_ID[rid], model, host) for rid in REAL}


def test_a_graph_every_runtime_runs(tmp_path, host):
    model = graph(
        [oh.make_node("Mul", ["x", "two"], ["t"]), oh.make_node("Add", ["t", "y"], ["out"])],
        [tensor("x", [2, 3]), tensor("two", []), tensor("y", [2, 3])],
        [tensor("out", [2, 3])],
    )
    c = case("mul_add", "t", lambda x, two, y: x * two + y, [torch.rand(2, 3), torch.tensor(2.0), torch.rand(2, 3)])
    got = verdicts(c, model, tmp_path, host)
    for rid, v in got.items():
        assert (v["status"], v["step"], v["error"]) == ("ok", "", None), (rid, v)
        assert v["checks"]["fresh_inputs"] == {"ran": True, "passed": True, "why": BOTH_SETS}, (rid, v)
        assert v["timings"]["total_s"] >= 0


def test_an_operator_a_runtime_lacks(tmp_path, host):
    model = graph([oh.make_node("Det", ["x"], ["d"])], [tensor("x", [2, 3, 3])], [tensor("d", [2])])
    c = case("det", "t", torch.linalg.det, [torch.rand(2, 3, 3)])
    got = verdicts(c, model, tmp_path, host)
    ov, tr, ref = got["openvino"], got["tract"], got["reference"]
    assert (ov["status"], ov["step"]) == ("fail", "load"), ov
    assert "No conversion rule found for operations: Det-18" in ov["error"]["message"]
    assert not ov["error"]["message"].startswith("Exception from")  # the location lines are cut
    assert (tr["status"], tr["step"]) == ("fail", "compile"), tr
    assert "Unimplemented(Det)" in tr["error"]["message"]
    assert "Stack backtrace" not in tr["error"]["message"] and "Stack backtrace" in tr["error"]["chain"]
    assert (ref["status"], ref["step"]) == ("ok", ""), ref


def test_a_runtime_whose_result_differs(tmp_path, host):
    # torch.maximum propagates NaN from either side; OpenVINO and tract do not (measured).
    model = graph([oh.make_node("Max", ["a", "b"], ["m"])], [tensor("a", [3]), tensor("b", [3])], [tensor("m", [3])])
    nan = float("nan")
    c = case("maximum_nan", "t", torch.maximum, [torch.tensor([nan, 1.0, 2.0]), torch.tensor([1.0, nan, 3.0])],
             fresh_inputs="the NaN positions are the point")
    got = verdicts(c, model, tmp_path, host)
    for rid in ("openvino", "tract"):
        v = got[rid]
        assert (v["status"], v["step"]) == ("mismatch", "compare"), (rid, v)
        assert v["detail"].startswith("output 0: NaN positions differ"), (rid, v)
        assert v["checks"]["fresh_inputs"]["ran"] is False
    assert got["reference"]["status"] == "ok", got["reference"]


def test_a_wrong_answer_on_fresh_inputs_only_is_a_mismatch(tmp_path, host):
    # Clip(x, 0, 1) computes relu(x) on inputs in [0, 1] only: the trace inputs pass, fresh ones
    # drawn from [min, max] of a wider trace input must fail in every runtime.
    model = graph([oh.make_node("Clip", ["x", "lo", "hi"], ["y"])],
                  [tensor("x", [64]), tensor("lo", []), tensor("hi", [])], [tensor("y", [64])])
    x = torch.linspace(-1.0, 1.0, 64)
    x[x > 0] = torch.linspace(0.0, 1.0, int((x > 0).sum()))
    c = case("relu_vs_clip", "t", lambda x, lo, hi: torch.relu(x) + 0 * lo + 0 * hi,
             [x, torch.tensor(0.0), torch.tensor(1.0)],
             fresh_inputs=[torch.linspace(-1.0, 3.0, 64), torch.tensor(0.0), torch.tensor(1.0)])
    got = verdicts(c, model, tmp_path, host)
    for rid, v in got.items():
        assert (v["status"], v["step"]) == ("mismatch", "compare"), (rid, v)
        assert v["detail"].startswith("matches eager on its trace inputs only"), (rid, v)
        assert v["checks"]["fresh_inputs"]["passed"] is False


def test_a_runtime_that_hangs_costs_only_its_own_verdict(tmp_path, host):
    c = case("identity", "t", lambda x: x.clone(), [torch.rand(4)])
    model = graph([oh.make_node("Identity", ["x"], ["y"])], [tensor("x", [4])], [tensor("y", [4])])
    ctx = context(c, tmp_path)
    hang = RuntimeSpec(id="hang", title="Hang", label="H", adapter=f"{FAKES}:Hang", distribution="", time_limit_s=1.5)
    starts = host.starts
    t0 = time.perf_counter()
    v = judge_runtime(ctx, hang, model, host)
    elapsed = time.perf_counter() - t0
    assert (v["status"], v["step"]) == ("timeout", "run"), v
    assert "1.5 s time limit of Hang" in v["detail"] and "killed" in v["detail"]
    assert elapsed < 10, elapsed
    assert not host.alive()
    # the next runtime gets a new host and its own, correct verdict
    after = judge_runtime(ctx, BY_ID["openvino"], model, host)
    assert after["status"] == "ok", after
    assert host.starts == starts + 1


def test_a_runtime_stops_at_the_end_of_the_jobs_time_before_its_own_limit(tmp_path, host):
    # the engine kills the job at its deadline: a runtime still running then would take the path's
    # own verdict along, so its request ends first (less a reserve for sending the record)
    c = case("identity", "t", lambda x: x.clone(), [torch.rand(4)])
    model = graph([oh.make_node("Identity", ["x"], ["y"])], [tensor("x", [4])], [tensor("y", [4])])
    ctx = dataclasses.replace(context(c, tmp_path), timeout_s=20.0, deadline=time.monotonic() + 5.0)
    hang = RuntimeSpec(id="hang", title="Hang", label="H", adapter=f"{FAKES}:Hang", distribution="", time_limit_s=60)
    t0 = time.perf_counter()
    v = judge_runtime(ctx, hang, model, host)
    elapsed = time.perf_counter() - t0
    assert (v["status"], v["step"]) == ("timeout", "run"), v
    assert v["detail"].startswith("no answer before the job's time limit of 20 s ran out (step run, after 3 s)"), v
    assert "the path's own verdict stands" in v["detail"]
    assert 2.5 < elapsed < 8, elapsed  # the job's end (5 s less a 2 s reserve), not the runtime's 60 s
    assert not host.alive()


def test_a_runtime_that_crashes_costs_only_its_own_verdict(tmp_path, host):
    c = case("identity", "t", lambda x: x.clone(), [torch.rand(4)])
    model = graph([oh.make_node("Identity", ["x"], ["y"])], [tensor("x", [4])], [tensor("y", [4])])
    ctx = context(c, tmp_path)
    crash = RuntimeSpec(id="crash", title="Crash", label="C", adapter=f"{FAKES}:Crash", distribution="", time_limit_s=30)
    echo = RuntimeSpec(id="echo", title="Echo", label="E", adapter=f"{FAKES}:Echo", distribution="", time_limit_s=30)
    v = judge_runtime(ctx, crash, model, host)
    assert (v["status"], v["step"]) == ("crash", "compile"), v
    assert "signal 11 (SIGSEGV)" in v["detail"], v
    assert judge_runtime(ctx, echo, model, host)["status"] == "ok"


def test_a_runtime_that_outgrows_its_memory_budget_costs_only_its_own_verdict(tmp_path):
    # the engine limits the worker's process group, host included: a runtime that blows up must be
    # stopped by its own budget first, or the engine's kill takes the onnxruntime verdict along
    from opsweep.runtimes.client import RuntimeHost

    small = RuntimeHost(threads=1, memory_limit_mib=512)
    try:
        c = case("identity", "t", lambda x: x.clone(), [torch.rand(4)])
        model = graph([oh.make_node("Identity", ["x"], ["y"])], [tensor("x", [4])], [tensor("y", [4])])
        ctx = context(c, tmp_path)
        balloon = RuntimeSpec(id="balloon", title="Balloon", label="B", adapter=f"{FAKES}:Balloon", distribution="",
                              time_limit_s=60)
        t0 = time.perf_counter()
        v = judge_runtime(ctx, balloon, model, small)
        assert (v["status"], v["step"]) == ("crash", "run"), v
        assert "exceeded its memory budget of 512 MiB" in v["detail"] and "(in a fresh runtime host too)" in v["detail"], v
        assert time.perf_counter() - t0 < 30
        assert not small.alive()
        echo = RuntimeSpec(id="echo", title="Echo", label="E", adapter=f"{FAKES}:Echo", distribution="", time_limit_s=30)
        assert judge_runtime(ctx, echo, model, small)["status"] == "ok"  # a new host serves the next one
    finally:
        small.close()


def test_the_host_budget_is_the_room_the_engines_limit_leaves(tmp_path):
    # the engine kills the whole group at its limit: a host allowed its own 4,096 MiB beside a
    # worker that already holds most of the limit would take the worker's verdict along
    from opsweep.runtimes.client import resident_mib

    assert RuntimeHost(threads=1, memory_limit_mib=4096, group_limit_mib=0).budget() == (4096, "")
    roomy = RuntimeHost(threads=1, memory_limit_mib=512, group_limit_mib=10**6)
    assert roomy.budget() == (512, "")  # the host's own budget, when the limit leaves room for it
    worker = resident_mib(os.getpid())
    limit = int(worker) + 512 + 300
    tight = RuntimeHost(threads=1, memory_limit_mib=4096, group_limit_mib=limit)
    try:
        budget, why = tight.budget()
        assert 250 <= budget <= 300, (budget, worker, limit)
        assert why.startswith(f"the worker's memory limit of {limit:,} MiB less the "), why
        c = case("identity", "t", lambda x: x.clone(), [torch.rand(4)])
        model = graph([oh.make_node("Identity", ["x"], ["y"])], [tensor("x", [4])], [tensor("y", [4])])
        balloon = RuntimeSpec(id="balloon", title="Balloon", label="B", adapter=f"{FAKES}:Balloon", distribution="",
                              time_limit_s=60)
        v = judge_runtime(context(c, tmp_path), balloon, model, tight)
        assert (v["status"], v["step"]) == ("crash", "run"), v
        assert f"exceeded its memory budget of {budget:,} MiB: the worker's memory limit of {limit:,} MiB" in v["detail"], v
    finally:
        tight.close()


def test_a_host_left_large_is_closed_after_the_job():
    h = RuntimeHost(threads=1)
    try:
        assert h.request({"op": "ping"}, 10).kind == "ok"
        assert not h.close_if_larger_than(10**6) and h.alive()  # small: kept for the next job
        assert h.close_if_larger_than(1) and not h.alive()  # larger than 1 MiB: closed
        assert h.request({"op": "ping"}, 10).kind == "ok" and h.starts == 2  # the next request starts one
    finally:
        h.close()


def test_runtime_errors_are_answers_not_crashes(host):
    reply = host.request({"op": "run", "inputs": [np.zeros(2)]}, 10)  # nothing loaded
    assert reply.kind == "error" and reply.error["message"] == "no model loaded"
    reply = host.request({"op": "load", "adapter": "adapters:NoSuchRuntime", "model": b""}, 10)
    assert reply.kind == "error" and "NoSuchRuntime" in reply.error["message"]
    assert host.request({"op": "ping"}, 10).kind == "ok"


# -- through the job runner: the exporter's real graphs ------------------------------------------


def test_subverdicts_ride_beside_the_onnx_verdict_and_never_change_it():
    det = run_job(case("det", "t", torch.linalg.det, [torch.rand(2, 3, 3)]), "onnx", library=None, threads=1)
    assert det["status"] == "ok", det  # onnxruntime runs Det
    subs = det["subverdicts"]
    assert sorted(subs) == ["openvino", "reference", "tract"]
    assert subs["openvino"]["status"] == "fail" and subs["tract"]["status"] == "fail"
    assert subs["reference"]["status"] == "ok"


def test_no_subverdict_when_there_is_no_file_to_run():
    svd = run_job(case("svd", "t", torch.linalg.svd, [torch.rand(2, 3, 3)]), "onnx", library=None, threads=1)
    assert (svd["status"], svd["step"]) == ("fail", "export")
    assert svd["subverdicts"] == {}


def test_randomness_check_runs_in_every_runtime():
    r = run_job(case("noise[random]", "t", lambda x: x + torch.rand_like(x), [torch.rand(2, 3)], check=False),
                "onnx", library=None, threads=1)
    assert r["status"] == "ok-unverified"
    ov = r["subverdicts"]["openvino"]
    assert ov["status"] == "ok-unverified" and ov["checks"]["randomness"] == {"ran": True, "passed": True, "why": ""}, ov
    # tract refuses the exporter's RandomUniformLike (it wants a shape attribute the spec does not have)
    tr = r["subverdicts"]["tract"]
    assert (tr["status"], tr["step"]) == ("fail", "load") and "RandomUniformLike" in tr["error"]["message"]


def _fake_tract(monkeypatch, api):
    """A stand-in ``tract`` module with the names of tract 0.23 (``load``, ``into_model``) or 0.22
    (``model_for_path``, ``into_optimized``); the run doubles its input."""
    import types

    import numpy as np

    calls = []

    class Value:
        def __init__(self, a):
            self.a = a

        def to_numpy(self):
            return self.a

    class Runnable:
        def input_count(self):
            return 1

        def run(self, inputs):
            calls.append("run")
            return [Value(np.asarray(inputs[0]) * 2)]

    class Typed:
        def into_runnable(self):
            calls.append("into_runnable")
            return Runnable()

    class Inference:
        pass

    if api == "0.23":
        Inference.into_model = lambda self: calls.append("into_model") or Typed()
    else:
        Inference.into_optimized = lambda self: calls.append("into_optimized") or Typed()

    class Onnx:
        pass

    if api == "0.23":
        Onnx.load = lambda self, path: calls.append("load") or Inference()
    else:
        Onnx.model_for_path = lambda self, path: calls.append("model_for_path") or Inference()
    module = types.SimpleNamespace(onnx=Onnx, TractError=RuntimeError)
    monkeypatch.setitem(sys.modules, "tract", module)
    return calls


@pytest.mark.parametrize("api,names", [("0.23", ["load", "into_model"]), ("0.22", ["model_for_path", "into_optimized"])])
def test_the_tract_adapter_calls_each_release_by_its_own_names(monkeypatch, api, names):
    # tract 0.22 (torch 2.9.1's environment) has no onnx().load: calling 0.23's names failed every
    # tract sub-verdict of that survey with "'Onnx' object has no attribute 'load'"
    import numpy as np

    from opsweep.runtimes import adapters

    calls = _fake_tract(monkeypatch, api)
    a = adapters.Tract(1)
    a.load(b"not read by the fake", ["x"])
    a.compile()
    out = a.run([np.arange(3.0)])
    assert calls == [names[0], names[1], "into_runnable", "run"], calls
    assert out[0].tolist() == [0.0, 2.0, 4.0]
