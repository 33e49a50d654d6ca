"""docs/reasons.md lists every reason id of rules/*.json (and no id twice)."""

import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_every_rule_id_is_documented():
    doc = (ROOT / "docs" / "reasons.md").read_text()
    listed = re.findall(r"^\| [-0-9]+ \| `([a-z0-9-]+)` \|", doc, flags=re.M)
    assert len(listed) == len(set(listed)), "an id is listed twice"
    ids = []
    for f in sorted((ROOT / "rules").glob("*.json")):
        ids += [r["id"] for r in json.loads(f.read_text())["rules"]]
    missing = sorted(set(ids) - set(listed))
    assert not missing, f"docs/reasons.md does not list: {missing}"
    assert {"unclassified", "missing-result"} <= set(listed)
