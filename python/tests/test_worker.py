"""The worker on real torch: every status on every path, and protocol 3 over real pipes.

Most tests read the session's single worker run over fixtures/cases_statuses.py (conftest.py).
"""

import json
import os

import pytest

from harness_helpers import INDUCTOR_CACHE, POISON_REGISTRY, STATUSES_REGISTRY, Worker

# (case, path) -> (status, step). Every status of docs/formats.md that a worker writes, on every path.
EXPECTED = {
    "add_scaled": {"onnx": ("ok", ""), "export": ("ok", ""), "compile": ("ok", "")},
    "tuple_out": {"onnx": ("ok", ""), "export": ("ok", ""), "compile": ("ok", "")},
    "structured_out": {"onnx": ("ok", ""), "export": ("ok", ""), "compile": ("ok", "")},
    "noisy": {"onnx": ("ok", ""), "export": ("ok", ""), "compile": ("ok", "")},
    "Projector.project[offset]": {"onnx": ("ok", ""), "export": ("ok", ""), "compile": ("ok", "")},
    "item_scale": {"onnx": ("ok", ""), "export": ("ok", ""), "compile": ("ok-breaks", "")},
    "random_noise[random]": {p: ("ok-unverified", "") for p in ("onnx", "export", "compile")},
    "data_branch": {"onnx": ("fail", "export"), "export": ("fail", "export"), "compile": ("ok-breaks", "")},
    "onnx_offset": {"onnx": ("mismatch", "compare"), "export": ("ok", ""), "compile": ("ok", "")},
    "export_offset": {"onnx": ("ok", ""), "export": ("mismatch", "compare"), "compile": ("ok", "")},
    "compile_offset": {"onnx": ("ok", ""), "export": ("ok", ""), "compile": ("mismatch", "compare")},
    "custom_twice": {"onnx": ("fail", "export"), "export": ("ok", ""), "compile": ("ok", "")},
    "lying_fake": {"onnx": ("fail", "export"), "export": ("ok", ""), "compile": ("fail", "compile")},
    "eager_raises": {p: ("n/a", "eager") for p in ("onnx", "export", "compile")},
    "no_tensor": {p: ("n/a", "no-tensor") for p in ("onnx", "export", "compile")},
    "skipped": {p: ("n/a", "skip") for p in ("onnx", "export", "compile")},
}

RECORD_KEYS = {"status", "step", "detail", "error", "graph_breaks", "break_reasons", "break_frames", "onnx",
               "outputs", "timings", "sources", "checks", "notes", "deps", "subverdicts", "dynamic", "aoti", "executorch"}
ERROR_KEYS = {"type", "message", "chain", "frames", "registry_frames", "raised_in"}


def test_every_status_on_every_path_is_reached(statuses_run):
    got = {(c, p): (r["status"], r["step"]) for (c, p), r in statuses_run["results"].items()}
    want = {(c, p): v for c, paths in EXPECTED.items() for p, v in paths.items()}
    assert got == want, {k: (got.get(k), want.get(k)) for k in set(got) | set(want) if got.get(k) != want.get(k)}
    for path in ("onnx", "export", "compile"):
        statuses = {r["status"] for (c, p), r in statuses_run["results"].items() if p == path}
        needed = {"ok", "ok-unverified", "mismatch", "fail", "n/a"} | ({"ok-breaks"} if path == "compile" else set())
        assert needed <= statuses, (path, statuses)


def test_records_follow_the_format(statuses_run):
    for (name, path), r in statuses_run["results"].items():
        assert set(r) == RECORD_KEYS, (name, path)
        assert set(r["timings"]) == {"eager_s", "capture_s", "run_s", "total_s"}
        assert r["timings"]["total_s"] is not None and r["timings"]["total_s"] >= 0
        if path == "compile" and r["status"] not in ("n/a",):
            assert isinstance(r["graph_breaks"], int) and r["graph_breaks"] >= 0, (name, r)
        if path != "compile":
            assert r["graph_breaks"] is None and r["break_reasons"] == [] and r["break_frames"] == []
        assert len(r["break_frames"]) == len(r["break_reasons"]), (name, path)
        assert r["notes"] == [], (name, path, r["notes"])
        if r["error"] is not None:
            assert set(r["error"]) == ERROR_KEYS, (name, path)
            assert r["error"]["raised_in"] in ("registry", "library", ""), (name, path)
        # sub-verdicts: the runtimes on every file that passed export and the checker, nothing else
        exported = path == "onnx" and r["onnx"] is not None and r["step"] not in ("export", "checker")
        assert sorted(r["subverdicts"]) == (["openvino", "reference", "tract"] if exported else []), (name, path, r)
        for sub in r["subverdicts"].values():
            assert set(sub) == {"status", "step", "detail", "error", "checks", "timings"}, (name, sub)
        text = json.dumps(r)
        home = os.path.expanduser("~")
        assert home + "/" not in text and "/root/" not in text and "/home/" not in text, (name, path, text[:2000])
        assert "site-packages/" not in text.replace("<site-packages>/", ""), (name, path)


def test_ok_record_details(statuses_run):
    r = statuses_run["results"][("add_scaled", "onnx")]
    assert r["error"] is None and r["detail"] == ""
    assert r["outputs"] == {"count": 1, "shapes": [[2, 3, 4, 5]], "dtypes": ["float32"]}
    assert r["onnx"]["op_types"] == sorted(set(r["onnx"]["op_types"])) and "Add" in r["onnx"]["op_types"]
    assert r["onnx"]["size_kb"] > 0
    assert r["sources"] == ["fixture_ops.py"]
    for key in ("eager_s", "capture_s", "run_s"):
        assert r["timings"][key] is not None
    e = statuses_run["results"][("add_scaled", "export")]
    assert e["onnx"] is None and e["timings"]["run_s"] is not None
    c = statuses_run["results"][("add_scaled", "compile")]
    assert c["graph_breaks"] == 0 and c["break_reasons"] == []


def test_flatten_order_matches_the_exporters(statuses_run):
    r = statuses_run["results"][("structured_out", "onnx")]
    # sorted keys a (dataclass: score, parts[0]), b, z (.data)
    assert r["outputs"]["shapes"] == [[2, 3, 4], [2, 3, 4, 5], [2, 3, 4, 5], [2, 3, 4, 5]]
    assert r["status"] == "ok"
    t = statuses_run["results"][("tuple_out", "onnx")]
    assert t["outputs"]["dtypes"] == ["float32", "float32", "bool"] and t["status"] == "ok"


def test_graph_breaks_are_counted_and_explained(statuses_run):
    r = statuses_run["results"][("item_scale", "compile")]
    assert r["graph_breaks"] == 1 and r["detail"] == "1 graph break"
    assert any("item()" in reason for reason in r["break_reasons"])
    # where Dynamo broke: the library line that reads the value back, innermost first
    assert r["break_frames"] == [[f"fixture_ops.py:{_line_of('def item_scale') + 2}"]]
    rnd = statuses_run["results"][("random_noise[random]", "compile")]
    assert rnd["status"] == "ok-unverified" and rnd["graph_breaks"] == 1 and "1 graph break" in rnd["detail"]
    # a function whose eager result is an input: explain reports -1, the record never does
    assert statuses_run["results"][("onnx_offset", "compile")]["graph_breaks"] == 0


def test_mismatch_details_are_measured(statuses_run):
    for name, path in (("onnx_offset", "onnx"), ("export_offset", "export"), ("compile_offset", "compile")):
        r = statuses_run["results"][(name, path)]
        assert r["detail"] == "output 0: max abs diff 1, 120 of 120 elements outside atol=0.0002 rtol=0.001"


def test_failure_evidence(statuses_run):
    r = statuses_run["results"][("custom_twice", "onnx")]
    assert "No ONNX function found" in r["error"]["message"] and "fixture_ops.twice" in r["error"]["message"]
    assert r["onnx"] is None and r["timings"]["run_s"] is None
    c = statuses_run["results"][("lying_fake", "compile")]
    assert c["error"]["type"] == "AssertionError" and "expected size" in c["error"]["message"]
    e = statuses_run["results"][("data_branch", "export")]
    assert "data-dependent" in e["error"]["message"]
    assert e["error"]["frames"] and e["error"]["frames"][0].startswith("fixture_ops.py:")
    n = statuses_run["results"][("eager_raises", "onnx")]
    assert n["error"]["type"] == "ValueError" and n["error"]["frames"][0].startswith("fixture_ops.py:")
    # fixture_ops.py sits in the registry's folder, but it is the library: never registry code
    assert n["error"]["raised_in"] == "library" and n["error"]["registry_frames"] == []
    # a custom op without ONNX lowering: raised while translating, located where eager calls it
    t = statuses_run["results"][("custom_twice", "onnx")]
    assert t["error"]["frames"] == [f"fixture_ops.py:{_line_of('def custom_twice') + 1}"] and t["error"]["raised_in"] == ""
    assert n["sources"] == ["fixture_ops.py"] and n["outputs"] is None
    s = statuses_run["results"][("skipped", "compile")]
    assert s["detail"] == "needs a GPU" and s["error"] is None and s["sources"] == []


def test_hello_and_inventory(statuses_run):
    hello = statuses_run["hello"]
    assert hello["protocol"] == 3 and [p["id"] for p in hello["paths"]] == [
        "onnx", "export", "compile", "export-dynamic", "onnx-dynamic", "compile-dynamic", "aoti-dynamic", "aoti",
        "executorch"]
    assert len(hello["harness"]) == 32 and isinstance(hello["pid"], int)
    env = hello["env"]
    import numpy
    import onnx
    import onnxruntime
    import onnxscript
    import torch

    assert env["torch"] == torch.__version__ and env["numpy"] == numpy.__version__
    assert env["onnx"] == onnx.__version__ and env["onnxruntime"] == onnxruntime.__version__
    assert env["onnxscript"] == onnxscript.__version__
    assert env["opset"] == 18 and env["device"] == "cpu"
    assert env["library"]["name"] == "fixture_ops" and len(env["library"]["fingerprint"]) == 32
    names = [c["name"] for c in statuses_run["inventory"]["cases"]]
    assert names == list(EXPECTED)
    recipes = {c["recipe"] for c in statuses_run["inventory"]["cases"]}
    assert len(recipes) == 1 and len(next(iter(recipes))) == 32


def test_the_inputs_recipe_follows_the_registry_code_it_loaded_and_nothing_of_the_machine(tmp_path, monkeypatch):
    """What a case's inputs are computed from, except the CPU (docs/formats.md section 4.2): the
    registry modules that were loaded, the library's fingerprint, the versions, the thread count
    and the variables that steer kernels. A file of the folder that no registry imported is not
    part of it."""
    import importlib
    import sys

    from opsweep.worker import inputs_recipe

    folder = tmp_path / "regs"
    folder.mkdir()
    (folder / "recipe_helper_mod.py").write_text("SCALE = 2.0\n", encoding="utf-8")
    (folder / "unused.py").write_text("X = 1\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.delenv("ATEN_CPU_CAPABILITY", raising=False)
    importlib.import_module("recipe_helper_mod")
    try:
        first = inputs_recipe([str(folder)], "lib-a")
        assert inputs_recipe([str(folder)], "lib-a") == first  # deterministic
        (folder / "unused.py").write_text("X = 2\n", encoding="utf-8")
        assert inputs_recipe([str(folder)], "lib-a") == first  # never imported: not part of it
        assert inputs_recipe([str(folder)], "lib-b") != first  # the library's sources
        monkeypatch.setenv("ATEN_CPU_CAPABILITY", "avx2")
        assert inputs_recipe([str(folder)], "lib-a") != first  # a kernel choice
        monkeypatch.delenv("ATEN_CPU_CAPABILITY")
        (folder / "recipe_helper_mod.py").write_text("SCALE = 3.0\n", encoding="utf-8")
        changed = inputs_recipe([str(folder)], "lib-a")
        assert changed != first  # a registry helper that was loaded
        # a module whose __file__ is relative (torch._classes: "_classes.py") is no file of the folder,
        # even when the folder is the working directory
        monkeypatch.chdir(folder)
        assert inputs_recipe([str(folder)], "lib-a") == changed
        (folder / "recipe_helper_mod.py").unlink()
        assert inputs_recipe([str(folder)], "lib-a") != changed  # gone since its import: said, not raised
    finally:
        sys.modules.pop("recipe_helper_mod", None)


def test_protocol_survives_prints_and_answers_every_job(statuses_run):
    # noisy printed a forged protocol line to stdout: it is in the log, not in the protocol
    log = statuses_run["log"]
    assert "this line goes to the worker's log" in log and '"case":"forged"' in log
    assert all(m["type"] == "result" and m["case"] != "forged" for m in statuses_run["messages"])
    assert statuses_run["unknown_case"]["record"]["status"] == "fail"
    assert statuses_run["unknown_case"]["record"]["step"] == "worker"
    assert "unknown path 'tensorrt'" in statuses_run["unknown_path"]["record"]["detail"]
    assert statuses_run["exit_code"] == 0


def _line_of(text: str) -> int:
    """The 1-based line of ``text`` in fixture_ops.py."""
    import fixture_ops

    with open(fixture_ops.__file__, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if line.startswith(text):
                return number
    raise AssertionError(text)


def test_poisoned_worker_exits_3_and_sends_the_record(tmp_path):
    w = Worker([POISON_REGISTRY], str(tmp_path / "w.log"))
    try:
        assert w.receive()["type"] == "hello"
        assert w.receive()["type"] == "inventory"
        assert w.receive()["type"] == "index"
        ok = w.job("noisy", "export")
        assert ok["type"] == "result" and ok["record"]["status"] == "ok"
        bad = w.job("set_default_dtype", "export")
        assert bad["type"] == "poisoned", bad
        assert bad["case"] == "set_default_dtype" and bad["path"] == "export"
        assert "default dtype changed from torch.float32 to torch.float64" in bad["reason"]
        # the job's own record travels with the message: what was measured before the poison
        record = bad["record"]
        assert set(record) == RECORD_KEYS and record["status"] in ("ok", "mismatch", "fail"), record
        assert record["notes"] == [f"the worker was poisoned after this job: {bad['reason']}"]
        assert w.receive() is None  # nothing after poisoned
    finally:
        code = w.close()
    assert code == 3


def test_a_kept_inference_guard_poisons(tmp_path):
    """Inference mode left on with its guard object still referenced: restoring now would be undone
    whenever that object is freed, so the worker is poisoned."""
    w = Worker([POISON_REGISTRY], str(tmp_path / "w.log"))
    try:
        assert w.receive()["type"] == "hello"
        assert w.receive()["type"] == "inventory"
        assert w.receive()["type"] == "index"
        bad = w.job("leak_inference_guard_kept", "export")
        assert bad["type"] == "poisoned", bad
        assert "inference mode changed from False to True" in bad["reason"]
        assert "guard object(s) still alive" in bad["reason"]
        assert bad["record"]["notes"][-1].startswith("the worker was poisoned after this job")
    finally:
        code = w.close()
    assert code == 3


def test_inference_mode_leaked_by_a_failed_compile_is_restored(tmp_path):
    """kornia's RT-DETR ObjectDetector, RTDETRDetectorBuilder.build and SegmentationModelsBuilder.build
    decorate forward with @torch.inference_mode(); torch.compile fails inside it and leaves the mode
    entered. The failure is the job's result; the worker restores the thread state and goes on."""
    w = Worker([POISON_REGISTRY], str(tmp_path / "w.log"), env={"TORCHINDUCTOR_CACHE_DIR": INDUCTOR_CACHE})
    try:
        assert w.receive()["type"] == "hello"
        assert w.receive()["type"] == "inventory"
        assert w.receive()["type"] == "index"
        leaked = w.job("InferenceAttention", "compile")
        assert leaked["type"] == "result", leaked
        r = leaked["record"]
        import torch

        if tuple(int(x) for x in torch.__version__.split("+")[0].split(".")[:2]) < (2, 13):
            # torch 2.9 compiles it without failing (measured): nothing leaks, nothing to restore
            assert (r["status"], r["notes"]) == ("ok", []), r
        else:
            assert (r["status"], r["step"]) == ("fail", "compile"), r
            assert "Cannot set version_counter for inference tensor" in r["error"]["message"]
            assert len(r["notes"]) == 1 and r["notes"][0].startswith("the job left torch's thread-local state changed ("), r
            assert r["notes"][0].endswith("); the worker restored it")
        # the same worker goes on measuring correctly, and its state is the baseline again
        after = w.job("noisy", "compile")
        assert after["type"] == "result" and after["record"]["status"] == "ok" and after["record"]["notes"] == []
        w.send({"type": "shutdown"})
    finally:
        code = w.close()
    assert code == 0


def test_registry_error_sends_error_and_exits_2(tmp_path):
    bad = tmp_path / "cases_broken.py"
    bad.write_text("CASES = {}\n")
    w = Worker([STATUSES_REGISTRY, str(bad)], str(tmp_path / "w.log"), library="fixture_ops")
    try:
        assert w.receive()["type"] == "hello"
        err = w.receive()
        assert err == {"type": "error", "message": "cases_broken.py: CASES is a dict, not a list"}
        assert w.receive() is None
    finally:
        code = w.close()
    assert code == 2


def test_inductor_cache_dir_is_honoured(statuses_run):
    """The session worker ran with TORCHINDUCTOR_CACHE_DIR set: compiled code landed there."""
    found = [f for _, _, files in os.walk(INDUCTOR_CACHE) for f in files]
    assert found, INDUCTOR_CACHE


def test_thread_state_guard_restores_only_what_it_can_prove():
    """In process: a leaked inference-mode guard that only the garbage collector can free is
    destroyed at once and its state undone; one still referenced poisons; other state poisons."""
    import gc

    import torch

    from opsweep.worker import ThreadStateGuard, torch_state

    baseline = torch_state()
    gc.disable()  # the leaked guard must still be alive when settle() runs
    try:
        guard = ThreadStateGuard()
        leaked = torch._C._InferenceMode(True)
        leaked.__enter__()
        cycle: list = [leaked]
        cycle.append(cycle)
        del leaked, cycle
        assert torch.is_inference_mode_enabled()
        note, reason = guard.settle(baseline)
        assert reason is None, reason
        assert note.startswith("the job left torch's thread-local state changed (") and note.endswith("the worker restored it")
        assert "inference mode changed from False to True" in note and "grad mode changed from True to False" in note
        assert torch_state() == baseline

        guard = ThreadStateGuard()
        kept = torch._C._InferenceMode(True)
        kept.__enter__()
        holder = {"guard": kept}  # an untracked dict (only non-GC objects in it), in a tracked list
        owners = [holder]
        assert not gc.is_tracked(holder) and gc.is_tracked(owners)
        note, reason = guard.settle(baseline)
        assert note is None and "1 torch guard object(s) still alive after the job" in reason
        kept.__exit__(None, None, None)  # its saved state is the baseline: leave the test process clean
        del owners, holder, kept
        assert torch_state() == baseline

        guard = ThreadStateGuard()
        torch.set_default_dtype(torch.float64)
        note, reason = guard.settle(baseline)
        torch.set_default_dtype(torch.float32)
        assert note is None and reason == "default dtype changed from torch.float32 to torch.float64"
        assert torch_state() == baseline

        guard = ThreadStateGuard()
        assert guard.settle(baseline) == (None, None)
    finally:
        gc.enable()
