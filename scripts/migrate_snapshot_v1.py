#!/usr/bin/env python3
"""Converts opsweep snapshots of schema 1 to schema 2 (docs/formats.md section 5), in place.

    PYTHONPATH=python python3 scripts/migrate_snapshot_v1.py snapshots/kornia/snapshot.json [...]

Schema 2 differs from schema 1 only in the header and in one record field:
- "schema": 2;
- "paths": the path descriptions {id, title, label, description, steps, env, subverdicts, order}
  instead of bare ids, taken from the harness (``opsweep.paths.describe_paths()``, without the
  fields readers have no use for: ``harness``, ``expected_seconds``);
- "environment": every env field the paths' descriptions list (python, torch, numpy, device, onnx,
  onnxscript, onnxruntime, opset, ...), so the top-level "opset" and "device" move into it;
- "break_reasons" are {"reason": id, "text": ...} objects (merge always wrote them so; hand-made
  schema-1 snapshots could list bare strings: a reason id becomes {"reason": id, "text": its title},
  any other text {"reason": null, "text": text}, which is what a page showed for each).
Records, reasons and everything else are kept as they are, so rendering the migrated snapshot gives
the same page, byte for byte. A snapshot that is already schema 2 is left untouched.
"""

from __future__ import annotations

import argparse
import json
import sys

SNAPSHOT_FIELDS = ("id", "title", "label", "description", "steps", "env", "subverdicts", "order")


def descriptions() -> dict[str, dict]:
    from opsweep.paths import describe_paths

    return {d["id"]: {k: d[k] for k in SNAPSHOT_FIELDS} for d in describe_paths()}


def migrate(data: dict, described: dict[str, dict]) -> dict:
    if data.get("schema") != 1:
        raise ValueError(f"schema {data.get('schema')!r}, not 1")
    unknown = [p for p in data["paths"] if p not in described]
    if unknown:
        raise ValueError(f"the harness describes no path {', '.join(unknown)}")
    paths = [described[p] for p in data["paths"]]
    old_env = data.get("environment", {})
    top = {"opset": data.pop("opset", None), "device": data.pop("device", None)}
    environment = {}
    for path in paths:
        for field in path["env"]:
            environment.setdefault(field, old_env.get(field, top.get(field)))
    data["schema"] = 2
    data["paths"] = paths
    data["environment"] = environment
    reasons = data.get("reasons", {})
    for record in data.get("records", []):
        for outcome in record.get("paths", {}).values():
            converted = []
            for item in outcome.get("break_reasons") or []:
                if isinstance(item, str):
                    item = ({"reason": item, "text": reasons[item]["title"]} if item in reasons
                            else {"reason": None, "text": item})
                converted.append(item)
            outcome["break_reasons"] = converted
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("snapshots", nargs="+", help="snapshot.json files, rewritten in place")
    args = parser.parse_args(argv)
    described = descriptions()
    for file in args.snapshots:
        with open(file, encoding="utf-8") as f:
            data = json.load(f)
        if data.get("schema") == 2:
            print(f"{file}: already schema 2")
            continue
        try:
            migrate(data, described)
        except (KeyError, ValueError) as e:
            print(f"{file}: cannot migrate: {e}", file=sys.stderr)
            return 2
        text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        with open(file, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"{file}: schema 1 -> 2")
    return 0


if __name__ == "__main__":
    sys.exit(main())
