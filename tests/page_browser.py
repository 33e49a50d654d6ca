"""What the browser tests of the rendered pages share: loading a page for real and reading which
rows the page's script left visible."""

from __future__ import annotations


def load(browser, url):
    """A real load, not a same-document hash change (which would not re-run the page's script)."""
    browser.get("about:blank")
    browser.get(url)


def visible_rows(browser):
    """The data-name of every table row the page shows, sorted. checkVisibility, not layout boxes:
    sections off screen skip layout (content-visibility)."""
    return sorted(browser.execute_script(
        "return Array.from(document.querySelectorAll('tr[data-s]'))"
        ".filter(tr => tr.checkVisibility()).map(tr => tr.dataset.name)"))
