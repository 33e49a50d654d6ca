"""The state check (opsweep/state.py, ProbeContext.verify): a module whose call updates its own
state is supported only by a capture that leaves the state as eager's call does. On real torch,
through ``run_job``: torch.export drops the update of a plain tensor attribute (lifted as a
constant) and keeps a registered buffer's; torch.compile keeps both; an ONNX graph returns its
outputs only; the deployment paths keep what the exported program they compile keeps; the
dynamic-shape paths say why they do not compare; private names and lazily built caches are not
state."""

from __future__ import annotations

import os

import pytest
import torch

from harness_helpers import FIXTURES, INDUCTOR_CACHE
from opsweep import evidence, state
from opsweep.job import run_job
from opsweep.library import load_library
from opsweep.paths.context import STATE_LOST
from opsweep.registry import load_registries

JOBS = [(name, path) for name in ("Total", "BufferTotal", "Private") for path in ("export", "compile", "onnx")] + [
    (name, path) for name in ("Total", "BufferTotal") for path in ("aoti", "executorch")] + [("Total", "export-dynamic")]


@pytest.fixture(scope="module")
def records() -> dict:
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", INDUCTOR_CACHE)
    torch.set_num_threads(1)
    library = load_library("stateful_ops")
    evidence.use_library(library)
    evidence.use_registries([FIXTURES])
    try:
        cases = {lc.case.name: lc.case for lc in load_registries([os.path.join(FIXTURES, "cases_stateful.py")])}
        return {(n, p): run_job(cases[n], p, library=library, threads=1) for n, p in JOBS}
    finally:
        evidence.use_library(None)
        evidence.use_registries([])


def test_snapshot_sees_buffers_and_public_tensor_attributes_only():
    import stateful_ops

    m = stateful_ops.Private()
    before = state.snapshot(m)
    assert before == {}  # neither the private name nor the None cache
    m(torch.ones(2))
    assert state.updated(m, before) == {}
    t = stateful_ops.Total()
    before = state.snapshot(t)
    assert set(before) == {"total"}
    t(torch.ones(2))
    assert float(state.updated(t, before)["total"]) == 2.0
    t2 = stateful_ops.Total()
    before = state.snapshot(t2)
    t2(torch.zeros(2))  # reassigned to an equal value: no update
    assert state.updated(t2, before) == {}


def test_export_drops_a_plain_attribute_update(records):
    r = records[("Total", "export")]
    assert (r["status"], r["step"]) == ("mismatch", "compare"), r
    assert r["detail"].startswith(f"{STATE_LOST}: the call updates the module's target.total;"), r["detail"]
    assert "target.total: eager" in r["detail"] and "capture 0" in r["detail"]
    assert r["checks"]["state"]["ran"] is True and r["checks"]["state"]["passed"] is False
    assert r["checks"]["fresh_inputs"] == {"ran": False, "passed": None, "why": "the capture already loses the state update"}


def test_export_keeps_a_buffer_mutation_and_compile_keeps_both(records):
    for key in (("BufferTotal", "export"), ("Total", "compile"), ("BufferTotal", "compile")):
        r = records[key]
        assert r["status"] == "ok", (key, r)
        assert r["checks"]["state"] == {"ran": True, "passed": True, "why": ""}, key


def test_an_onnx_graph_returns_outputs_only(records):
    for name in ("Total", "BufferTotal"):
        r = records[(name, "onnx")]
        assert (r["status"], r["step"]) == ("mismatch", "compare"), r
        assert "the capture returns the outputs only and keeps no update" in r["detail"]


def test_a_module_without_public_state_is_judged_by_its_outputs_alone(records):
    for path in ("export", "compile", "onnx"):
        r = records[("Private", path)]
        assert r["status"] == "ok", (path, r)
        assert "state" not in r["checks"]


def test_the_deployment_paths_keep_what_their_exported_program_keeps(records):
    for path in ("aoti", "executorch"):
        lost = records[("Total", path)]
        assert (lost["status"], lost["step"]) == ("mismatch", "compare"), (path, lost)
        assert lost["detail"].startswith(STATE_LOST), lost["detail"]
        kept = records[("BufferTotal", path)]
        assert kept["status"] == "ok", (path, kept)
        assert kept["checks"]["state"] == {"ran": True, "passed": True, "why": ""}


def test_a_dynamic_shape_path_says_why_it_does_not_compare(records):
    r = records[("Total", "export-dynamic")]
    assert r["checks"]["state"]["ran"] is False
    assert "the state is compared on the static paths" in r["checks"]["state"]["why"]
