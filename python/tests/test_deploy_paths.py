"""The deployment paths on real torch (docs/deployment.md): aoti (AOTInductor package) and executorch
(XNNPACK, run in the ExecuTorch runtime), each through ``run_job`` in this process on the small
targets of fixtures/deploy_ops.py: one XNNPACK takes whole, one it leaves to the portable kernels,
one ExecuTorch's Edge dialect refuses, and one whose deployed result differs from eager. Every
(case, path) runs once per module (an AOTInductor compile takes tens of seconds).
"""

from __future__ import annotations

import os

import pytest
import torch

from harness_helpers import FIXTURES, INDUCTOR_CACHE
from opsweep import evidence
from opsweep.job import run_job
from opsweep.library import load_library
from opsweep.paths import PATHS, describe_paths
from opsweep.paths.context import FRESH_MISMATCH
from opsweep.registry import load_registries
from opsweep.fresh_set import set_words

# what a passed fresh-input check says when both default sets ran (opsweep/fresh_set.py)
BOTH_SETS = set_words(["redrawn", "shifted"])
pytest.importorskip("executorch", reason="the executorch path needs executorch (requirements.txt)")

DEPLOY_REGISTRY = os.path.join(FIXTURES, "cases_deploy.py")
JOBS = [
    ("scale_shift", "executorch"), ("running_sum", "executorch"), ("noise[random]", "executorch"),
    ("pool_with_holes", "executorch"),
    ("scale_shift", "aoti"), ("pool_with_holes", "aoti"),
]


@pytest.fixture(scope="module")
def deploy() -> dict:
    """(name, path) -> record of every job of JOBS."""
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", INDUCTOR_CACHE)
    torch.set_num_threads(1)
    library = load_library("deploy_ops")
    evidence.use_library(library)
    evidence.use_registries([FIXTURES])
    try:
        cases = {lc.case.name: lc.case for lc in load_registries([DEPLOY_REGISTRY])}
        return {(name, path): run_job(cases[name], path, library=library, threads=1) for name, path in JOBS}
    finally:
        evidence.use_library(None)
        evidence.use_registries([])


def test_the_paths_describe_their_steps_env_and_facts():
    described = {d["id"]: d for d in describe_paths()}
    assert described["aoti"]["steps"] == ["export", "compile", "load", "run", "compare"]
    assert described["executorch"]["steps"] == ["export", "edge", "lower", "serialise", "load", "run", "compare"]
    assert described["aoti-dynamic"]["steps"][:2] == ["no-dynamic-dims", "eager-other-shapes"]
    # what their results depend on beyond torch: the job keys re-key when these change
    assert described["executorch"]["env"][-1] == "executorch" and "executorch" not in described["aoti"]["env"]
    assert described["aoti"]["env"][-1] == "cxx" and described["aoti-dynamic"]["env"][-1] == "cxx"
    assert PATHS["aoti"].env()["cxx"].startswith("g++ ") or PATHS["aoti"].env()["cxx"] == ""
    facts = {f["id"]: f for f in described["executorch"]["facts"]}
    assert facts["delegated"] == {"id": "delegated", "title": "share of the operators XNNPACK runs", "kind": "share",
                                  "field": "executorch.delegated_share", "label": "XNNPACK", "cell": True}
    assert facts["not_delegated"]["kind"] == "flag"
    assert "facts" not in described["aoti"] and "facts" not in described["export"]
    # every path's record carries both fields, null where the path is another
    assert PATHS["executorch"].record_fields == {"executorch": None}
    assert PATHS["aoti"].record_fields == {"aoti": None}
    assert all(d.get("reproducible") for k, d in described.items() if k in ("aoti", "aoti-dynamic", "executorch"))


def test_a_fact_must_read_a_field_of_its_own_path():
    from opsweep.paths.facts import Fact
    from opsweep.paths.spec import PathSpec

    with pytest.raises(ValueError, match="not one of the path's record fields"):
        PathSpec(id="x", title="X", label="x", description="", steps=(), expected_seconds=1, probe=lambda ctx: None,
                 facts=(Fact("share", "share", "share", "elsewhere.share"),), record_fields={"x": None})
    with pytest.raises(ValueError, match="a cell fact needs a label"):
        Fact("share", "share", "share", "x.share", cell=True)


def test_what_xnnpack_takes_whole_runs_and_matches(deploy):
    r = deploy[("scale_shift", "executorch")]
    assert (r["status"], r["step"]) == ("ok", ""), r
    et = r["executorch"]
    assert (et["delegated_ops"], et["portable_ops"], et["portable"], et["subgraphs"]) == (2, 0, {}, 1)
    assert et["delegated_share"] == 1.0 and not et["not_delegated"] and not et["partly_delegated"]
    assert et["program_kb"] > 0
    assert set(et["seconds"]) == {"export", "edge", "lower", "serialise", "load"}
    assert r["checks"]["fresh_inputs"] == {"ran": True, "passed": True, "why": BOTH_SETS}
    assert r["aoti"] is None  # another path's field, at its empty value


def test_what_xnnpack_leaves_runs_on_portable_kernels_and_is_flagged(deploy):
    r = deploy[("running_sum", "executorch")]
    assert r["status"] == "ok", r
    et = r["executorch"]
    assert et["portable"] == {"aten.cumsum.default": 1}
    assert (et["delegated_ops"], et["delegated_share"], et["not_delegated"]) == (0, 0.0, True)


def test_an_operator_outside_core_aten_fails_at_the_edge_step(deploy):
    r = deploy[("noise[random]", "executorch")]
    assert (r["status"], r["step"]) == ("fail", "edge"), r
    assert r["error"]["type"].endswith("SpecViolationError")
    assert "aten.rand_like.default is not in Core ATen opset" in r["error"]["message"]
    assert r["executorch"] is None  # it never reached the lowering: nothing measured


def test_the_aoti_package_runs_and_keeps_its_size_and_compile_time(deploy):
    r = deploy[("scale_shift", "aoti")]
    assert (r["status"], r["step"]) == ("ok", ""), r
    aoti = r["aoti"]
    assert aoti["package_kb"] > 10 and aoti["compile_s"] > 0 and aoti["load_s"] is not None
    assert r["timings"]["capture_s"] >= aoti["compile_s"]
    assert r["checks"]["fresh_inputs"]["passed"] is True
    assert r["executorch"] is None


def test_what_runs_but_differs_from_eager_is_a_mismatch(deploy):
    """XNNPACK's max pooling takes the largest number where torch's propagates NaN: the program
    lowers and runs, and its result differs; AOTInductor's package keeps torch's NaN semantics."""
    r = deploy[("pool_with_holes", "executorch")]
    assert (r["status"], r["step"]) == ("mismatch", "compare"), r
    assert "NaN positions differ" in r["detail"], r["detail"]
    assert r["executorch"]["delegated_ops"] > 0 and r["executorch"]["program_kb"] > 0
    assert r["checks"]["fresh_inputs"]["ran"] is False  # already differs on the trace inputs
    a = deploy[("pool_with_holes", "aoti")]
    assert (a["status"], a["step"]) == ("ok", ""), a
