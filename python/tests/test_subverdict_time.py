"""The onnx path's sub-verdicts keep inside the job's time limit: when it runs out, a sub-verdict
still running becomes a ``timeout`` of its own, the ones after it are ``not run``, and the path's
own verdict (known before any of them started) stands instead of being lost to the engine's kill.

The slow exports are planted by wrapping the path's ``export_model`` (the re-exports of opsets
above 18 go through it): a ``time.sleep`` stands for torch.onnx.export taking minutes (DINOv2 ViTs
under torch 2.9.1), and is interrupted the way such an export is, between two Python bytecodes.
"""

from __future__ import annotations

import signal
import time

import torch

from opsweep import case
from opsweep.job import run_job
from opsweep.paths import onnx as onnx_path

torch.set_num_threads(1)



def _slow_export(monkeypatch, slow_opsets, seconds):
    real = onnx_path.export_model
    calls = []

    def export_model(module, inputs, workdir, opset):
        calls.append(opset)
        if opset in slow_opsets:
            time.sleep(seconds(opset) if callable(seconds) else seconds)
        return real(module, inputs, workdir, opset)

    monkeypatch.setattr(onnx_path, "export_model", export_model)
    return calls


def _case():
    return case("add_relu", "t", lambda x: torch.relu(x + 1.0), [torch.rand(2, 3)])


def test_a_slow_opset_export_is_a_timeout_and_the_paths_own_verdict_stands(monkeypatch, requested):
    requested(23, 24)
    calls = _slow_export(monkeypatch, {23}, 600)
    handler = signal.getsignal(signal.SIGALRM)
    t0 = time.perf_counter()
    r = run_job(_case(), "onnx", library=None, threads=1, timeout_s=20)
    elapsed = time.perf_counter() - t0
    assert (r["status"], r["step"]) == ("ok", ""), r
    assert 17 < elapsed < 20, elapsed  # stopped at 20 s less the reserve (2 s), not after 600 s
    v = r["subverdicts"]["opset23"]
    assert (v["status"], v["step"], v["error"]) == ("timeout", "export", None), v
    assert v["detail"].startswith("no result before the job's time limit of 20 s ran out (step export, after "), v
    assert v["detail"].endswith("; the path's own verdict stands"), v
    late = r["subverdicts"]["opset24"]
    assert late["status"] == "timeout" and late["step"] == "" and late["detail"].startswith("not run: "), late
    assert calls == [18, 23]  # opset 24 was not exported at all
    # the runtimes ran on the checked file before the opsets, and were not affected
    for rid in ("openvino", "tract", "reference"):
        assert r["subverdicts"][rid]["status"] == "ok", (rid, r["subverdicts"][rid])
    # the alarm is gone and the handler is back: the next job cannot be interrupted by this one's clock
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) == handler


def test_when_the_paths_verdict_used_the_time_no_sub_verdict_starts(monkeypatch, requested):
    requested(17, 23)
    # the opset-18 export ends 0.5 s after the sub-verdicts' share of a 10 s job (9 s) is spent
    calls = _slow_export(monkeypatch, {18}, 9.5)
    r = run_job(_case(), "onnx", library=None, threads=1, timeout_s=10)
    # No wall-clock bound here (the opset-18 export itself takes 0.3 to 1 s on top of the planted
    # 9.5 s, more on a loaded machine): that nothing started after the time was spent is what the
    # statuses below and the single export call say.
    assert (r["status"], r["step"]) == ("ok", ""), r
    assert set(r["subverdicts"]) == {"openvino", "tract", "reference", "opset17", "opset23"}
    for sid, v in r["subverdicts"].items():
        assert (v["status"], v["step"]) == ("timeout", ""), (sid, v)
        assert v["detail"] == ("not run: the job's time limit of 10 s was spent before its turn; "
                               "the path's own verdict stands"), (sid, v)
    assert calls == [18]


def test_without_a_time_limit_nothing_is_cut_short(monkeypatch, requested):
    requested(23)
    _slow_export(monkeypatch, {23}, 3)
    r = run_job(_case(), "onnx", library=None, threads=1)  # the engine always sends one; a library caller may not
    assert r["subverdicts"]["opset23"]["status"] == "ok", r["subverdicts"]["opset23"]
