"""A compile record whose compiled call raised is that failure, also when explain (which counts the
breaks after a failed first call) raises too: the record's error is the compile's, its detail says
nothing of explain (empty, as every failure's: the page names the failure by its reason), and the
breaks are unknown. Under the harness before migration 2026-12-07-neutral-core (its compile marks) the
detail was explain's ("graph breaks unknown: explain raised InternalTorchDynamoError")."""

from __future__ import annotations

import os

import torch

from harness_helpers import INDUCTOR_CACHE
from opsweep import case
from opsweep.job import run_job
from opsweep.library import load_library


class _NoParameters(torch.nn.Module):
    """Runs eagerly, but Dynamo reads ``_parameters`` of every module it traces into: both the
    compile and explain raise InternalTorchDynamoError (AttributeError)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * 2


_INNER = _NoParameters()
del _INNER._parameters


def _calls_a_module_without_parameters(x: torch.Tensor) -> torch.Tensor:
    return _INNER(x) + 1


class _ExplainCalls:
    def __init__(self) -> None:
        self.calls = 0
        self.raised: list[str] = []
        self.original = torch._dynamo.explain

    def __call__(self, *args, **kwargs):
        self.calls += 1
        inner = self.original(*args, **kwargs)

        def call(*a, **k):
            try:
                return inner(*a, **k)
            except Exception as e:
                self.raised.append(type(e).__name__)
                raise

        return call


def test_the_detail_of_a_failed_compile_is_the_compile_failure_when_explain_raises_too(monkeypatch):
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", INDUCTOR_CACHE)
    explain = _ExplainCalls()
    monkeypatch.setattr(torch._dynamo, "explain", explain)
    c = case("calls_a_module_without_parameters", "g", _calls_a_module_without_parameters, [torch.randn(2, 3)])
    r = run_job(c, "compile", library=load_library("fixture_ops"), threads=1)
    assert (r["status"], r["step"]) == ("fail", "compile"), r
    assert explain.calls == 1 and explain.raised == ["InternalTorchDynamoError"], explain.raised
    # the compile's failure, not explain's
    assert "explain" not in r["detail"] and r["detail"] == "", r["detail"]
    assert "_parameters" in r["error"]["message"], r["error"]
    assert r["graph_breaks"] is None and r["break_reasons"] == []
