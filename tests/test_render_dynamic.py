"""The page with the dynamic-shape paths, in a real headless Chromium: their columns, cards,
cells ("yes, static in H, W", "yes, recompiles per H"), the facts in the details (shapes,
specialised dimensions, recompiles and guards), the "caveat" filter, and search over guard texts.

The snapshot is the render fixture plus the three dynamic paths (descriptions from
tests/fixtures/paths.json, the harness's own) with outcomes written the way merge writes them; the
expectations are computed here from that JSON.
"""
import copy
import json
import pathlib
import subprocess

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select
from page_browser import load, visible_rows  # noqa: E402

HERE = pathlib.Path(__file__).parent
FIXTURE = HERE / "fixtures" / "render" / "snapshot.json"
PATHS = HERE / "fixtures" / "paths.json"
ARTIFACTS = HERE / "artifacts"
DYNAMIC = ("export-dynamic", "onnx-dynamic", "compile-dynamic")
SHAPES = ["1x3x32x40", "2x3x48x56", "3x3x64x72"]


def outcome(status, detail="", *, specialised=(), recompiles=None, guards=(), trace=1, reason=None, step=""):
    return {"status": status, "step": step, "reason": reason, "detail": detail, "error": "", "location": "",
            "graph_breaks": None, "break_reasons": [], "op_types": [],
            "dynamic": {"shapes": SHAPES, "trace": trace, "recompiles": recompiles, "guards": list(guards),
                        "specialised": [{"name": n, "kind": k, "why": w} for n, k, w in specialised]}}


# name -> outcomes on export-dynamic, onnx-dynamic, compile-dynamic (others: plain ok)
PLANTED = {
    "warp_affine": [
        outcome("ok-static", "static in H, W", specialised=[
            ("H", "constant", "x0[2] - 1 == 47 at kornia/geometry/transform/affwarp.py:69 in _compute_tensor_center"),
            ("W", "constant", "x0[3] - 1 == 55 at kornia/geometry/transform/affwarp.py:68 in _compute_tensor_center")]),
        outcome("fail", "", step="export", reason="dynamic-size-guard"),
        outcome("ok-recompiles", "recompiles on every new H: size of x0[2] == 48 (2 recompiles)", trace=0,
                specialised=[("H", "constant", "size of x0[2] == 48")], recompiles=2,
                guards=["size of x0[0] == 1", "size of x0[2] == 48"]),
    ],
    "rgb_to_grayscale": [
        outcome("ok"), outcome("ok"), outcome("ok", "1 recompile", trace=0, recompiles=1, guards=["size of x0[0] == 1"]),
    ],
    "elastic_transform2d": [
        outcome("ok-static", "W limited to <= 60", specialised=[("W", "range", "x0[3] <= 60 at kornia/f.py:7 in g")]),
        outcome("mismatch", "matches eager at its trace shape only; at 3x3x64x72: output 0: max abs diff 2",
                specialised=[("W", "range", "x0[3] <= 60 at kornia/f.py:7 in g")], reason="dynamic-shape-branch",
                step="compare"),
        outcome("ok", "2 recompiles; once more at 3x3x64x72: 2 <= x0[3] <= 60 (a size threshold, not every shape)",
                trace=0, recompiles=2, guards=["size of x0[0] == 1", "2 <= x0[3] <= 60 at kornia/f.py:7 in g"]),
    ],
}
REASONS = {
    "dynamic-size-guard": {"title": "A guard on a size keeps a dimension static", "cause": "c", "hint": "h",
                           "component": "library"},
    "dynamic-shape-branch": {"title": "A branch on a size", "cause": "c", "hint": "h", "component": "library"},
}


@pytest.fixture(scope="module")
def snapshot():
    snap = json.loads(FIXTURE.read_text(encoding="utf-8"))
    described = {d["id"]: d for d in json.loads(PATHS.read_text(encoding="utf-8"))}
    for pid in DYNAMIC:
        d = {k: v for k, v in described[pid].items() if k not in ("harness", "expected_seconds")}
        snap["paths"].append(d)
    snap["reasons"].update(REASONS)
    for record in snap["records"]:
        planted = PLANTED.get(record["name"])
        for pid, o in zip(DYNAMIC, planted or [outcome("ok")] * 3):
            record["paths"][pid] = copy.deepcopy(o)
    assert set(PLANTED) <= {r["name"] for r in snap["records"]}
    return snap


@pytest.fixture(scope="module")
def page(binary, snapshot, tmp_path_factory):
    folder = tmp_path_factory.mktemp("dynamic")
    source = folder / "snapshot.json"
    source.write_text(json.dumps(snapshot, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    out = folder / "index.html"
    subprocess.run([str(binary), "render", str(source), "--html", str(out)], check=True, timeout=60)
    return out.as_uri()


def row(browser, name):
    return browser.find_element(By.CSS_SELECTOR, f"tr[data-name='{name}']")


def test_the_dynamic_paths_are_columns_and_cards(browser, page, snapshot):
    load(browser, page)
    heads = [th.get_attribute("textContent") for th in
             browser.find_elements(By.CSS_SELECTOR, "table.ops")[0].find_elements(By.CSS_SELECTOR, "thead th.c")]
    assert heads == [p["title"] for p in snapshot["paths"]]
    assert "torch.export, dynamic shapes" in heads and "torch.compile, dynamic shapes" in heads
    cards = browser.find_element(By.TAG_NAME, "body").text
    for p in DYNAMIC:
        title = next(d["title"] for d in snapshot["paths"] if d["id"] == p)
        assert title in cards


def test_cells_say_static_and_recompiles(browser, page):
    load(browser, page)
    cells = [td.text for td in row(browser, "warp_affine").find_elements(By.CSS_SELECTOR, "td.c")]
    assert cells[-3:] == ["\u2713yes, static in H, W", "\u2717no", "\u2713yes, recompiles per H"]
    cells = [td.text for td in row(browser, "elastic_transform2d").find_elements(By.CSS_SELECTOR, "td.c")]
    assert cells[-3] == "\u2713yes, W limited" and cells[-2] == "\u2260mismatch"
    classes = [td.get_attribute("class") for td in row(browser, "warp_affine").find_elements(By.CSS_SELECTOR, "td.c")]
    assert classes[-3:] == ["c st-ok-static", "c st-fail", "c st-ok-recompiles"]


def test_details_name_shapes_specialised_dims_and_recompiles(browser, page):
    load(browser, page)
    facts = [s.text for s in row(browser, "warp_affine").find_elements(By.CSS_SELECTOR, "td.d .dyn")]
    assert "shapes: 1x3x32x40, then 2x3x48x56 (traced), then 3x3x64x72" in facts
    assert ("H static: x0[2] - 1 == 47 at kornia/geometry/transform/affwarp.py:69 in _compute_tensor_center"
            in facts)
    assert "2 recompiles: size of x0[0] == 1; size of x0[2] == 48" in facts
    # a plain success adds nothing but its detail
    details = row(browser, "rgb_to_grayscale").find_element(By.CSS_SELECTOR, "td.d").text
    assert "1 recompile" in details and "shapes:" not in details


def test_the_caveat_filter_and_the_dynamic_status_filters(browser, page, snapshot):
    load(browser, page)
    select = Select(browser.find_element(By.ID, "f"))
    values = [o.get_attribute("value") for o in select.options]
    assert {"caveat", "export-dynamic:ok-static", "compile-dynamic:ok-recompiles", "onnx-dynamic:mismatch"} <= set(values)
    caveat = sorted(r["name"] for r in snapshot["records"]
                    if any(r["paths"][p]["status"] in ("ok-static", "ok-recompiles") for p in DYNAMIC))
    assert caveat == ["elastic_transform2d", "warp_affine"]
    select.select_by_value("caveat")
    assert visible_rows(browser) == caveat
    assert select.first_selected_option.text.endswith("(2)")
    select.select_by_value("compile-dynamic:ok-recompiles")
    assert visible_rows(browser) == ["warp_affine"]
    select.select_by_value("export-dynamic:supported")  # ok-static counts as supported
    assert visible_rows(browser) == sorted(r["name"] for r in snapshot["records"]
                                           if r["paths"]["export-dynamic"]["status"] in ("ok", "ok-static"))
    # "base-ok": supported on the three paths at one shape, whatever the dynamic ones say
    select.select_by_value("base-ok")
    base = sorted(r["name"] for r in snapshot["records"]
                  if all(r["paths"][p]["status"] in ("ok", "ok-breaks", "ok-unverified") for p in ("onnx", "export", "compile")))
    assert visible_rows(browser) == base and base
    assert select.first_selected_option.text.startswith("Supported on ONNX, torch.export and torch.compile")
    select.select_by_value("all")


def test_search_finds_guard_texts(browser, page):
    load(browser, page)
    box = browser.find_element(By.ID, "q")
    box.send_keys("_compute_tensor_center")
    assert visible_rows(browser) == ["warp_affine"]
    box.clear()
    box.send_keys("x0[3] <= 60")
    assert visible_rows(browser) == ["elastic_transform2d"]


def test_screenshot_with_the_dynamic_columns(browser, page):
    ARTIFACTS.mkdir(exist_ok=True)
    load(browser, page + "#f=caveat")
    browser.execute_script("document.querySelector(\"tr[data-name='warp_affine']\").scrollIntoView({block: 'center'})")
    browser.save_screenshot(str(ARTIFACTS / "page-dynamic.png"))
    load(browser, page)
    browser.save_screenshot(str(ARTIFACTS / "page-dynamic-cards.png"))
    browser.execute_script("window.scrollTo(0, document.querySelector('table.ops').getBoundingClientRect().top"
                           " + window.scrollY - 80)")
    browser.save_screenshot(str(ARTIFACTS / "page-dynamic-top.png"))
    for name in ("page-dynamic.png", "page-dynamic-top.png", "page-dynamic-cards.png"):
        assert (ARTIFACTS / name).stat().st_size > 10_000
    # the group heading spans the three dynamic columns
    group = browser.find_element(By.CSS_SELECTOR, "table.ops tr.grp-h th")
    assert group.get_attribute("textContent") == "dynamic shapes" and group.get_attribute("colspan") == "3"


# ---- beside the other row attributes: sub-verdicts (data-v) and history (data-h) -------------------


def with_subverdicts(snapshot):
    """The dynamic snapshot with the onnx path described as the harness describes it (its
    sub-verdicts) and an OpenVINO failure under warp_affine's onnx outcome."""
    snap = copy.deepcopy(snapshot)
    onnx = next(d for d in json.loads(PATHS.read_text(encoding="utf-8")) if d["id"] == "onnx")
    assert {s["id"] for s in onnx["subverdicts"]} >= {"openvino", "tract", "reference"}
    snap["paths"][0] = {k: v for k, v in onnx.items() if k not in ("harness", "expected_seconds")}
    reason = sorted(snap["reasons"])[0]
    record = next(r for r in snap["records"] if r["name"] == "warp_affine")
    record["paths"]["onnx"]["subverdicts"] = {
        "openvino": {"status": "fail", "step": "load", "reason": reason, "detail": "no conversion rule", "error": "",
                     "location": ""},
        "reference": {"status": "ok", "step": "", "reason": None, "detail": "", "error": "", "location": ""}}
    return snap


def write(snap, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(snap, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


def test_rows_carry_sub_verdicts_beside_the_dynamic_statuses(browser, binary, snapshot, tmp_path):
    snap = with_subverdicts(snapshot)
    source = write(snap, tmp_path / "snapshot.json")
    out = tmp_path / "index.html"
    subprocess.run([str(binary), "render", str(source), "--html", str(out)], check=True, timeout=60)
    load(browser, out.as_uri())
    warp = row(browser, "warp_affine")
    assert warp.get_attribute("data-s").split() == [
        snap["records"][[r["name"] for r in snap["records"]].index("warp_affine")]["paths"][p["id"]]["status"].replace("n/a", "na")
        for p in snap["paths"]]
    assert warp.get_attribute("data-s").split()[-3:] == ["ok-static", "fail", "ok-recompiles"]
    assert warp.get_attribute("data-v") == "onnx/openvino:fail onnx/reference:ok"
    select = Select(browser.find_element(By.ID, "f"))
    select.select_by_value("onnx/openvino:failure")
    assert visible_rows(browser) == ["warp_affine"]
    select.select_by_value("caveat")
    assert visible_rows(browser) == ["elastic_transform2d", "warp_affine"]


def test_history_of_dynamic_paths_marks_a_broken_static_export(browser, binary, snapshot, tmp_path):
    # ok-static is supported: an export-dynamic that goes from ok-static to fail is broken since then
    old = with_subverdicts(snapshot)
    new = copy.deepcopy(old)
    new["environment"]["torch"] = "2.13.0"
    record = next(r for r in new["records"] if r["name"] == "warp_affine")
    record["paths"]["export-dynamic"] = outcome("fail", "", step="export", reason="dynamic-size-guard")
    snapshots = [write(old, tmp_path / "torch-2.9.1" / "snapshot.json"), write(new, tmp_path / "torch-2.13.0" / "snapshot.json")]
    out = tmp_path / "page"
    p = subprocess.run([str(binary), "render", *map(str, snapshots), "-o", str(out)], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, p.stderr
    load(browser, (out / "index.html").as_uri())
    warp = row(browser, "warp_affine")
    assert set(warp.get_attribute("data-h").split()) == {"changed", "broken"}
    assert warp.get_attribute("data-v") == "onnx/openvino:fail onnx/reference:ok"
    assert warp.get_attribute("data-s").split()[-3:] == ["fail", "fail", "ok-recompiles"]
    select = Select(browser.find_element(By.ID, "f"))
    select.select_by_value("broken")
    assert visible_rows(browser) == ["warp_affine"]
    select.select_by_value("caveat")
    assert visible_rows(browser) == ["elastic_transform2d", "warp_affine"]
    assert "broken since torch 2.13.0" in warp.text


def test_the_page_never_scrolls_sideways(browser, binary, snapshot, tmp_path):
    """Six paths and the onnx path's sub-verdicts make the package summary wider than the page:
    it scrolls inside its own box, the page itself never scrolls sideways (a wide desktop window,
    a small laptop, a phone), and the search and filter stay within the bar."""
    snap = with_subverdicts(snapshot)
    # a reason title as long as the real ones ("The ONNX reference evaluator rejects ...")
    reason = snap["records"][[r["name"] for r in snap["records"]].index("warp_affine")]["paths"]["onnx"]["subverdicts"]
    reason = reason["openvino"]["reason"]
    snap["reasons"][reason]["title"] = ("The ONNX reference evaluator rejects a graph that onnxruntime runs: "
                                        "an operator it has no implementation of at this opset")
    source = write(snap, tmp_path / "snapshot.json")
    out = tmp_path / "index.html"
    subprocess.run([str(binary), "render", str(source), "--html", str(out)], check=True, timeout=60)
    size = browser.get_window_size()
    try:
        widths = {}
        for width in (1360, 1024, 420):
            browser.set_window_size(width, 1000)
            load(browser, out.as_uri())
            page, view, summary, boxed, bar = browser.execute_script("""
                const de = document.documentElement, s = document.querySelector('#packages table.summary');
                const box = s.parentElement, bar = document.querySelector('.bar-in').getBoundingClientRect();
                const controls = document.querySelector('.controls').getBoundingClientRect();
                return [de.scrollWidth, de.clientWidth, s.scrollWidth,
                        box.clientWidth < s.scrollWidth ? box.scrollWidth > box.clientWidth : true,
                        controls.right <= bar.right + 0.5];""")
            assert page <= view, f"at {width} px the page scrolls sideways ({page} px of content in {view})"
            assert boxed, f"at {width} px the summary ({summary} px) is cut off instead of scrolling in its box"
            assert bar, f"at {width} px the search and filter run out of the bar"
            widths[width] = (summary, view)
            spills = browser.execute_script("""
                for (const d of document.querySelectorAll('details')) d.open = true;
                const cells = Array.from(document.querySelectorAll('td.d')).filter(td => td.checkVisibility());
                const bad = [];
                for (const td of cells) {
                  const edge = td.getBoundingClientRect().right;
                  for (const el of td.querySelectorAll('*'))
                    if (el.getBoundingClientRect().right > edge + 0.5) bad.push(el.className || el.tagName);
                }
                return [cells.length, document.querySelectorAll('td.d a.rl').length, bad];""")
            assert spills[0] > 0 and spills[1] > 0, f"no detail cells or reason links: the check is vacuous ({spills})"
            assert spills[2] == [], f"at {width} px these run out of their detail cell: {sorted(set(spills[2]))}"
        # the checks can fail: at 1360 px (a desktop window) the summary is wider than the window
        assert widths[1360][0] > widths[1360][1], f"the summary fits: this snapshot tests no overflow ({widths})"
    finally:
        browser.set_window_size(size["width"], size["height"])
