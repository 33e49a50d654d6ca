"""Surveys under older torch releases: an operator that needs a torch API the running release lacks
is a record (status n/a at step eager, its error kept for the reason rules), never a failure of the
worker or of the registry load. (docs/torch-matrix.md; rule torch-api-missing in rules/outcomes.json)
"""

from harness_helpers import Worker

REGISTRY = '''
import torch
from opsweep import case


def needs_newer_torch(x):
    # looked up at call time, as library code does: the registry still loads under any torch
    return torch.function_of_a_later_release(x)


def plain(x):
    return x * 2


CASES = [
    case("needs_newer_torch", "fixtures.versions", needs_newer_torch, [torch.ones(2, 3)]),
    case("plain", "fixtures.versions", plain, [torch.ones(2, 3)]),
]
'''


def test_a_missing_torch_api_is_a_recorded_status(tmp_path):
    reg = tmp_path / "cases_versions.py"
    reg.write_text(REGISTRY)
    w = Worker([str(reg)], str(tmp_path / "w.log"))
    try:
        assert w.receive()["type"] == "hello"
        inventory = w.receive()
        assert inventory["type"] == "inventory", (inventory, w.log())
        assert [c["name"] for c in inventory["cases"]] == ["needs_newer_torch", "plain"]
        assert w.receive()["type"] == "index"
        for path in ("onnx", "export", "compile"):
            r = w.job("needs_newer_torch", path)
            assert r["type"] == "result", r
            rec = r["record"]
            assert (rec["status"], rec["step"]) == ("n/a", "eager"), rec
            assert rec["error"]["type"] == "AttributeError"
            assert "module 'torch' has no attribute 'function_of_a_later_release'" in rec["error"]["message"]
        # the worker goes on with the next case
        assert w.job("plain", "export")["record"]["status"] == "ok"
    finally:
        code = w.close()
    assert code == 0
