"""`opsweep merge` end to end: the snapshot it writes (golden file, determinism, shards, content)."""

from __future__ import annotations

import json
import os
import pathlib
import sys

FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "merge"
sys.path.insert(0, str(FIXTURES))

import merge_db  # noqa: E402
from merge_db import run_merge, standard_survey, write_db  # noqa: E402

GOLDEN = FIXTURES / "golden_snapshot.json"


def merged(tmp_path, *dbs, extra=(), name="snapshot.json"):
    out = tmp_path / name
    proc = run_merge(*map(str, dbs), "-o", str(out), *extra)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    return out, proc


def test_golden_snapshot(tmp_path):
    db = write_db(standard_survey(), tmp_path / "results.db")
    out, _ = merged(tmp_path, db)
    text = out.read_text()
    if os.environ.get("OPSWEEP_REGENERATE_GOLDEN") == "1":  # deliberate regeneration only
        GOLDEN.write_text(text)
    assert text == GOLDEN.read_text(), "snapshot differs from tests/fixtures/merge/golden_snapshot.json"


def test_snapshot_is_deterministic_and_formatted(tmp_path):
    db = write_db(standard_survey(), tmp_path / "results.db")
    a, _ = merged(tmp_path, db, name="a.json")
    b, _ = merged(tmp_path, db, name="b.json")
    assert a.read_bytes() == b.read_bytes()
    text = a.read_text()
    assert text.endswith("}\n")
    data = json.loads(text)
    assert text == json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_timings_beside_the_snapshot(tmp_path):
    db = write_db(standard_survey(), tmp_path / "results.db")
    out, proc = merged(tmp_path, db)
    timings = json.loads((tmp_path / "snapshot.timings.json").read_text())
    assert timings["schema"] == 1
    assert timings["records"]["find_fundamental"]["onnx"] == {"duration_s": 4.25, "size_kb": None}
    assert timings["records"]["rgb_to_grayscale"]["onnx"] == {"duration_s": 0.5, "size_kb": 12.5}
    snapshot = out.read_text()
    assert "duration" not in snapshot and "size_kb" not in snapshot
    assert "snapshot.timings.json" in proc.stdout


def test_header_comes_from_the_workers_not_the_merging_machine(tmp_path):
    survey = standard_survey()
    survey.env["torch"] = "2.99.0+measured"
    survey.env["python"] = "3.10.1"
    db = write_db(survey, tmp_path / "results.db")
    out, _ = merged(tmp_path, db)
    data = json.loads(out.read_text())
    assert data["environment"]["torch"] == "2.99.0+measured"
    assert data["environment"]["python"] == "3.10.1"
    assert data["generated"] == "2026-11-30"  # the newest result, not today
    assert data["library"] == merge_db.ENV["library"]
    assert data["environment"]["opset"] == 18 and data["environment"]["device"] == "cpu"
    # The union of the env fields the paths' descriptions name, and nothing the merging machine has.
    assert sorted(data["environment"]) == sorted(["python", "torch", "numpy", "device", "onnx", "onnxscript",
                                                  "onnxruntime", "opset", "openvino", "tract", "opsets"])
    assert "opset" not in data and "device" not in data  # schema 2: inside the environment
    # The paths as their descriptions say (tests/fixtures/paths.json), without harness or durations.
    assert [p["id"] for p in data["paths"]] == ["onnx", "export", "compile"]
    for path in data["paths"]:
        described = merge_db.DESCRIPTIONS[path["id"]]
        # the optional fields (group, reproducible) only where the description has them
        assert path == {k: described[k] for k in ("id", "title", "label", "description", "steps", "env",
                                                   "subverdicts", "order", "group", "reproducible")
                        if k in described}


def test_a_snapshot_of_export_only_names_only_its_env_fields(tmp_path):
    survey = standard_survey()
    survey.paths = ["export"]
    survey.results = {k: v for k, v in survey.results.items() if k[1] == "export"}
    out, _ = merged(tmp_path, write_db(survey, tmp_path / "results.db"))
    data = json.loads(out.read_text())
    assert sorted(data["environment"]) == ["device", "numpy", "python", "torch"]
    assert [p["id"] for p in data["paths"]] == ["export"]


def test_records_are_normalised_and_classified(tmp_path):
    db = write_db(standard_survey(), tmp_path / "results.db")
    out, proc = merged(tmp_path, db)
    data = json.loads(out.read_text())
    records = {r["name"]: r for r in data["records"]}
    names = [r["name"] for r in data["records"]]
    keys = [(r["package"], r["section"], r["operator"], r["name"]) for r in data["records"]]
    assert keys == sorted(keys), names

    crop = records["RandomCrop[p=0.5][random]"]
    assert (crop["operator"], crop["variant"], crop["package"], crop["section"]) == (
        "RandomCrop", "p=0.5, random", "augmentation", "2d")
    assert crop["paths"]["export"]["reason"] == "data-dependent-branch"
    assert crop["paths"]["export"]["location"] == "kornia/augmentation/_2d/geometric/crop.py:88"
    assert crop["paths"]["compile"]["break_reasons"] == [
        {"reason": "data-dependent-branch", "text": "generic_jump TensorVariable()",
         "location": "kornia/augmentation/_2d/geometric/crop.py:91"}]

    fund = records["find_fundamental"]
    assert fund["section"] == "epipolar"
    onnx = fund["paths"]["onnx"]
    assert onnx["reason"] == "onnx-missing-lowering"
    assert onnx["detail"] == "torch.linalg.svd has no ONNX lowering in onnxscript 0.7.2"
    assert onnx["location"] == "kornia/geometry/epipolar/fundamental.py:120"  # innermost first
    assert onnx["error"].startswith("No ONNX function found for <OpOverload(op='aten._linalg_svd'")
    compile_ = fund["paths"]["compile"]
    assert compile_["graph_breaks"] == 2
    assert [b["reason"] for b in compile_["break_reasons"]] == ["tensor-read-back", "unclassified"]
    assert compile_["reason"] is None

    expect = {("gaussian_blur2d[sigma=(1.5, 1.5)]", "onnx"): "value-mismatch",
              ("gaussian_blur2d[sigma=(1.5, 1.5)]", "compile"): "worker-crash",
              ("LoFTR", "export"): "skipped",
              ("equalize", "onnx"): "unclassified",
              ("equalize", "export"): "timeout",
              ("equalize", "compile"): "inductor-lowering-error",
              ("total_variation", "onnx"): "eager-failure",
              ("draw_line", "onnx"): "ort-run-failure",
              ("draw_line", "export"): "no-tensor-output",
              ("rgb_to_grayscale", "onnx"): None}
    for (name, path), reason in expect.items():
        assert records[name]["paths"][path]["reason"] == reason, (name, path)
    assert records["gaussian_blur2d[sigma=(1.5, 1.5)]"]["paths"]["onnx"]["detail"] == \
        "max abs diff 0.031 at 12 of 3840 elements"
    assert records["rgb_to_grayscale"]["paths"]["onnx"]["op_types"] == ["Add", "Mul", "ReduceSum"]
    # Every reason used is explained; nothing else is.
    used = {o["reason"] for r in data["records"] for o in r["paths"].values() if o["reason"]}
    used |= {b["reason"] for r in data["records"] for o in r["paths"].values() for b in o["break_reasons"]}
    assert set(data["reasons"]) == used
    for reason in data["reasons"].values():
        assert reason["title"] and reason["cause"] and reason["hint"]
    # Unclassified errors are counted, shown, and keep a cleaned first line.
    assert data["unclassified"] == 2
    assert "2 errors matched no rule" in proc.stdout
    assert "Something odd happened in ~/work/thing.py while exporting" in proc.stdout
    assert records["equalize"]["paths"]["onnx"]["error"] == \
        "Something odd happened in ~/work/thing.py while exporting"


def test_checks_notes_and_break_locations_reach_the_snapshot(tmp_path):
    db = write_db(standard_survey(), tmp_path / "results.db")
    out, _ = merged(tmp_path, db)
    records = {r["name"]: r for r in json.loads(out.read_text())["records"]}
    # record.checks -> one text per check: "passed", "failed: why", "not run: why" (cleaned).
    assert records["rgb_to_grayscale"]["paths"]["onnx"]["checks"] == {"fresh_inputs": "passed"}
    assert records["find_fundamental"]["paths"]["export"]["checks"] == {
        "fresh_inputs": "not run: the case opted out: only the points in ~/data/points.npy are valid"}
    assert records["RandomCrop[p=0.5][random]"]["paths"]["onnx"]["checks"] == {
        "fresh_inputs": "passed", "randomness": "passed"}
    assert records["RandomCrop[p=0.5][random]"]["paths"]["compile"]["checks"]["randomness"] == (
        "not run: eager gives the same outputs under 9 seeds (no randomness reaches them): values compared with eager")
    assert records["gaussian_blur2d[sigma=(1.5, 1.5)]"]["paths"]["onnx"]["checks"] == {
        "fresh_inputs": "not run: the capture already differs on its trace inputs"}
    # A record without checks (a failure before the capture ran, an engine-made crash) has none.
    assert "checks" not in records["equalize"]["paths"]["compile"]
    assert "checks" not in records["gaussian_blur2d[sigma=(1.5, 1.5)]"]["paths"]["compile"]
    # record.notes -> "notes": cleaned (colour codes, home paths), empty and repeated ones dropped;
    # omitted when there is none.
    assert records["draw_line"]["paths"]["compile"]["notes"] == [
        "the job left torch's thread-local state changed (inference mode changed from False to True); the worker "
        "restored it", "seen in ~/work/probe.py"]
    assert "notes" not in records["rgb_to_grayscale"]["paths"]["onnx"]  # [] in the record
    # break_frames -> each break reason's "location" (its first frame), omitted when unknown.
    assert records["find_fundamental"]["paths"]["compile"]["break_reasons"] == [
        {"reason": "tensor-read-back", "text": "Unsupported Tensor.item() call with capture_scalar_outputs=False",
         "location": "kornia/geometry/epipolar/fundamental.py:77"},
        {"reason": "unclassified", "text": "Some brand-new graph break nobody has a rule for, raised in ~/.cache/x.py"}]


def test_records_without_the_optional_fields_give_the_snapshot_they_always_gave(tmp_path):
    # Records written before checks, notes and break_frames existed: none of them in the snapshot.
    survey = standard_survey()
    for r in survey.results.values():
        for key in ("checks", "notes", "break_frames"):
            r["record"].pop(key, None)
    out, _ = merged(tmp_path, write_db(survey, tmp_path / "results.db"))
    data = json.loads(out.read_text())
    for r in data["records"]:
        for outcome in r["paths"].values():
            assert "checks" not in outcome and "notes" not in outcome
            assert all(set(b) == {"reason", "text"} for b in outcome["break_reasons"])


def test_a_failure_raised_in_registry_code_is_located_there_and_classified_registry_error(tmp_path):
    db = write_db(merge_db.add_registry_failure(standard_survey()), tmp_path / "results.db")
    out, _ = merged(tmp_path, db)
    data = json.loads(out.read_text())
    wrapped = next(r for r in data["records"] if r["name"] == "tensor_to_image[wrapped]")["paths"]
    # No library frame: the registry's innermost frame.
    assert wrapped["onnx"]["location"] == "cases_misc.py:120"
    assert wrapped["onnx"]["reason"] == "registry-error"
    assert wrapped["onnx"]["detail"] == "raised in the registry's code: .numpy() is not supported for tensor subclasses."
    # Raised in the registry although kornia is on the stack further out: still the registry's line.
    assert wrapped["export"]["location"] == "cases_misc.py:121"
    assert wrapped["export"]["reason"] == "registry-error"
    assert data["reasons"]["registry-error"]["component"] == "registry"
    # A failed check says what differed; the outcome is the fresh-input mismatch.
    assert wrapped["compile"]["reason"] == "fresh-input-mismatch"
    assert wrapped["compile"]["checks"] == {
        "fresh_inputs": "failed: output 0: max abs diff 1, 4 of 192 elements outside atol=0.0002 rtol=0.001"}
    # Without the marker on the chain (an older harness, or a failure raised elsewhere) the rule does
    # not apply, even with registry frames: the classifier reads the chain, not the frames. The same
    # error then reads as the library's read-back: what the marker is there to prevent.
    survey = merge_db.add_registry_failure(standard_survey())
    err = survey.results[("tensor_to_image[wrapped]", "onnx")]["record"]["error"]
    err["chain"] = err["chain"].split("\n", 1)[1]
    err["raised_in"] = ""
    out, _ = merged(tmp_path, write_db(survey, tmp_path / "plain.db"), name="plain.json")
    plain = next(r for r in json.loads(out.read_text())["records"] if r["name"] == "tensor_to_image[wrapped]")
    assert plain["paths"]["onnx"]["reason"] == "tensor-read-back"
    assert plain["paths"]["onnx"]["location"] == ""  # not raised in the registry, no library frame


def test_no_absolute_paths_or_colour_codes_reach_the_snapshot(tmp_path):
    db = write_db(standard_survey(), tmp_path / "results.db")
    out, _ = merged(tmp_path, db)
    text = out.read_text()
    for leak in ("/home/", "/root/", "/tmp/", "site-packages/torch", "\\u001b", "\x1b", str(tmp_path)):
        assert leak not in text, leak


def test_shards_merge_like_one_database(tmp_path):
    survey = standard_survey()
    keys = sorted(survey.results)
    combined = write_db(survey, tmp_path / "all.db")
    a = write_db(survey, tmp_path / "a.db", results=keys[0::2])
    b = write_db(survey, tmp_path / "b.db", results=keys[1::2])
    one, _ = merged(tmp_path, combined, name="one.json")
    two, proc = merged(tmp_path, a, b, name="two.json")
    swapped, _ = merged(tmp_path, extra=("--db", str(b), "--db", str(a)), name="swapped.json")
    assert one.read_bytes() == two.read_bytes() == swapped.read_bytes()
    assert (tmp_path / "one.timings.json").read_bytes() == (tmp_path / "two.timings.json").read_bytes()
    assert "from 2 databases" in proc.stdout


def test_the_later_result_wins_across_shards(tmp_path):
    survey = standard_survey()
    a = write_db(survey, tmp_path / "a.db")
    newer = standard_survey()
    newer.result("equalize", "onnx", merge_db.record("ok", onnx=merge_db.OK_ONNX), finished="2026-12-01T09:00:00Z")
    b = write_db(newer, tmp_path / "b.db", results=[("equalize", "onnx")])
    for order in ((a, b), (b, a)):
        out, _ = merged(tmp_path, *order)
        data = json.loads(out.read_text())
        rec = next(r for r in data["records"] if r["name"] == "equalize")
        assert rec["paths"]["onnx"]["status"] == "ok"
        assert data["generated"] == "2026-12-01"


def test_api_cross_references_from_objects_inv(tmp_path):
    db = write_db(standard_survey(), tmp_path / "results.db")
    inv = merge_db.make_objects_inv(tmp_path / "objects.inv", [
        "kornia.color.rgb_to_grayscale", "kornia.augmentation.RandomCrop", "kornia.filters.gaussian_blur2d"])
    out, proc = merged(tmp_path, db, extra=("--objects-inv", inv))
    data = json.loads(out.read_text())
    assert data["cross_references"] is True
    api = {r["name"]: r["api"] for r in data["records"]}
    assert api["rgb_to_grayscale"] == "kornia.color.rgb_to_grayscale"
    assert api["RandomCrop[p=0.5][random]"] == "kornia.augmentation.RandomCrop"  # operator inside its package
    assert api["gaussian_blur2d[sigma=(1.5, 1.5)]"] == "kornia.filters.gaussian_blur2d"
    assert api["LoFTR"] is None
    assert "3 of 8 records link" in proc.stdout
    out2, proc2 = merged(tmp_path, db, name="plain.json")
    data2 = json.loads(out2.read_text())
    assert data2["cross_references"] is False
    assert all(r["api"] is None for r in data2["records"])
    assert "no --objects-inv" in proc2.stdout


def test_rules_folder_overrides_the_built_in_rules(tmp_path):
    db = write_db(standard_survey(), tmp_path / "results.db")
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "only.json").write_text(json.dumps({"version": 1, "rules": [{
        "id": "odd-thing", "order": 1, "paths": [], "steps": [], "statuses": ["fail"],
        "match": {"substrings": ["Something odd happened"]}, "title": "Odd", "cause": "Odd things happen.",
        "hint": "Look.", "component": "kornia", "sample": "Something odd happened"}]}))
    out, _ = merged(tmp_path, db, extra=("--rules", str(rules)))
    data = json.loads(out.read_text())
    rec = next(r for r in data["records"] if r["name"] == "equalize")
    assert rec["paths"]["onnx"]["reason"] == "odd-thing"
    assert set(data["reasons"]) == {"odd-thing", "unclassified"}
