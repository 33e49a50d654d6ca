"""`opsweep render` end to end, without a browser: outputs, golden files, refusals, atomicity.

The fixture snapshot (tests/fixtures/render/snapshot.json) has 25 records over three packages and
covers every status on every path, an XSS record, Markdown metacharacters, API cross-references
and rows that are n/a on every path. Set OPSWEEP_UPDATE_GOLDEN=1 to rewrite the golden files
after a deliberate change (then read the diff).
"""
import io
import json
import os
import re
import subprocess

import pytest

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "render")
SNAPSHOT = os.path.join(FIXTURES, "snapshot.json")


def render(binary, snapshot, tmp_path, *extra, outputs=("html", "rst", "md")):
    paths = {kind: tmp_path / f"page.{kind}" for kind in outputs}
    args = [str(binary), "render", str(snapshot)]
    for kind, path in paths.items():
        args += [f"--{kind}", str(path)]
    result = subprocess.run(args + list(extra), capture_output=True, text=True, timeout=60)
    return result, paths


def load_fixture():
    with open(SNAPSHOT, encoding="utf-8") as f:
        return json.load(f)


@pytest.mark.parametrize("kind", ["rst", "md"])
def test_golden(binary, tmp_path, kind):
    result, paths = render(binary, SNAPSHOT, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    golden = os.path.join(FIXTURES, f"snapshot.{kind}")
    produced = paths[kind].read_bytes()
    if os.environ.get("OPSWEEP_UPDATE_GOLDEN"):
        with open(golden, "wb") as f:
            f.write(produced)
    with open(golden, "rb") as f:
        assert produced == f.read(), f"{kind} differs from {golden} (OPSWEEP_UPDATE_GOLDEN=1 rewrites it)"


def test_the_committed_kornia_pages_are_the_render_of_its_snapshot(binary, tmp_path):
    # The published pages must say what the committed snapshot says, to the byte: a change of the
    # renderer or its assets re-renders them; a snapshot without the optional fields added since
    # (checks, notes, break locations) renders with none of what they add.
    kornia = os.path.join(os.path.dirname(__file__), "..", "snapshots", "kornia")
    result, paths = render(binary, os.path.join(kornia, "snapshot.json"), tmp_path)
    assert result.returncode == 0, result.stderr
    for kind, committed in (("html", "index.html"), ("rst", "page.rst"), ("md", "page.md")):
        with open(os.path.join(kornia, committed), "rb") as f:
            assert paths[kind].read_bytes() == f.read(), f"snapshots/kornia/{committed} is not the render of snapshot.json"


@pytest.mark.parametrize("page", ["kornia/page.rst", "kornia-0.9.0/page.rst"])
def test_the_committed_kornia_rst_pages_parse_without_errors(page):
    # At full scale: a reason that affects hundreds of configurations once made a line of over
    # 10,000 characters, which docutils (and Sphinx) drop with "Line ... exceeds the
    # line-length-limit"; the small fixture above cannot show that.
    path = os.path.join(os.path.dirname(__file__), "..", "snapshots", page)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    assert max(len(line) for line in text.splitlines()) < 10000
    html, warnings = rst_to_html(text)
    assert warnings == ""
    # every reason's list is in the HTML, all of it: one literal (the operator's name) per configuration
    blocks = re.findall(r'<th class="field-name">Affects:</th><td class="field-body">(.*?)</td>', html, re.S)
    assert len(blocks) == text.count("\n:Affects: ") > 20
    for block in blocks:
        count = int(re.match(r"([\d,]+) configuration", block).group(1).replace(",", ""))
        assert block.count('<tt class="docutils literal">') == count, block[:200]


def test_deterministic_to_the_byte(binary, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, a = render(binary, SNAPSHOT, tmp_path / "a")
    second, b = render(binary, SNAPSHOT, tmp_path / "b")
    assert first.returncode == second.returncode == 0
    for kind in a:
        assert a[kind].read_bytes() == b[kind].read_bytes(), kind
    assert not [p for p in tmp_path.rglob("*") if ".tmp" in p.name], "temporary files left behind"


def test_html_is_self_contained_and_complete_without_javascript(binary, tmp_path):
    result, paths = render(binary, SNAPSHOT, tmp_path, outputs=("html",))
    assert result.returncode == 0, result.stderr
    html = paths["html"].read_text(encoding="utf-8")
    snapshot = load_fixture()
    # Real tables: one row per record, each with a permalink.
    rows = re.findall(r'<tr id="([^"]+)" data-name="[^"]*" data-s="([^"]*)"', html)
    assert len(rows) == len(snapshot["records"])
    assert len({anchor for anchor, _ in rows}) == len(rows)
    for anchor, _ in rows:
        assert f'<a class="perma" href="#{anchor}"' in html
    # Nothing fetched from anywhere: no URL-bearing attributes except in-page links.
    assert not re.search(r'\b(src|srcset|poster|data)=["\']', html.replace("data-", "data_"))
    assert not re.search(r"https?://", html)
    assert "@import" not in html and "url(" not in html
    assert "default-src 'none'" in html
    # Every status of the fixture shows as text.
    for label in ("yes", "yes, 2 breaks", "yes (random)", "yes (random), 1 break", "mismatch", "no",
                  "crash", "timeout", "n/a"):
        assert f"</b>{label}</span></td>" in html, label


def test_xss_record_is_escaped_everywhere(binary, tmp_path):
    result, paths = render(binary, SNAPSHOT, tmp_path)
    assert result.returncode == 0, result.stderr
    html = paths["html"].read_text(encoding="utf-8")
    assert "<script>alert" not in html
    assert "<img" not in html
    assert "<b>note</b>" not in html
    assert html.count("<script") == 3  # the class switch, the config JSON, the page script
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    md = paths["md"].read_text(encoding="utf-8")
    assert "<script>" not in md.replace("`kornia/color/<script>.py:1`", "")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in md


def test_markdown_tables_keep_their_columns(binary, tmp_path):
    result, paths = render(binary, SNAPSHOT, tmp_path, outputs=("md",))
    assert result.returncode == 0, result.stderr
    for line in paths["md"].read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            continue
        cells = re.split(r"(?<!\\)\|", line)[1:-1]
        assert len(cells) in (3, 4, 5, 7), line  # n/a table, cards, operators, package summary
    assert "\\*bold\\* \\_under\\_ \\`tick\\` \\[link\\](x) \\| pipe" in paths["md"].read_text(encoding="utf-8")


def rst_to_html(text):
    """docutils' HTML of an RST page and what docutils reported (warnings and worse)."""
    import docutils.core as docutils_core  # requirements-test.txt pins docutils

    from docutils import nodes
    from docutils.parsers.rst import roles

    def sphinx_role(name, rawtext, text, lineno, inliner, options=None, content=None):
        return [nodes.literal(rawtext, text)], []

    for role in ("py:obj", "ref"):  # Sphinx roles, unknown to plain docutils
        roles.register_local_role(role, sphinx_role)
    warnings = io.StringIO()
    html = docutils_core.publish_string(
        text, writer_name="html",
        settings_overrides={"warning_stream": warnings, "report_level": 2, "halt_level": 5},
    ).decode("utf-8")
    return html, warnings.getvalue()


def test_rst_parses_without_warnings(binary, tmp_path):
    result, paths = render(binary, SNAPSHOT, tmp_path, outputs=("rst",))
    assert result.returncode == 0, result.stderr
    html, warnings = rst_to_html(paths["rst"].read_text(encoding="utf-8"))
    assert warnings == ""
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script>alert" not in html


def test_api_base_links_records_with_a_cross_reference(binary, tmp_path):
    result, paths = render(binary, SNAPSHOT, tmp_path, "--api-base", "https://docs.example/search.html?q={api}")
    assert result.returncode == 0, result.stderr
    html = paths["html"].read_text(encoding="utf-8")
    md = paths["md"].read_text(encoding="utf-8")
    with_api = [r for r in load_fixture()["records"] if r["api"]]
    assert with_api
    for record in with_api:
        assert f'<a href="https://docs.example/search.html?q={record["api"]}"' in html
        assert f"(https://docs.example/search.html?q={record['api']})" in md
    # Without --api-base: plain text, no link at all.
    plain, paths = render(binary, SNAPSHOT, tmp_path, outputs=("html",))
    assert plain.returncode == 0, plain.stderr
    assert "docs.example" not in paths["html"].read_text(encoding="utf-8")


def damaged(snapshot):
    """(name, text) pairs of snapshots that must be refused, with a word the message must hold."""
    text = json.dumps(snapshot, indent=2, sort_keys=True) + "\n"
    cases = [
        ("truncated", text[: len(text) // 2], "not valid JSON"),
        ("empty", "", "not valid JSON"),
        ("not-json", "<html>", "not valid JSON"),
        ("not-object", "[]", "not an opsweep snapshot"),
    ]

    def variant(name, change, word):
        copy = json.loads(text)
        change(copy)
        cases.append((name, json.dumps(copy), word))

    variant("schema-1", lambda s: s.update(schema=1), "snapshot schema 1 is not supported (this opsweep reads 2")
    variant("schema-3", lambda s: s.update(schema=3), "snapshot schema 3 is not supported")
    variant("bare-paths", lambda s: s.update(paths=[p["id"] for p in s["paths"]]), "a path description is not an object")
    variant("bare-break", lambda s: s["records"][0]["paths"]["compile"].update(break_reasons=["x"]), "break reason")
    variant("no-schema", lambda s: s.pop("schema"), "schema")
    variant("no-records", lambda s: s.pop("records"), "records")
    variant("unknown-status", lambda s: s["records"][3]["paths"]["onnx"].update(status="maybe"), "unknown status 'maybe'")
    variant("negative-breaks", lambda s: s["records"][0]["paths"]["compile"].update(graph_breaks=-1), "graph_breaks")
    variant("unknown-reason", lambda s: s["records"][0]["paths"]["onnx"].update(reason="nope"), "reason 'nope'")
    variant("no-name", lambda s: s["records"][2].pop("name"), "missing 'name'")
    variant("missing-path", lambda s: s["records"][2]["paths"].pop("export"), "path 'export'")
    return cases


@pytest.mark.parametrize("name,text,word", damaged(load_fixture()), ids=lambda v: v if isinstance(v, str) and len(v) < 20 else "")
def test_damaged_snapshot_is_refused_and_nothing_is_written(binary, tmp_path, name, text, word):
    bad = tmp_path / "bad.json"
    bad.write_text(text, encoding="utf-8")
    keep = tmp_path / "page.md"
    keep.write_text("previous page\n")
    result, paths = render(binary, bad, tmp_path)
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert str(bad) in lines[0] and word in lines[0], lines[0]
    assert not paths["html"].exists() and not paths["rst"].exists()
    assert keep.read_text() == "previous page\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json", "page.md"]


def test_missing_snapshot_and_missing_outputs_are_errors(binary, tmp_path):
    result, _ = render(binary, tmp_path / "nope.json", tmp_path)
    assert result.returncode == 2 and "nope.json" in result.stderr and "cannot read" in result.stderr
    result = subprocess.run([str(binary), "render", SNAPSHOT], capture_output=True, text=True)
    assert result.returncode == 2 and "--html" in result.stderr
    result, _ = render(binary, SNAPSHOT, tmp_path / "no" / "such" / "dir")
    assert result.returncode == 2 and "cannot write" in result.stderr
