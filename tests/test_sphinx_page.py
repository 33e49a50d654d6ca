"""The reStructuredText page inside a real Sphinx site, in headless Chromium: the same search,
filters and URL state as the HTML page, readable in a dark theme, and styling nothing of the theme.

The fixture snapshot's page.rst is one document of a small Sphinx project (tests/fixtures/sphinx/,
as docs/page.md tells kornia to include it), built with `python -m sphinx -W` (any warning fails)
under Sphinx's default theme (alabaster) and under Furo, whose dark scheme follows the reader's
preference (`data-theme="auto"`) or its own switch (`data-theme="dark"`). Expectations are computed
from the snapshot with the HTML page's own helpers (test_render_page.py), not read off the page.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import time

import pytest
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

TESTS = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS / "fixtures" / "sphinx"))

import sphinx_project  # noqa: E402
from test_render_page import FIXTURE, count_text, expected, load, type_search, visible_rows  # noqa: E402

THEMES = ["alabaster", "furo"]
ARTIFACTS = TESTS / "artifacts"
FAILURE = {"mismatch", "fail", "crash", "timeout"}


@pytest.fixture(scope="module")
def snapshot():
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def site(binary, tmp_path_factory):
    """theme -> the URL of the built page, for each theme."""
    folder = tmp_path_factory.mktemp("sphinx-page")
    rst = folder / "page.rst"
    subprocess.run([str(binary), "render", str(FIXTURE), "--rst", str(rst)], check=True, timeout=60)
    urls = {}
    for theme in THEMES:
        source = sphinx_project.project_with_page(folder / theme, rst)
        out = sphinx_project.build(source, folder / theme / "html", theme=theme)
        urls[theme] = (out / f"{sphinx_project.PAGE_DOC}.html").as_uri()
    return urls


def prefer(browser, scheme):
    """The reader's preferred colour scheme, as the page's media queries see it."""
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia",
                            {"features": [{"name": "prefers-color-scheme", "value": scheme}]})


@pytest.fixture
def reader(browser):
    """The browser, left as found: light preference, no theme stored by Furo's switch."""
    yield browser
    prefer(browser, "light")
    browser.execute_script("try { localStorage.clear(); } catch (e) {}")


# ---- search, filters, URL state ---------------------------------------------------------------

@pytest.mark.parametrize("theme", THEMES)
def test_typing_an_operator_name_narrows_the_rows(reader, site, snapshot, theme):
    load(reader, site[theme])
    total = len(snapshot["records"])
    assert visible_rows(reader) == expected(snapshot) and len(expected(snapshot)) == total
    assert count_text(reader) == f"{total} configurations"
    for query in ("find_fundamental", "warp", "svd", "read back into python", "zzz-nothing"):
        type_search(reader, query)
        want = expected(snapshot, query)
        assert visible_rows(reader) == want, query
        assert count_text(reader) == f"showing {len(want)} of {total}", query
        # The "nothing matches" line shows exactly when nothing does.
        assert reader.find_element(By.ID, "no-match").is_displayed() == (not want), query
    type_search(reader, "find_fundamental")
    assert expected(snapshot, "find_fundamental") != [] and len(expected(snapshot, "find_fundamental")) < total
    # Sections with nothing to show fold away, with their package when all of its sections do.
    assert reader.execute_script(
        "return Array.from(document.querySelectorAll('[data-box]')).filter(s => s.checkVisibility())"
        ".every(s => Array.from(s.querySelectorAll('tr[data-s]')).some(tr => tr.checkVisibility()))")
    assert reader.execute_script(
        "return Array.from(document.querySelectorAll('[data-group]')).some(s => !s.checkVisibility())")


@pytest.mark.parametrize("theme", THEMES)
def test_a_filter_shows_only_failures_and_every_filter_its_rows(reader, site, snapshot, theme):
    load(reader, site[theme])
    select = Select(reader.find_element(By.ID, "f"))
    select.select_by_value("failure")
    want = expected(snapshot, "", "failure")
    assert want and visible_rows(reader) == want
    statuses = reader.execute_script(
        "return Array.from(document.querySelectorAll('tr[data-s]')).filter(tr => tr.checkVisibility())"
        ".map(tr => tr.dataset.s.split(' '))")
    assert statuses and all(FAILURE & set(s) for s in statuses), statuses
    for value in [option.get_attribute("value") for option in select.options]:
        select.select_by_value(value)
        assert visible_rows(reader) == expected(snapshot, "", value), value
    select.select_by_value("onnx:fail")
    type_search(reader, "lowering")
    assert visible_rows(reader) == expected(snapshot, "lowering", "onnx:fail") != []


@pytest.mark.parametrize("theme", THEMES)
def test_the_url_hash_keeps_the_state_across_a_reload(reader, site, snapshot, theme):
    load(reader, site[theme])
    type_search(reader, "svd")
    Select(reader.find_element(By.ID, "f")).select_by_value("onnx:fail")
    url = reader.current_url
    assert url.endswith("#q=svd&f=onnx:fail"), url
    reader.refresh()
    assert reader.find_element(By.ID, "q").get_attribute("value") == "svd"
    assert Select(reader.find_element(By.ID, "f")).first_selected_option.get_attribute("value") == "onnx:fail"
    assert visible_rows(reader) == expected(snapshot, "svd", "onnx:fail") != []
    load(reader, site[theme] + "#q=graph%20break&f=compile:ok-breaks")
    assert visible_rows(reader) == expected(snapshot, "graph break", "compile:ok-breaks")
    # A row's permalink is a plain anchor: opening it while a filter hides the row clears the filter.
    target = next(r for r in snapshot["records"] if r["name"] not in expected(snapshot, "", "all-ok"))
    row_id = reader.execute_script("return document.querySelector(arguments[0]).id",
                                   f"tr[data-name='{target['name']}']")
    load(reader, site[theme] + "#f=all-ok")
    reader.execute_script("location.hash = arguments[0]", row_id)
    time.sleep(0.1)
    assert target["name"] in visible_rows(reader)
    assert Select(reader.find_element(By.ID, "f")).first_selected_option.get_attribute("value") == "all"


@pytest.mark.parametrize("theme", THEMES)
def test_snapshot_text_stays_text_in_the_sphinx_page(reader, site, snapshot, theme):
    load(reader, site[theme])
    time.sleep(0.2)
    with pytest.raises(NoAlertPresentException):
        reader.switch_to.alert.text
    xss = next(r for r in snapshot["records"] if r["operator"] == "xss_probe")
    row = reader.find_element(By.CSS_SELECTOR, "tr[data-name^='xss_probe']")
    assert row.get_attribute("data-name") == xss["name"]
    assert "<script>alert(1)</script>" in row.text


# ---- colours -----------------------------------------------------------------------------------

CONTRAST = """
function rgb(text) { const m = text.match(/[\\d.]+/g).map(Number); return m.length > 3 && m[3] === 0 ? null : m; }
function lum(c) {
  const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
}
function ratio(a, b) { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); }
// The background an element is painted on: its own, else its nearest painted ancestor's.
function ground(el) {
  for (; el; el = el.parentElement) { const c = rgb(getComputedStyle(el).backgroundColor); if (c) return c; }
  return [255, 255, 255];
}
"""


def colours(browser):
    """Per status pill token: (text colour, background, contrast ratio, background luminance); and
    the contrast of the tables' text and of the search box on what they are painted on."""
    return browser.execute_script(CONTRAST + """
      const pills = {};
      for (const pill of document.querySelectorAll('table.opsweep .pill')) {
        const token = Array.from(pill.classList).find(c => c.startsWith('st-'));
        if (pills[token]) continue;
        const cs = getComputedStyle(pill);
        const fg = rgb(cs.color), bg = rgb(cs.backgroundColor);
        pills[token] = [cs.color, cs.backgroundColor, ratio(fg, bg), lum(bg)];
      }
      const cell = document.querySelector('table.opsweep td.d, table.opsweep tbody td:last-child');
      const box = document.getElementById('q');
      return {pills: pills, body: lum(ground(document.body)),
              cell: ratio(rgb(getComputedStyle(cell).color), ground(cell)),
              box: ratio(rgb(getComputedStyle(box).color), ground(box))};""")


def screenshot(browser, name):
    """The page filtered to a few rows, scrolled to the first, in tests/artifacts/ for a person to look at."""
    ARTIFACTS.mkdir(exist_ok=True)
    type_search(browser, "find_fundamental")
    browser.execute_script(
        "document.documentElement.style.scrollBehavior = 'auto';"
        "const row = Array.from(document.querySelectorAll('tr[data-s]')).find(tr => tr.checkVisibility());"
        "window.scrollTo(0, row.getBoundingClientRect().top + scrollY - 240);")
    browser.save_screenshot(str(ARTIFACTS / f"{name}.png"))


def assert_readable(found, dark):
    assert len(found["pills"]) >= 5, found  # the fixture has ok, ok-breaks, fail, mismatch, n/a, ...
    for token, (fg, bg, contrast, bg_lum) in found["pills"].items():
        assert fg != bg and contrast >= 4.5, (token, fg, bg, contrast)
        assert (bg_lum < 0.1) if dark else (bg_lum > 0.5), (token, bg, "the pill follows the theme's scheme")
    assert found["cell"] >= 4.5 and found["box"] >= 4.5, found


def test_furo_dark_by_the_readers_preference_is_readable(reader, site):
    prefer(reader, "dark")
    load(reader, site["furo"])
    assert reader.execute_script("return document.body.dataset.theme") == "auto"
    found = colours(reader)
    assert found["body"] < 0.1, "Furo shows its dark scheme"
    assert_readable(found, dark=True)
    screenshot(reader, "sphinx-furo-dark")


def test_furo_dark_by_its_own_switch_is_readable(reader, site):
    prefer(reader, "light")
    load(reader, site["furo"])
    reader.execute_script("localStorage.setItem('theme', 'dark')")  # what Furo's switch stores
    load(reader, site["furo"])
    assert reader.execute_script("return document.body.dataset.theme") == "dark"
    found = colours(reader)
    assert found["body"] < 0.1
    assert_readable(found, dark=True)


@pytest.mark.parametrize("theme, scheme", [("alabaster", "light"), ("alabaster", "dark"), ("furo", "light")])
def test_a_light_theme_gets_light_pills_whatever_the_reader_prefers(reader, site, theme, scheme):
    # Alabaster has no dark scheme: a reader who prefers dark still sees a white page, and pills
    # made for it.
    prefer(reader, scheme)
    load(reader, site[theme])
    found = colours(reader)
    assert found["body"] > 0.9
    assert_readable(found, dark=False)
    screenshot(reader, f"sphinx-{theme}-{scheme}")


# ---- the theme is left alone -------------------------------------------------------------------

# The computed style of every element of the theme's page outside the embedded parts (the search
# bar and the operator tables), with and without the page's stylesheet: they must be equal.
THEME_STYLE = """
const props = ['color', 'background-color', 'font-family', 'font-size', 'font-weight', 'font-style',
  'line-height', 'letter-spacing', 'text-transform', 'text-decoration-line', 'display', 'position',
  'box-sizing', 'margin-top', 'margin-right', 'margin-bottom', 'margin-left', 'padding-top',
  'padding-right', 'padding-bottom', 'padding-left', 'border-top-width', 'border-bottom-width',
  'border-top-color', 'border-bottom-color', 'border-radius', 'color-scheme', 'content-visibility'];
function snapshotStyles() {
  const out = [];
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('.opsweep-page, table.opsweep') || ['STYLE', 'SCRIPT'].includes(el.tagName)) continue;
    const cs = getComputedStyle(el);
    out.push([el.tagName + (el.id ? '#' + el.id : '') + '.' + el.className, props.map(p => cs.getPropertyValue(p)).join('|')]);
  }
  const cs = getComputedStyle(document.body);
  out.push(['BODY', props.map(p => cs.getPropertyValue(p)).join('|')]);
  const root = getComputedStyle(document.documentElement);
  out.push(['HTML', props.map(p => root.getPropertyValue(p)).join('|')]);
  return out;
}
const ours = Array.from(document.querySelectorAll('style')).filter(s => s.textContent.includes('opsweep page styles'));
if (ours.length !== 1) return 'expected one stylesheet of the page, found ' + ours.length;
const withPage = snapshotStyles();
ours[0].disabled = true;
ours[0].remove();
const without = snapshotStyles();
const diffs = [];
for (let i = 0; i < withPage.length; i++) {
  if (withPage[i][1] !== without[i][1]) diffs.push(withPage[i][0] + ': ' + withPage[i][1] + ' <> ' + without[i][1]);
}
return [withPage.length, diffs.slice(0, 10)];
"""


@pytest.mark.parametrize("theme, scheme", [("alabaster", "light"), ("furo", "light"), ("furo", "dark")])
def test_the_page_css_does_not_restyle_the_theme(reader, site, theme, scheme):
    prefer(reader, scheme)
    load(reader, site[theme])
    result = reader.execute_script(THEME_STYLE)
    assert not isinstance(result, str), result
    count, diffs = result
    assert count > 100 and diffs == [], diffs  # headings, body text, sidebar, the other tables: all the theme's


def test_other_builders_keep_the_tables_and_drop_the_raw_html(binary, tmp_path, snapshot):
    rst = tmp_path / "page.rst"
    subprocess.run([str(binary), "render", str(FIXTURE), "--rst", str(rst)], check=True, timeout=60)
    source = sphinx_project.project_with_page(tmp_path / "text", rst)
    out = sphinx_project.build(source, tmp_path / "text" / "out", builder="text")
    text = (out / f"{sphinx_project.PAGE_DOC}.txt").read_text(encoding="utf-8")
    for ours in ("opsweep-row", "data-s=", "opsweep page styles", "opsweep-config", "class=\"pill", "opsweep-box"):
        assert ours not in text, ours  # (the snapshot's own text may hold markup: the fixture's XSS probes)
    assert "\u2717 no" in text and "\u2713 yes, 1" in text  # the status cells' words, without their pills
    for record in snapshot["records"][:5]:
        assert record["operator"] in text


def test_the_sphinx_pages_render_without_the_page_controls_elsewhere(site):
    # The other documents of the project (the API pages) carry none of the page's parts.
    api = pathlib.Path(site["alabaster"][len("file://"):]).parent / "color.html"
    text = api.read_text(encoding="utf-8")
    assert "opsweep" not in text


# ---- the published page ------------------------------------------------------------------------

def test_the_committed_kornia_page_builds_and_filters_its_2000_rows_under_sphinx(reader, tmp_path):
    # snapshots/kornia/page.rst is what kornia's docs include: Sphinx builds it without a warning,
    # and its search works on every row.
    committed = TESTS.parent / "snapshots" / "kornia"
    kornia = json.loads((committed / "snapshot.json").read_text(encoding="utf-8"))
    source = sphinx_project.project_with_page(tmp_path, committed / "page.rst")
    out = sphinx_project.build(source, tmp_path / "html", theme="furo")
    load(reader, (out / f"{sphinx_project.PAGE_DOC}.html").as_uri())
    assert len(visible_rows(reader)) == len(kornia["records"]) > 2000
    for query in ("warp_perspective", "svd"):
        type_search(reader, query)
        assert visible_rows(reader) == expected(kornia, query) != [], query
        assert reader.execute_script("return window.opsweepFilterMs") < 200
    Select(reader.find_element(By.ID, "f")).select_by_value("failure")
    assert visible_rows(reader) == expected(kornia, "svd", "failure") != []
