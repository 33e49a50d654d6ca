"""The history page: `opsweep render` with several snapshots of one library under several torch
releases. The CLI (order, determinism, refusals, -o, --current), the three formats, and the page in
headless Chromium (strips, marks, filters, the changes section, no external request). Expectations
are computed here from the fixture snapshots, by a reading of the rules of docs/page.md "History"
written independently of the engine's."""

from __future__ import annotations

import io
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
RELEASES = ["2.9.1", "2.13.0", "2.15.0"]
SUPPORTED = v.SUPPORTED


def make_history(directory: pathlib.Path) -> list[pathlib.Path]:
    """Three made-up releases of the golden merge snapshot (torch 2.13.0): 2.9.1 before some fixes,
    2.15.0 with a regression, a fix, a new case and a removed one."""
    base = v.load()
    old = v.variant(base, "2.9.1+cu128", "2026-11-20", {
        ("rgb_to_grayscale", "onnx"): v.outcome("fail", "onnx-missing-lowering", "torch.rgb has no ONNX lowering"),
        ("draw_line", "compile"): v.outcome("mismatch", "value-mismatch", "max abs diff 0.3"),
        ("gaussian_blur2d[sigma=(1.5, 1.5)]", "export"): v.outcome("n/a", "torch-api-missing",
                                                                   "torch.x does not exist in torch 2.9.1"),
    }, drop=["total_variation"], environment={"onnx": "1.19.1", "onnxruntime": "1.23.2"})
    new = v.variant(base, "2.15.0", "2026-12-01", {
        ("find_fundamental", "export"): v.outcome("fail", "onnx-missing-lowering", "torch.svd is gone", step="export"),
        ("find_fundamental", "onnx"): v.outcome("ok", op_types=["Add"]),
        ("rgb_to_grayscale", "compile"): v.outcome("ok-breaks", graph_breaks=1, detail="1 graph break"),
    }, drop=["LoFTR"], add=[v.record("brand_new", "color", "", {p: v.outcome("ok") for p in ("onnx", "export", "compile")})])
    return [v.write(s, directory / f"torch-{r}" / "snapshot.json") for s, r in zip((old, base, new), RELEASES)]


def render(binary, snapshots, out_dir, *extra):
    return subprocess.run([str(binary), "render", *map(str, snapshots), "-o", str(out_dir), *extra],
                          capture_output=True, text=True, timeout=60)


def expected_history(snapshots):
    """{(record, path): (statuses per release or None, mark text)} for the rows of the newest."""
    data = [json.loads(p.read_text(encoding="utf-8")) for p in snapshots]
    by_name = [{r["name"]: r for r in d["records"]} for d in data]
    out = {}
    for rec in data[-1]["records"]:
        for path in rec["paths"]:
            statuses = [m.get(rec["name"], {}).get("paths", {}).get(path, {}).get("status") for m in by_name]
            present = [(i, s) for i, s in enumerate(statuses) if s is not None]
            mark = ""
            for (i, a), (j, b) in zip(present, present[1:]):
                if (a in SUPPORTED) != (b in SUPPORTED):
                    mark = ("since torch " if b in SUPPORTED else "broken since torch ") + RELEASES[j]
            changed = any(a != b for (_, a), (_, b) in zip(present, present[1:]))
            out[(rec["name"], path)] = (statuses, mark, changed)
    return out


@pytest.fixture(scope="module")
def history(binary, tmp_path_factory):
    directory = tmp_path_factory.mktemp("history")
    snapshots = make_history(directory)
    out = directory / "page"
    p = render(binary, [snapshots[2], snapshots[0], snapshots[1]], out)  # any order
    assert p.returncode == 0, p.stderr
    return snapshots, out


def test_outputs_are_deterministic_and_in_release_order(binary, history, tmp_path):
    snapshots, out = history
    assert sorted(f.name for f in out.iterdir()) == ["index.html", "page.md", "page.rst"]
    again = tmp_path / "again"
    assert render(binary, snapshots, again).returncode == 0
    for name in ("index.html", "page.md", "page.rst"):
        assert (out / name).read_bytes() == (again / name).read_bytes(), name
    md = (out / "page.md").read_text(encoding="utf-8")
    rows = [line for line in md.splitlines() if line.startswith("| torch 2.")]
    assert [r.split(" | ")[0] for r in rows] == ["| torch 2.9.1", "| torch 2.13.0", "| torch 2.15.0 (shown)"]
    # folders holding snapshot.json work as well as the files
    assert render(binary, [s.parent for s in snapshots], tmp_path / "dirs").returncode == 0
    assert (tmp_path / "dirs" / "page.md").read_bytes() == (out / "page.md").read_bytes()


def test_markdown_and_rst_carry_the_same_history(binary, history):
    snapshots, out = history
    md = (out / "page.md").read_text(encoding="utf-8")
    rst = (out / "page.rst").read_text(encoding="utf-8")
    want = expected_history(snapshots)
    marks = {k: m for k, (_, m, _) in want.items() if m}
    assert marks == {("rgb_to_grayscale", "onnx"): "since torch 2.13.0",
                     ("draw_line", "compile"): "since torch 2.13.0",
                     ("gaussian_blur2d[sigma=(1.5, 1.5)]", "export"): "since torch 2.13.0",
                     ("find_fundamental", "export"): "broken since torch 2.15.0",
                     ("find_fundamental", "onnx"): "since torch 2.15.0"}
    for text in (md, rst):
        for mark in marks.values():
            assert f"*{mark}*" in text
        assert text.count("*broken since torch 2.15.0*") == 1
        assert "Changes between torch releases" in text
        assert "torch 2.13.0 \u2192 torch 2.15.0: 1 regression, 1 progression, 1 status change, 1 new case, " \
               "1 removed case" in text
        assert "torch 2.9.1 \u2192 torch 2.13.0: 3 progressions, 1 new case" in text
    assert "| \u2713 yes \u00b7 \u2717\u2713\u2713 *since torch 2.13.0* |" in md   # rgb_to_grayscale onnx


def test_rst_parses_without_warnings(history):
    import docutils.core as docutils_core
    from docutils import nodes
    from docutils.parsers.rst import roles

    def sphinx_role(name, rawtext, text, lineno, inliner, options=None, content=None):
        return [nodes.literal(rawtext, text)], []

    for role in ("py:obj", "ref"):
        roles.register_local_role(role, sphinx_role)
    _, out = history
    warnings = io.StringIO()
    docutils_core.publish_string((out / "page.rst").read_text(encoding="utf-8"), writer_name="html",
                                 settings_overrides={"warning_stream": warnings, "report_level": 2, "halt_level": 5})
    assert warnings.getvalue() == ""


def test_current_picks_the_tables_and_refusals_write_nothing(binary, history, tmp_path):
    snapshots, _ = history
    out = tmp_path / "cur"
    p = render(binary, snapshots, out, "--current", snapshots[1])
    assert p.returncode == 0, p.stderr
    # the same snapshot named by its folder, with the others given as folders
    p = render(binary, [s.parent for s in snapshots], tmp_path / "cur-dirs", "--current", snapshots[1])
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "cur-dirs" / "page.md").read_bytes() == (out / "page.md").read_bytes()
    md = (out / "page.md").read_text(encoding="utf-8")
    assert "| torch 2.13.0 (shown) |" in md and "torch `2.13.0+cpu`" in md.split("## Torch releases")[0]
    # the newest release's regression still marks the row shown with 2.13.0's statuses
    assert "*broken since torch 2.15.0*" in md
    base = v.load()
    twin = v.write(v.variant(base, "2.13.0", "2026-12-03"), tmp_path / "twin.json")
    other = v.load()
    other["library"]["name"] = "torchvision"
    other = v.write(other, tmp_path / "other.json")
    for args, text in [
        ([snapshots[1], twin], "two snapshots of torch 2.13.0"),
        ([snapshots[0], other], "different libraries"),
        ([snapshots[0], snapshots[1], "--current", tmp_path / "elsewhere.json"], "is not one of the snapshots given"),
        ([snapshots[0], "--current", snapshots[0]], "--current is for a history"),
        ([snapshots[0], tmp_path / "missing.json"], "missing.json: cannot read"),
    ]:
        target = tmp_path / "refused"
        p = render(binary, args, target)
        assert p.returncode == 2, (args, p.stderr)
        assert len(p.stderr.strip().splitlines()) == 1 and text in p.stderr, p.stderr
        assert not target.exists()  # nothing written, not even the folder


# ---- in the browser ----------------------------------------------------------------------------


def test_page_strips_marks_and_filters(browser, history):
    snapshots, out = history
    url = (out / "index.html").as_uri()
    browser.get_log("performance")
    load(browser, url)
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    requested = [json.loads(e["message"])["message"]["params"].get("request", {}).get("url")
                 for e in browser.get_log("performance")
                 if json.loads(e["message"])["message"]["method"] == "Network.requestWillBeSent"]
    assert url in requested and [u for u in requested if u not in (url, "about:blank")] == []

    want = expected_history(snapshots)
    # Every path cell of the tables has a strip of three squares, each coloured by its release's status.
    cells = browser.execute_script("""
      const out = [];
      const paths = JSON.parse(document.getElementById('opsweep-config').textContent).paths;
      document.querySelectorAll('tr[data-s]').forEach(tr => {
        tr.querySelectorAll('td.c').forEach((td, p) => {
          const strip = td.querySelector('.hs');
          const mark = td.querySelector('.mk');
          out.push([tr.dataset.name, paths[p], Array.from(strip.querySelectorAll('i')).map(i => i.className),
                    strip.title, mark ? mark.textContent : '']);
        });
      });
      return out;""")
    assert len(cells) > 10
    for name, path, classes, title, mark in cells:
        statuses, want_mark, _ = want[(name, path)]
        token = {"n/a": "na"}
        assert classes == ["h-absent" if s is None else "h-" + token.get(s, s) for s in statuses], (name, path)
        assert mark == want_mark, (name, path)
        assert title.startswith("torch 2.9.1 ") and ", 2.15.0 " in title

    select = Select(browser.find_element(By.ID, "f"))
    rows = {name for name, _ in want}
    for value, rule in (("changed", lambda n: any(c for (r, _), (_, _, c) in want.items() if r == n)),
                        ("since", lambda n: any(m.startswith("since") for (r, _), (_, m, _) in want.items() if r == n)),
                        ("broken", lambda n: any(m.startswith("broken") for (r, _), (_, m, _) in want.items() if r == n))):
        select.select_by_value(value)
        expect = sorted(n for n in rows if rule(n) and n in shown_in_tables(snapshots))
        assert visible_rows(browser) == expect and expect, value
        assert select.first_selected_option.text.endswith(f"({len(expect)})")
        assert browser.execute_script("return location.hash") == f"#f={value}"
    load(browser, url + "#f=broken")
    assert visible_rows(browser) == ["find_fundamental"]
    # the marks are searchable
    load(browser, url + "#q=broken%20since")
    assert visible_rows(browser) == ["find_fundamental"]


def shown_in_tables(snapshots):
    """Rows of the newest snapshot that sit in the operator tables (not n/a on every path)."""
    newest = json.loads(snapshots[-1].read_text(encoding="utf-8"))
    return {r["name"] for r in newest["records"] if any(o["status"] != "n/a" for o in r["paths"].values())}


def test_changes_section_links_rows_and_reasons(browser, history):
    snapshots, out = history
    load(browser, (out / "index.html").as_uri())
    articles = browser.execute_script("""
      return Array.from(document.querySelectorAll('#changes article')).map(a => [a.id, a.querySelector('h3').textContent,
        Array.from(a.querySelectorAll('ul.chl li')).map(li => li.textContent.replace(/\\s+/g, ' ').trim()),
        Array.from(a.querySelectorAll('ul.chl li a')).map(x => x.getAttribute('href'))]);""")
    assert [a[0] for a in articles] == ["changes-2.9.1-2.13.0", "changes-2.13.0-2.15.0"]
    assert "torch 2.13.0 \u2192 torch 2.15.0" in articles[1][1]
    lines = articles[1][2]
    assert any(line.startswith("find_fundamental torch.export \u2713 yes \u2192 \u2717 no torch.svd is gone")
               for line in lines), lines
    assert any(line.startswith("brand_new ") for line in lines)
    removed = [line for line in lines if line.startswith("LoFTR")]
    assert removed  # listed, but the page has no row to link to
    for href in articles[1][3]:
        assert browser.execute_script("return !!document.getElementById(arguments[0])", href[1:]), href
    # the group title links to the reason's entry
    assert browser.execute_script(
        "return Array.from(document.querySelectorAll('#changes summary a')).some(a => a.getAttribute('href') === "
        "'#reason-onnx-missing-lowering')")
    ARTIFACTS.mkdir(exist_ok=True)
    browser.execute_script("document.getElementById('releases').scrollIntoView()")
    browser.save_screenshot(str(ARTIFACTS / "history-releases.png"))
    browser.execute_script("document.getElementById('changes').scrollIntoView()")
    browser.save_screenshot(str(ARTIFACTS / "history-changes.png"))
