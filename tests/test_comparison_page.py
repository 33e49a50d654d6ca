"""The comparison page: `opsweep render A B --map MAP` draws one row per operation of an equivalence
map with each library's verdict per path. The CLI (outputs, refusals that write nothing), the
Markdown, and the page in headless Chromium (cells, the "deploys in one library only" filters,
search, URL state, no external request). Expectations are computed here from the fixture snapshots,
by a reading of docs/page.md "Comparing two libraries" written independently of the engine's."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

sys.path.insert(0, str(pathlib.Path(__file__).parent / "fixtures" / "history"))
import variants as v  # noqa: E402
from page_browser import load, visible_rows  # noqa: E402

ARTIFACTS = pathlib.Path(__file__).parent / "artifacts"
SUPPORTED = {"ok", "ok-breaks", "ok-unverified", "ok-static", "ok-recompiles"}
FAILURE = {"fail", "mismatch", "crash", "timeout"}
PATHS = ["onnx", "export", "compile"]

MAP = """\
# the fixture map: kornia's golden snapshot against a made-up "visionlib"
libraries: kornia | visionlib

[Colour]
grayscale | kornia.color.rgb_to_grayscale | visionlib.gray, visionlib.Gray | the same <weights>
equalize | kornia.enhance.equalize | visionlib.equalize |
[Filters]
gaussian blur | kornia.filters.gaussian_blur2d | visionlib.blur | kornia: border reflect
crop | | visionlib.crop |
lines | kornia.utils.draw_line | |
ghost | kornia.nothing.here | visionlib.nothing |
"""


def visionlib() -> dict:
    """The golden snapshot relabelled as another library, with its own records (made up, and said so:
    inputs for the page, never results)."""
    snap = v.load()
    snap["library"] = {"fingerprint": "0" * 32, "name": "visionlib", "version": "1.0"}
    snap["environment"]["torch"] = "2.13.0+cu130"

    def rec(name, statuses, missing=()):
        paths = {}
        for path, status in zip(PATHS, statuses):
            if path in missing:
                paths[path] = v.outcome("n/a", "missing-result",
                                        "no result: the survey was incomplete when this snapshot was merged (--force)")
            else:
                paths[path] = v.outcome(status, "onnx-missing-lowering" if status != "n/a" else "torch-api-missing",
                                        "" if status in SUPPORTED else f"{name} <fails> on {path}")
        r = v.record(name, "transforms", "", paths)
        r["target"] = "visionlib." + name.split("[")[0]
        return r

    snap["records"] = [
        rec("gray", ["ok", "ok", "ok"]),
        rec("Gray", ["fail", "ok", "ok-breaks"]),
        rec("equalize", ["ok", "ok", "ok"]),
        rec("equalize[uint8]", ["ok", "fail", "ok"]),
        rec("blur", ["ok", "ok", "ok"]),
        rec("crop", ["ok", "ok", "ok"], missing=("onnx",)),
    ]
    for reason in ("onnx-missing-lowering", "torch-api-missing"):
        snap["reasons"].setdefault(reason, v.REASONS[reason])
    snap["reasons"]["missing-result"] = {"title": "No result", "cause": "The survey was incomplete.",
                                         "hint": "Finish the survey.", "component": "opsweep"}
    snap["records"].sort(key=lambda r: (r["package"], r["section"], r["operator"], r["name"]))
    return snap


def expected(snapshots, map_text):
    """{operation: ([cell token per column], [tokens], {column: (supported, probed)})}."""
    libs = [json.loads(p.read_text(encoding="utf-8")) for p in snapshots]
    order = {s["library"]["name"]: s for s in libs}
    names = [n.strip() for n in map_text.split("libraries:")[1].splitlines()[0].split("|")]
    out = {}
    for line in map_text.splitlines():
        if not line.strip() or line.startswith(("#", "[", "libraries:")):
            continue
        op, a, b, _note = [f.strip() for f in line.split("|")]
        cells, deploys, refused, offered = [], [], [], []
        for lib, field in zip(names, (a, b)):
            callables = [c.strip() for c in field.split(",") if c.strip()]
            recs = [r for r in order[lib]["records"] if r["target"] in callables]
            offered.append(bool(callables))
            d, f = [], []
            for path in PATHS:
                outs = [r["paths"][path] for r in recs if r["paths"][path]["reason"] != "missing-result"]
                probed = [o for o in outs if o["status"] != "n/a"]
                ok = [o for o in probed if o["status"] in SUPPORTED]
                if not callables or not outs:
                    cells.append("absent")
                elif not probed:
                    cells.append("na")
                elif ok:
                    cells.append("ok" if any(o["status"] == "ok" for o in ok) else ok[0]["status"])
                else:
                    cells.append(max(FAILURE, key=lambda s: sum(o["status"] == s for o in probed)))
                d.append(bool(ok))
                f.append(bool(probed) and not ok)
            deploys.append(d)
            refused.append(f)
        tokens = []
        only = [any(deploys[0][p] and refused[1][p] for p in range(3)), any(deploys[1][p] and refused[0][p] for p in range(3))]
        if any(only):
            tokens.append("one-only")
        tokens += [f"only-{names[i]}" for i in (0, 1) if only[i]]
        if all(offered) and all(deploys[0][p] and deploys[1][p] for p in range(3)):
            tokens.append("both")
        if offered[0] != offered[1]:
            tokens.append("offered-one")
        out[op] = (cells, tokens)
    return out


def render(binary, args, out_dir=None):
    extra = ["-o", str(out_dir)] if out_dir else []
    return subprocess.run([str(binary), "render", *map(str, args), *extra], capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def comparison(binary, tmp_path_factory):
    directory = tmp_path_factory.mktemp("comparison")
    kornia = v.write(v.load(), directory / "kornia" / "snapshot.json")
    other = v.write(visionlib(), directory / "visionlib" / "snapshot.json")
    map_file = directory / "map.txt"
    map_file.write_text(MAP, encoding="utf-8")
    out = directory / "page"
    p = render(binary, [other, kornia, "--map", map_file], out)  # the map orders the libraries, not the command
    assert p.returncode == 0, p.stderr
    return (kornia, other), map_file, out, p


def test_outputs_and_the_unmatched_warning(comparison):
    _, _, out, p = comparison
    assert sorted(f.name for f in out.iterdir()) == ["index.html", "page.md"]
    assert "2 names of the map match no record" in p.stderr and "kornia.nothing.here (line 11)" in p.stderr


def test_markdown_cells_follow_the_rules(comparison):
    snapshots, _, out, _ = comparison
    md = out.joinpath("page.md").read_text(encoding="utf-8")
    want = expected(snapshots, MAP)
    symbols = {"ok": "✓", "ok-breaks": "✓", "fail": "✗", "mismatch": "≠", "timeout": "\u25f7", "crash": "\u26a0",
               "na": "–", "absent": "–"}
    for op, (cells, _) in want.items():
        line = next(line for line in md.splitlines() if line.startswith(f"| {op} |"))
        got = [c.strip() for c in line.strip("|").split("|")][1:7]
        assert [g.split(" ")[0] for g in got] == [symbols.get(c, "?") for c in cells], (op, got)
    assert "## Colour" in md and "## Filters" in md
    assert "the same \\<weights\\>" in md or "the same &lt;weights&gt;" in md
    assert "<weights>" not in md


def test_refusals_write_nothing(binary, comparison, tmp_path):
    (kornia, other), map_file, _, _ = comparison
    bad = tmp_path / "bad.txt"
    cases = [
        ([kornia, other, "--map", tmp_path / "absent.txt"], "cannot read the map"),
        ([kornia, "--map", map_file], "give two snapshots, not 1"),
        ([kornia, kornia, "--map", map_file], "both snapshots survey kornia"),
        ([kornia, other, "--map", bad], "line 2: 2 fields where an operation has 4"),
        ([kornia, other, "--map", map_file, "--current", kornia], "--current is for a history page"),
        ([kornia, other, "--map", map_file, "--rst", tmp_path / "x.rst"], "written as HTML and Markdown"),
    ]
    bad.write_text("libraries: kornia | visionlib\nresize | kornia.geometry.resize\n", encoding="utf-8")
    for args, text in cases:
        target = tmp_path / "out"
        p = render(binary, args, target)
        assert p.returncode == 2, (args, p.stderr)
        assert len(p.stderr.strip().splitlines()) == 1 and text in p.stderr, p.stderr
        assert not target.exists()
    wrong = tmp_path / "wrong.txt"
    wrong.write_text("libraries: kornia | torchvision\nresize | kornia.x | torchvision.y |\n", encoding="utf-8")
    p = render(binary, [kornia, other, "--map", wrong], tmp_path / "out")
    assert p.returncode == 2 and "no snapshot given surveys torchvision" in p.stderr


# ---- in the browser ----------------------------------------------------------------------------


def test_page_cells_filters_search_and_state(browser, comparison):
    snapshots, _, out, _ = comparison
    url = (out / "index.html").as_uri()
    browser.get_log("performance")
    browser.get_log("browser")  # what earlier pages of this session logged
    load(browser, url)
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    requested = [json.loads(e["message"])["message"]["params"].get("request", {}).get("url")
                 for e in browser.get_log("performance")
                 if json.loads(e["message"])["message"]["method"] == "Network.requestWillBeSent"]
    assert [u for u in requested if u not in (url, "about:blank")] == []
    assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]

    want = expected(snapshots, MAP)
    rows = browser.execute_script("""
      return Array.from(document.querySelectorAll('tr[data-s]')).map(tr => [tr.dataset.name,
        Array.from(tr.querySelectorAll('td.c')).map(td => td.className.replace('c st-', '')),
        (tr.dataset.h || '').split(' ').filter(Boolean)]);""")
    assert {name: (cells, tokens) for name, cells, tokens in rows} == want
    assert browser.find_element(By.ID, "count").text == f"{len(want)} operations"

    select = Select(browser.find_element(By.ID, "f"))
    values = [o.get_attribute("value") for o in select.options]
    for value in ("one-only", "only-kornia", "only-visionlib", "both", "offered-one"):
        assert value in values
        select.select_by_value(value)
        expect = sorted(op for op, (_, tokens) in want.items() if value in tokens)
        assert visible_rows(browser) == expect, value
        assert select.first_selected_option.text.endswith(f"({len(expect)})")
        assert browser.execute_script("return location.hash") == f"#f={value}"
    assert sorted(op for op, (_, t) in want.items() if "one-only" in t) == ["equalize", "gaussian blur"]
    # per column: visionlib's ONNX supported
    select.select_by_value("visionlib-onnx:supported")
    assert visible_rows(browser) == sorted(op for op, (c, _) in want.items() if c[3] in SUPPORTED)
    # state in the URL: a reload keeps the filter and the search
    load(browser, url + "#q=border&f=all")
    assert visible_rows(browser) == ["gaussian blur"]
    load(browser, url + "#f=one-only&q=equalize")
    assert visible_rows(browser) == ["equalize"]
    assert browser.find_element(By.ID, "count").text == f"showing 1 of {len(want)}"
    # a configuration's failure text is searchable, and escaped where it is shown
    load(browser, url + "#q=%3Cfails%3E%20on%20export")
    assert visible_rows(browser) == ["equalize"]
    assert browser.execute_script("return document.querySelectorAll('fails').length") == 0
    ARTIFACTS.mkdir(exist_ok=True)
    load(browser, url)
    browser.save_screenshot(str(ARTIFACTS / "comparison.png"))


def test_the_committed_comparison_is_the_render_of_its_inputs(binary, tmp_path):
    # compare/kornia-torchvision/ must say what the two committed snapshots and the map say, to the
    # byte (re-render it when the renderer, a snapshot or the map changes), and every callable the
    # map names must be one the snapshots' records target.
    repo = pathlib.Path(__file__).resolve().parents[1]
    p = render(binary, [repo / "snapshots" / "kornia", repo / "snapshots" / "torchvision-0.28.0",
                        "--map", repo / "compare" / "kornia-torchvision.txt"], tmp_path)
    assert p.returncode == 0, p.stderr
    assert "match no record" not in p.stderr, p.stderr
    for name in ("index.html", "page.md"):
        assert (tmp_path / name).read_bytes() == (repo / "compare" / "kornia-torchvision" / name).read_bytes(), name
