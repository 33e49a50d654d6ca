"""Cross-references on an inventory that Sphinx itself builds (`merge --objects-inv`, `render
--api-base`, the RST's roles).

tests/fixtures/sphinx/ holds a small library laid out like kornia (objects defined in submodules,
re-exported by packages) and its Sphinx docs (autodoc, one page per module). The docs are built
here with `python -m sphinx -W`, the cases' targets and aliases are what the harness itself says
(`opsweep.registry.public_name`, `public_names`) of the re-exported objects, and the snapshot
merged with the built objects.inv must link each operator to the page and anchor that documents
it, in the HTML page (under --api-base) and in the RST (a `:py:obj:` role that the same Sphinx
project resolves with `-n`), and leave an undocumented operator unlinked.
"""

from __future__ import annotations

import html.parser
import json
import os
import pathlib
import subprocess
import sys

import pytest

TESTS = pathlib.Path(__file__).resolve().parent
REPO = TESTS.parent
SPHINX = TESTS / "fixtures" / "sphinx"
sys.path.insert(0, str(TESTS / "fixtures" / "merge"))
sys.path.insert(0, str(SPHINX))

import merge_db  # noqa: E402
import sphinx_project  # noqa: E402

# case name -> (group, the object as fixturelib publishes it, the name it is documented under, its page)
CASES = {
    "find_fundamental": ("geometry.epipolar", "fixturelib.geometry.find_fundamental",
                         "fixturelib.geometry.epipolar.find_fundamental", "geometry.epipolar.html"),
    "warp_perspective[size=(4, 4)]": ("geometry.transform", "fixturelib.geometry.warp_perspective",
                                      "fixturelib.geometry.transform.warp_perspective", "geometry.transform.html"),
    "Quaternion.norm": ("geometry.quaternion", "fixturelib.geometry.Quaternion.norm",
                        "fixturelib.geometry.quaternion.Quaternion.norm", "geometry.quaternion.html"),
    "RandomCrop[p=0.5]": ("augmentation.2d", "fixturelib.augmentation.RandomCrop",
                          "fixturelib.augmentation.RandomCrop", "augmentation.html"),
    "rgb_to_grayscale": ("color", "fixturelib.color.rgb_to_grayscale",
                         "fixturelib.color.rgb_to_grayscale", "color.html"),
    "undocumented_op": ("color", "fixturelib.color.undocumented_op", None, None),
}

# What the harness says of each published object: its target (public_name) and every public name
# (public_names), with fixturelib imported as a worker imports the surveyed library.
HARNESS_NAMES = """
import json, sys
import fixturelib
from opsweep.registry import public_name, public_names
out = {}
for case, published in json.loads(sys.argv[1]).items():
    obj = fixturelib
    for part in published.split(".")[1:]:
        obj = getattr(obj, part)
    out[case] = {"target": public_name(obj), "aliases": public_names(obj)}
print(json.dumps(out))
"""


def harness_names():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO / "python"), str(SPHINX)]))
    proc = subprocess.run([sys.executable, "-c", HARNESS_NAMES, json.dumps({k: v[1] for k, v in CASES.items()})],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


class Anchors(html.parser.HTMLParser):
    """Every id and every link (href, text) of an HTML file."""

    def __init__(self):
        super().__init__()
        self.ids, self.links, self._href, self._text = set(), [], None, ""

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href"):
            self._href, self._text = attrs["href"], ""

    def handle_data(self, data):
        if self._href is not None:
            self._text += data

    def handle_endtag(self, tag):
        if tag == "a" and self._href is not None:
            self.links.append((self._href, self._text.strip()))
            self._href = None


def parse_html(path):
    parser = Anchors()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


@pytest.fixture(scope="module")
def docs(tmp_path_factory):
    """fixturelib's docs, built by Sphinx: the folder holding objects.inv and the pages."""
    out = tmp_path_factory.mktemp("docs") / "html"
    return sphinx_project.build(sphinx_project.APIDOCS, out, nitpicky=True)


@pytest.fixture(scope="module")
def survey():
    names = harness_names()
    s = merge_db.Survey()
    s.env["library"] = {"name": "fixturelib", "version": "0.1", "fingerprint": "0123456789abcdef0123456789abcdef"}
    for case, (group, _, _, _) in CASES.items():
        s.case(case, group, names[case]["target"], registry="cases_fixturelib.py",
               aliases=names[case]["aliases"])
        for path in merge_db.PATHS:
            failing = case == "find_fundamental" and path == "onnx"
            s.result(case, path, merge_db.record("fail", "export", err=merge_db.error("RuntimeError", "no lowering"))
                     if failing else merge_db.record("ok", graph_breaks=0 if path == "compile" else None))
    return s, names


@pytest.fixture(scope="module")
def snapshot(docs, survey, tmp_path_factory):
    folder = tmp_path_factory.mktemp("merged")
    db = merge_db.write_db(survey[0], folder / "results.db")
    out = folder / "snapshot.json"
    proc = merge_db.run_merge(db, "-o", str(out), "--objects-inv", str(docs / "objects.inv"))
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert "5 of 6 records link" in proc.stdout, proc.stdout
    return out


def test_the_harness_names_the_re_exported_objects_and_every_alias(survey):
    _, names = survey
    # The targets are the names the package publishes, not where the objects are documented...
    for case, (_, published, documented, _) in CASES.items():
        assert names[case]["target"] == published, case
        # ...and the aliases hold the documented name (and the defining module's), shortest first.
        if documented:
            assert documented in names[case]["aliases"], names[case]
    assert names["find_fundamental"]["aliases"] == [
        "fixturelib.geometry.find_fundamental", "fixturelib.geometry.epipolar.find_fundamental",
        "fixturelib.geometry.epipolar.fundamental.find_fundamental"]
    # A private module is no public name: only the package that re-exports it.
    assert names["RandomCrop[p=0.5]"]["aliases"] == ["fixturelib.augmentation.RandomCrop"]


def test_the_snapshot_names_the_documented_object_and_its_page(snapshot, docs):
    data = json.loads(snapshot.read_text(encoding="utf-8"))
    assert data["cross_references"] is True
    records = {r["name"]: r for r in data["records"]}
    for case, (_, _, documented, page) in CASES.items():
        record = records[case]
        assert record["api"] == documented, case
        if documented is None:
            assert "api_uri" not in record, record
            continue
        assert record["api_uri"] == f"{page}#{documented}", record
        # The page and anchor exist in what Sphinx built.
        assert documented in parse_html(docs / page).ids, (case, page)


def render(binary, snapshot, folder, *extra):
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"html": folder / "index.html", "rst": folder / "page.rst", "md": folder / "page.md"}
    proc = subprocess.run([str(binary), "render", str(snapshot), "--html", str(paths["html"]), "--rst",
                           str(paths["rst"]), "--md", str(paths["md"]), *extra], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    return paths


@pytest.mark.parametrize("base_slash", ["", "/"])
def test_the_html_and_markdown_pages_link_each_operator_to_its_documenting_page(binary, snapshot, docs, tmp_path,
                                                                                base_slash):
    base = docs.as_uri() + base_slash
    paths = render(binary, snapshot, tmp_path, "--api-base", base)
    links = {text: href for href, text in parse_html(paths["html"]).links if href.startswith("file:")}
    md = paths["md"].read_text(encoding="utf-8")
    for case, (_, _, documented, page) in CASES.items():
        operator = case.split("[")[0]
        if documented is None:
            assert operator not in links, links
            continue
        assert links[operator] == f"{docs.as_uri()}/{page}#{documented}", (case, links[operator])
        assert f"[`{operator}`]({links[operator]})" in md, case
        # The link leads to the object's entry in the built docs.
        file, anchor = links[operator][len("file://"):].split("#")
        assert anchor in parse_html(pathlib.Path(file)).ids
    assert len(links) == 5, links
    assert "[`undocumented_op`]" not in md and "`undocumented_op`" in md


def test_the_rst_uses_roles_only_for_documented_names_and_sphinx_resolves_them(binary, snapshot, tmp_path):
    paths = render(binary, snapshot, tmp_path / "render")
    rst = paths["rst"].read_text(encoding="utf-8")
    for case, (_, _, documented, _) in CASES.items():
        operator = case.split("[")[0]
        if documented:
            assert f":py:obj:`{operator} <{documented}>`" in rst, case
        else:
            assert f"``{operator}``" in rst and f"<{CASES[case][1]}>" not in rst, case
    assert rst.count(":py:obj:`") == 5
    # The page as a document of the same Sphinx project: with -n every role must resolve (an
    # unresolved one is a warning, and -W fails the build), and each resolves to its entry.
    source = sphinx_project.project_with_page(tmp_path / "project", paths["rst"])
    out = sphinx_project.build(source, tmp_path / "project" / "html", nitpicky=True)
    page = parse_html(out / f"{sphinx_project.PAGE_DOC}.html")
    internal = {text: href for href, text in page.links if ".html#fixturelib." in href}
    for case, (_, _, documented, file) in CASES.items():
        operator = case.split("[")[0]
        if documented:
            assert internal[operator] == f"{file}#{documented}", (case, internal)
    assert "undocumented_op" not in internal
