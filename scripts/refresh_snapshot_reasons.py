#!/usr/bin/env python3
"""Refreshes the reason texts of a snapshot from the rules, in place, without re-measuring anything.

    python3 scripts/refresh_snapshot_reasons.py snapshots/kornia/snapshot.json [--rules rules]

`opsweep merge` copies each used rule's title, cause, hint and component into the snapshot's
"reasons". When a rule's words change (a hint reworded) but not its match, the classification of
every record is unchanged and only those texts are stale: this rewrites them from rules/*.json, for
the ids the snapshot already uses, and nothing else. Merge's own ids (unclassified, missing-result)
are not in the rules and are left as they are. Re-render the page afterwards.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys

FIELDS = ("title", "cause", "hint", "component")


def main(argv: list[str] | None = None) -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("snapshot")
    parser.add_argument("--rules", default=os.path.join(here, "..", "rules"), help="folder of *.json rules")
    args = parser.parse_args(argv)
    rules = {}
    for file in sorted(glob.glob(os.path.join(args.rules, "*.json"))):
        with open(file, encoding="utf-8") as f:
            for rule in json.load(f)["rules"]:
                rules[rule["id"]] = {k: rule[k] for k in FIELDS}
    with open(args.snapshot, encoding="utf-8") as f:
        data = json.load(f)
    changed = []
    for rid, texts in data["reasons"].items():
        if rid in rules and texts != rules[rid]:
            data["reasons"][rid] = rules[rid]
            changed.append(rid)
    with open(args.snapshot, "w", encoding="utf-8") as f:
        f.write(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    print(f"{args.snapshot}: {len(changed)} reason text(s) refreshed" + (f": {', '.join(changed)}" if changed else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
