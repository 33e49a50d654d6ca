"""The onnx path's sub-verdicts end to end with fake workers (no torch): `--opset` reaches the
workers and the onnx jobs' keys only; merge classifies every sub-verdict with its own rules; the
page, RST and Markdown show marks, cards and filters; a real browser filters by sub-verdict.

Expectations are computed from the snapshot merge wrote (the rules docs/page.md states), not
copied from the page.
"""

import json
import os
import re
import subprocess
import sys

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_workers"))
import run_helpers as h  # noqa: E402
from page_browser import visible_rows  # noqa: E402

FAILURE = {"mismatch", "fail", "crash", "timeout"}
SUPPORTED = {"ok", "ok-breaks", "ok-unverified"}

OV_DET = {"type": "RuntimeError", "message": "No conversion rule found for operations: Det-18\n"
          "FrontEnd API failed with OpConversionFailure:\nModel wasn't fully converted.", "chain": "", "frames": []}
TRACT_DET = {"type": "tract.bindings.TractError", "message": "Translating node #1 \"n0\" Unimplemented(Det) "
             "ToTypedTranslator\n\nCaused by:\n    Operator can not be made a TypedOp.", "chain": "", "frames": []}
REF_GS = {"type": "RuntimeError", "message": "GridSample interpolation only supports nearest, linear, and cubic modes.",
          "chain": "", "frames": []}
AXES = {"type": "opsweep.runtimes.opsets.ConversionFailed", "message": (
    "torch.onnx.export(opset_version=17) returns a model at opset 18: the version conversion failed (RuntimeError: "
    "/project/onnx/version_converter/adapters/axes_input_to_attribute.h:55: adapt: Assertion `node->hasAttribute(kaxes)` "
    "failed: No initializer or constant input to node found)"), "chain": "", "frames": []}


def sub(status, step="", detail="", error=None):
    return {"status": status, "step": step, "detail": detail, "error": error, "checks": {}, "timings": {"total_s": 0.1}}


OK = sub("ok")
CASES = [
    {"name": "ok_det", "group": "linalg", "subverdicts": {"onnx": {
        "openvino": sub("fail", "load", error=OV_DET), "tract": sub("fail", "compile", error=TRACT_DET),
        "reference": OK, "opset17": OK}}},
    {"name": "ok_blur", "group": "filters", "subverdicts": {"onnx": {
        "openvino": OK, "tract": OK, "reference": OK, "opset17": sub("fail", "convert", error=AXES)}}},
    {"name": "ok_nan", "group": "filters", "subverdicts": {"onnx": {
        "openvino": sub("mismatch", "compare", "output 0: NaN positions differ (1 NaN, eager has 2, 1 positions disagree)"),
        "tract": sub("mismatch", "compare", "output 0: NaN positions differ (0 NaN, eager has 2, 2 positions disagree)"),
        "reference": OK, "opset17": OK}}},
    {"name": "ok_warp", "group": "geometry", "subverdicts": {"onnx": {
        "openvino": OK, "reference": sub("fail", "run", error=REF_GS),
        "tract": sub("timeout", "run", "no answer within the 60 s time limit of tract (step run); the runtime host was killed"),
        "opset17": OK}}},
    {"name": "fail_svd", "group": "linalg"},  # the export fails: no file, no sub-verdict
]
OPSET17 = {"id": "opset17", "title": "opset 17", "label": "op17", "kind": "opset",
           "description": "torch.onnx.export(opset_version=17), onnx.checker, run in onnxruntime",
           "steps": ["convert", "checker", "ort-load", "ort-run", "compare"]}


def bundled_onnx():
    with open(os.path.join(os.path.dirname(__file__), "fixtures", "paths.json"), encoding="utf-8") as f:
        return next(d for d in json.load(f) if d["id"] == "onnx")


def survey(tmp_path):
    """A fake run with sub-verdicts (opset 17 requested), merged; returns (snapshot path, data)."""
    onnx = bundled_onnx()
    reg = h.write_registry(tmp_path, CASES, paths=["onnx", "export"],
                           describe={"onnx": {"subverdicts": onnx["subverdicts"] + [OPSET17]}},
                           env={"openvino": "2026.4.1", "tract": "0.23.9", "opsets": "17,18"})
    p = h.run(["--cases", reg, "--opset", "17"], tmp_path)
    assert p.returncode == 0, p.stderr
    out = tmp_path / "snapshot.json"
    m = subprocess.run([h.binary(), "merge", str(tmp_path / ".opsweep" / "results.db"), "-o", str(out)],
                       capture_output=True, text=True, timeout=60)
    assert m.returncode == 0, m.stderr + m.stdout
    return out, json.loads(out.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def merged(tmp_path_factory):
    return survey(tmp_path_factory.mktemp("subverdicts"))


def record(data, name):
    return next(r for r in data["records"] if r["name"] == name)


# ---- the engine: --opset ---------------------------------------------------------------------------

def test_opsets_reach_the_workers_and_key_the_onnx_jobs_only(tmp_path):
    reg = h.write_registry(tmp_path, [{"name": "ok_a"}], paths=["onnx", "export"])
    p = h.run(["--cases", reg, "--opset", "23,17,17"], tmp_path)
    assert p.returncode == 0, p.stderr
    db = tmp_path / ".opsweep" / "results.db"
    assert json.loads(h.runs(db)[0]["env_json"])["opsets"] == "17,23"  # sorted, once each, as the worker got it
    res = h.results(db)
    assert json.loads(res[("ok_a", "onnx")]["key_fields_json"])["opsets"] == "17,23"
    assert "opsets" not in json.loads(res[("ok_a", "export")]["key_fields_json"])
    # the same opsets again: nothing to do; other opsets: the onnx job only runs again
    p = h.run(["--cases", reg, "--opset", "17,23"], tmp_path)
    assert p.returncode == 0 and re.search(r"\b0 to run\b.*\b2 current\b", p.stderr), p.stderr
    p = h.run(["--cases", reg, "--opset", "17"], tmp_path)
    assert p.returncode == 0 and re.search(r"\b1 to run\b.*\b1 current\b", p.stderr), p.stderr
    res = h.results(db)
    assert res[("ok_a", "onnx")]["run_id"] == 3 and res[("ok_a", "export")]["run_id"] == 1
    assert json.loads(res[("ok_a", "onnx")]["key_fields_json"])["opsets"] == "17"


def test_without_opset_a_run_goes_on_with_the_databases_opsets(tmp_path):
    # A refresh of a survey measured with --opset 17,23 that forgets --opset must not count every
    # onnx job as changed (the CI gate's scripts pass no --opset)
    reg = h.write_registry(tmp_path, [{"name": "ok_a"}, {"name": "ok_b"}], paths=["onnx", "export"])
    assert h.run(["--cases", reg, "--opset", "23,17"], tmp_path).returncode == 0
    for extra in (["--dry-run"], []):
        p = h.run(["--cases", reg, *extra], tmp_path)
        assert p.returncode == 0, p.stderr
        assert "opsweep run: --opset 17,23, as the database's onnx results were measured" in p.stderr, p.stderr
        assert re.search(r"\b0 to run\b.*\b4 current\b", p.stderr), p.stderr
    db = tmp_path / ".opsweep" / "results.db"
    assert json.loads(h.runs(db)[-1]["env_json"])["opsets"] == "17,23"  # what the workers were given
    # an explicit --opset still wins, and a new database starts from the default
    p = h.run(["--cases", reg, "--opset", "17"], tmp_path)
    assert p.returncode == 0 and "as the database's" not in p.stderr
    assert re.search(r"\b2 to run\b.*\b2 current\b", p.stderr), p.stderr
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    p = h.run(["--cases", reg], fresh)
    assert p.returncode == 0 and "as the database's" not in p.stderr, p.stderr
    assert "opsets" not in json.loads(h.runs(fresh / ".opsweep" / "results.db")[0]["env_json"])


def test_a_bad_opset_list_is_one_line_and_exit_2(tmp_path):
    reg = h.write_registry(tmp_path, [{"name": "ok_a"}])
    for value in ("x", "17.5", "-3", "1234"):
        p = h.run(["--cases", reg, f"--opset={value}"], tmp_path)
        lines = p.stderr.strip().splitlines()
        assert p.returncode == 2 and len(lines) == 1, (value, p.stderr)
        assert lines[0].startswith("opsweep run: error: --opset '") and "expected ONNX opset numbers" in lines[0]
    assert not (tmp_path / ".opsweep" / "results.db").exists() or h.results(tmp_path / ".opsweep" / "results.db") == {}


# ---- merge ----------------------------------------------------------------------------------------

def test_merge_classifies_every_sub_verdict_under_its_path(merged):
    _, data = merged
    onnx = next(p for p in data["paths"] if p["id"] == "onnx")
    assert [s["id"] for s in onnx["subverdicts"]] == ["openvino", "tract", "reference", "opset17"]
    det = record(data, "ok_det")["paths"]["onnx"]
    assert det["status"] == "ok"  # the path's own verdict is onnxruntime's, whatever the runtimes say
    subs = det["subverdicts"]
    assert (subs["openvino"]["reason"], subs["openvino"]["detail"]) == (
        "openvino-missing-op", "OpenVINO 2026.4.1 has no conversion rule for ONNX Det (opset 18)")
    assert subs["openvino"]["error"] == "No conversion rule found for operations: Det-18"
    assert (subs["tract"]["reason"], subs["tract"]["detail"]) == ("tract-missing-op", "tract 0.23.9 does not implement ONNX Det")
    assert subs["reference"] == {"status": "ok", "step": "", "reason": None, "detail": "", "error": "", "location": ""}
    blur = record(data, "ok_blur")["paths"]["onnx"]["subverdicts"]["opset17"]
    assert (blur["status"], blur["step"], blur["reason"]) == ("fail", "convert", "opset-conversion-constant-axes")
    assert blur["detail"].startswith("torch.onnx.export(opset_version=17) returns the model at opset 18")
    warp = record(data, "ok_warp")["paths"]["onnx"]["subverdicts"]
    assert warp["tract"]["reason"] == "runtime-timeout" and warp["reference"]["reason"] == "reference-gridsample-modes"
    assert record(data, "ok_nan")["paths"]["onnx"]["subverdicts"]["openvino"]["reason"] == "runtime-nan-handling"
    # no file, no sub-verdict; other paths have none
    assert "subverdicts" not in record(data, "fail_svd")["paths"]["onnx"]
    assert all("subverdicts" not in r["paths"]["export"] for r in data["records"])
    for rid in ("openvino-missing-op", "tract-missing-op", "runtime-timeout", "reference-gridsample-modes",
                "opset-conversion-constant-axes", "runtime-nan-handling"):
        assert rid in data["reasons"], rid
    assert all(s["reason"] != "unclassified" for r in data["records"] for s in r["paths"]["onnx"].get("subverdicts", {}).values())
    assert data["unclassified"] == 2  # fail_svd's own "fake fail" on both paths: no rule knows the fake


# ---- the three formats ------------------------------------------------------------------------------

def render(binary, snapshot, tmp_path):
    out = {kind: tmp_path / f"page.{kind}" for kind in ("html", "md", "rst")}
    args = [str(binary), "render", str(snapshot)]
    for kind, path in out.items():
        args += [f"--{kind}", str(path)]
    p = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return {kind: path.read_text(encoding="utf-8") for kind, path in out.items()}, out


def test_markdown_and_rst_show_marks_cards_and_details(binary, merged, tmp_path):
    snapshot, data = merged
    text, _ = render(binary, snapshot, tmp_path)
    md, rst = text["md"], text["rst"]
    # the det row: ONNX yes, OpenVINO and tract no, the reference yes; opset 17 agrees, so no mark
    det_md = next(line for line in md.splitlines() if line.startswith("| `ok_det`"))
    assert "✓ yes (OV ✗, tract ✗, ref ✓)" in det_md, det_md
    assert "**ONNX in OpenVINO:** OpenVINO 2026.4.1 has no conversion rule for ONNX Det (opset 18)" in det_md
    blur_md = next(line for line in md.splitlines() if line.startswith("| `ok_blur`"))
    assert "(OV ✓, tract ✓, ref ✓, op17 ✗)" in blur_md, blur_md  # opset 17 differs from the ONNX column
    # cards: supported / exported (the sub-verdicts that ran: 4 of 5 records exported)
    assert "| ONNX in OpenVINO | 2 | 4 | 50.0% | 2 |" in md, md[:3000]
    assert "| ONNX at opset 17 | 3 | 4 | 75.0% | 1 |" in md
    assert "OV: ONNX in OpenVINO, shown whenever it ran" in md
    assert "✓ yes (OV ✗, tract ✗, ref ✓)" in rst
    assert "**ONNX in tract:** tract 0.23.9 does not implement ONNX Det" in rst
    assert "ONNX in OpenVINO" in rst and "Other runtimes and opsets" in rst


# ---- the page in a real browser -------------------------------------------------------------------

def expected(data, value):
    key, wanted = value.rsplit(":", 1)
    path, sub_id = key.split("/")
    names = []
    for r in data["records"]:
        outcome = r["paths"][path]
        s = outcome.get("subverdicts", {}).get(sub_id)
        if s is None:
            continue
        if (wanted == "failure" and s["status"] in FAILURE) or (wanted == "supported" and s["status"] in SUPPORTED) or (
                wanted == "differs" and s["status"] != outcome["status"]):
            names.append(r["name"])
    return sorted(names)


@pytest.fixture(scope="module")
def page(binary, merged, tmp_path_factory):
    snapshot, data = merged
    _, paths = render(binary, snapshot, tmp_path_factory.mktemp("page"))
    return paths["html"].as_uri(), data


def test_filters_by_sub_verdict(browser, page):
    url, data = page
    browser.get("about:blank")
    browser.get(url)
    select = Select(browser.find_element(By.ID, "f"))
    values = [o.get_attribute("value") for o in select.options]
    for value in ("onnx/openvino:failure", "onnx/openvino:supported", "onnx/tract:failure", "onnx/reference:failure",
                  "onnx/tract:differs", "onnx/opset17:differs", "onnx/opset17:supported"):
        assert value in values, value
        select.select_by_value(value)
        want = expected(data, value)
        assert want, f"{value}: the fixture must show something"
        assert visible_rows(browser) == want, value
        # the option's count is the number of rows it shows
        option = next(o for o in select.options if o.get_attribute("value") == value)
        assert option.text.endswith(f"({len(want)})"), option.text
    label = next(o.text for o in select.options if o.get_attribute("value") == "onnx/openvino:failure")
    assert label.startswith("ONNX exports but fails in OpenVINO")
    # the state survives a reload through the URL
    select.select_by_value("onnx/openvino:failure")
    assert "f=onnx%2Fopenvino:failure" in browser.current_url or "f=onnx/openvino:failure" in browser.current_url
    browser.get("about:blank")
    browser.get(browser.execute_script("return arguments[0]", url) + "#f=onnx%2Fopenvino%3Afailure")
    assert visible_rows(browser) == expected(data, "onnx/openvino:failure")


def test_marks_sit_beside_the_onnx_cell_with_their_details_on_demand(browser, page):
    url, data = page
    browser.get("about:blank")
    browser.get(url)
    det = browser.find_element(By.CSS_SELECTOR, "tr[data-name='ok_det']")
    onnx_cell = det.find_elements(By.CSS_SELECTOR, "td.c")[0]
    marks = onnx_cell.find_elements(By.CSS_SELECTOR, ".marks .sv")
    assert [m.text.split()[0] for m in marks] == ["OV✗", "tract✗", "ref✓"] or \
        [m.get_attribute("textContent").split()[0] for m in marks] == ["OV✗", "tract✗", "ref✓"]
    ov = marks[0]
    assert "st-fail" in ov.get_attribute("class")
    assert ov.get_attribute("title") == ("ONNX in OpenVINO: no: OpenVINO 2026.4.1 has no conversion rule for ONNX Det "
                                         "(opset 18)")
    # the export column has no marks; an opset that agrees with ONNX has none either
    assert det.find_elements(By.CSS_SELECTOR, "td.c")[1].find_elements(By.CSS_SELECTOR, ".sv") == []
    blur = browser.find_element(By.CSS_SELECTOR, "tr[data-name='ok_blur']")
    assert blur.find_elements(By.CSS_SELECTOR, "td.c")[0].find_elements(By.CSS_SELECTOR, ".sv")[-1] \
        .get_attribute("textContent").startswith("op17")
    # details on demand: closed, a summary that says who fails, the lines inside
    details = det.find_element(By.CSS_SELECTOR, "details.subs")
    assert details.get_attribute("open") is None
    summary = details.find_element(By.TAG_NAME, "summary")
    assert summary.text == "fails in OpenVINO and tract"
    line = details.find_element(By.TAG_NAME, "li")
    assert not line.is_displayed()
    summary.click()
    assert line.is_displayed() and "has no conversion rule for ONNX Det" in line.text
    # a card per sub-verdict
    cards = browser.find_elements(By.CSS_SELECTOR, ".cards.subs .card")
    assert [c.find_element(By.TAG_NAME, "h2").text for c in cards] == [
        "ONNX in OpenVINO", "ONNX in tract", "ONNX in onnx.reference", "ONNX at opset 17"]
    assert cards[0].find_element(By.CSS_SELECTOR, ".big").text == "2 / 4 exported"
    # the search sees what the sub-verdicts say
    box = browser.find_element(By.ID, "q")
    box.send_keys("Unimplemented")
    assert visible_rows(browser) == ["ok_det"]
