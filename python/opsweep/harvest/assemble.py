"""``python -m opsweep.harvest.assemble draft|final``: candidates into registries (no library code runs here).

    python -m opsweep.harvest.assemble draft --scratch DIR [--max-variants N]
    python -m opsweep.harvest.assemble final --scratch DIR -o OUT

Reads what the engine wrote in the scratch folder: ``plan.json`` (plan.py), ``record.jsonl`` and
``check.jsonl`` (one line per worker event, ``{"unit": K, "event": {...}}``, and one per unit's end,
``{"unit": K, "end": "done"|"timeout"|"crash"|"memory", "step": S, "where": "file:line", "detail": ...}``;
``{"unit": K, "payload": {...}}`` when the engine queues a unit).

**draft**: every candidate case (a ``call`` event with a ``case``), in a fixed order: the
operator's own docstring first, then other docstrings (plan order), then test files (path, test id);
deduplicated by signature (the call with tensors as dtype[shape]); at most ``--max-variants`` per
operator and source. Names: the operator's short name (its last dotted part, ``Class.method`` for a
method; more leading parts only where two operators would share it), then the variant
``[doc]``, ``[doc:2]``, ... for docstrings and ``[test]``, ``[test:2]``, ... for tests. Writes the
draft registries (checked as written, default tolerance) to ``DIR/draft/`` and prints
``{"cases": [names]}``.

**final**: the draft cases with the checks' outcomes (checks.py): dropped cases left out with
their reason; ``check=False``, a measured ``atol`` with its ``note``, ``fresh_inputs="reason"``
written where the checks said so. Writes ``OUT/cases_<package>.py`` (one per package: the first part
of the group), ``OUT/harvest.pt`` (every tensor, one flat dict, ``torch.save`` to bytes: loads with
``torch.load(weights_only=True)``), ``OUT/__init__.py`` (``LIBRARY``) unless a hand-written one is
there, and ``OUT/harvest.json`` (the summary with every operator's outcome, read by
``opsweep coverage``); generated registries no longer produced are removed, hand-written files are
never touched. Prints the summary. Every file is deterministic: sorted, no times, no absolute paths.
"""

from __future__ import annotations

import argparse
import collections
import io
import json
import os
import re
import sys
from typing import Any

from opsweep.toolkit.harvested import DATA_FILE, GENERATED_MARK, is_generated, overrides

SUMMARY_FILE = "harvest.json"
SCHEMA = 1


# ---------------------------------------------------------------------------------------------
# reading the scratch folder


def read_jsonl(path: str) -> list[dict]:
    out = []
    if not os.path.isfile(path):
        return out
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                out.append(json.loads(line))
            except ValueError:
                continue  # a line cut by an interruption
    return out


class Phase:
    """One phase's lines, by unit: payloads, events, ends."""

    def __init__(self, path: str):
        self.payloads: dict[int, dict] = {}
        self.events: dict[int, list[dict]] = collections.defaultdict(list)
        self.ends: dict[int, dict] = {}
        self.resumes: dict[int, int] = {}  # resumed unit -> the unit it goes on from
        for line in read_jsonl(path):
            unit = int(line.get("unit", -1))
            if "payload" in line:
                self.payloads[unit] = line["payload"]
                if "resumes" in line:
                    self.resumes[unit] = int(line["resumes"])
            elif "event" in line:
                self.events[unit].append(line["event"])
            elif "end" in line:
                self.ends[unit] = line

    def root(self, unit: int) -> int:
        while unit in self.resumes:
            unit = self.resumes[unit]
        return unit


# ---------------------------------------------------------------------------------------------
# names


def short_names(operators: list[dict]) -> dict[str, str]:
    """Each operator's case name: the shortest tail of its dotted name (at least the last part; a
    method's class and method) that no other operator shares."""
    full = {o["name"]: o for o in operators}

    def tail(name: str, n: int) -> str:
        parts = name.split(".")
        base = 2 if full[name]["kind"] == "method" else 1
        return ".".join(parts[-min(len(parts), base + n):])

    depth = {name: 0 for name in full}
    while True:
        names = {name: tail(name, depth[name]) for name in full}
        clashes = collections.defaultdict(list)
        for name, short in names.items():
            clashes[short].append(name)
        grown = False
        for short, owners in clashes.items():
            if len(owners) > 1:
                for name in owners:
                    if tail(name, depth[name] + 1) != tail(name, depth[name]):
                        depth[name] += 1
                        grown = True
        if not grown:
            return names


def package_file(group: str) -> str:
    package = re.sub(r"\W", "_", group.split(".")[0]) or "top"
    return f"cases_{package}.py"


# ---------------------------------------------------------------------------------------------
# draft


def candidates(plan: dict, record: Phase) -> list[dict]:
    """Every candidate (and every call without one) in the fixed order of the module docstring."""
    unit_index = {i: u for i, u in enumerate(plan["units"])}
    calls = []
    for unit, events in record.events.items():
        root = record.root(unit)
        payload = unit_index.get(root) or record.payloads.get(root) or {}
        for e in events:
            if e.get("kind") != "call":
                continue
            own = payload.get("kind") == "doc" and payload.get("operator") == e["operator"]
            if e["source"] == "docs":
                key = (0, 0 if own else 1, root, *(int(x) for x in e.get("order", [0, 0])))
            else:
                key = (1, 0, e.get("file", ""), str(e.get("order", ["", 0])[0]), int(e.get("order", ["", 0])[1]))
            calls.append((key, {**e, "unit": root}))
    calls.sort(key=lambda kv: kv[0])  # docs keys hold numbers, tests keys strings: the first item tells them apart
    return [c for _, c in calls]


def choose(plan: dict, record: Phase, max_variants: int) -> tuple[list[dict], list[dict]]:
    """(chosen cases, calls without a case) after deduplication and the cap."""
    names = short_names(plan["operators"])
    chosen: list[dict] = []
    left: list[dict] = []
    seen: dict[str, set[str]] = collections.defaultdict(set)
    count: dict[tuple[str, str], int] = collections.Counter()
    for call in candidates(plan, record):
        case = call.get("case")
        if case is None:
            left.append(call)
            continue
        op = call["operator"]
        if case["signature"] in seen[op]:
            continue
        source = "doc" if call["source"] == "docs" else "test"
        if count[(op, source)] >= max_variants:
            left.append({**call, "why": "over the variant cap", "case": None})
            continue
        seen[op].add(case["signature"])
        count[(op, source)] += 1
        n = count[(op, source)]
        variant = source if n == 1 else f"{source}:{n}"
        chosen.append({
            "name": f"{names.get(op, op.rsplit('.', 1)[-1])}[{variant}]",
            "operator": op,
            "source": call["source"],
            "group": call["group"],
            "origin": f"{call['file']}:{call['line']}",
            "rank": [0 if source == "doc" else 1, n],
            **{k: case[k] for k in ("target", "kwargs", "imports", "inputs", "constants", "tensors")},
        })
    return chosen, left


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def case_line(c: dict, data: str = "T") -> str:
    target = c["target"]
    for i in range(c["constants"]):
        target = target.replace(f"@@c{i}@@", f'{data}[{_q(c["name"] + "/c" + str(i))}]')
    kwargs = c["kwargs"]
    for i in range(c["constants"]):
        kwargs = kwargs.replace(f"@@c{i}@@", f'{data}[{_q(c["name"] + "/c" + str(i))}]')
    inputs = ", ".join(f'{data}[{_q(c["name"] + "/" + str(i))}]' for i in range(c["inputs"]))
    parts = [_q(c["name"]), _q(c["group"]), target, f"[{inputs}]"]
    if kwargs:
        parts.append(f"kwargs={kwargs}")
    if c.get("check") is False:
        parts.append("check=False")
    if c.get("atol") is not None:
        parts.append(f"atol={c['atol']!r}")
    if c.get("note"):
        parts.append(f"note={_q(c['note'])}")
    if c.get("fresh"):
        parts.append(f"fresh_inputs={_q(c['fresh'])}")
    return f"    case({', '.join(parts)}),  # {c['origin']}"


def registry_text(cases: list[dict], library: str, version: str, draft: bool = False) -> str:
    """A registry's source; a draft builds each case apart (drafts.py)."""
    imports = sorted({m for c in cases for m in c["imports"]} - {"torch"})
    needs_torch = any("torch." in c["target"] or "torch." in c["kwargs"] for c in cases) or "torch" in {
        m for c in cases for m in c["imports"]}
    lines = [
        f"{GENERATED_MARK} from the runnable examples of {library}{' ' + version if version else ''} (docs/harvest.md).",
        "# One case per line, with the file:line of the example that made the call. Do not edit: to fix a case,",
        "# write it by hand in a registry of this folder and list its name in that registry's OVERRIDES, with why.",
    ]
    if needs_torch:
        lines.append("import torch")
    lines += [f"import {m}" for m in imports if m.split(".")[0].isidentifier()]
    lines += [
        "",
        "from opsweep.case import case",
        "from opsweep.toolkit.harvested import Built, Call, In, Method, harvested_cases, tensors",
    ]
    if draft:
        lines.append("from opsweep.harvest.drafts import built")
    lines += ["", "T = tensors(__file__)", ""]
    if draft:
        lines += ["CASES = built(__file__, ["]
        lines += [f"    ({_q(c['name'])}, lambda: {_draft_line(c)})," for c in cases]
    else:
        lines += ["CASES = harvested_cases(__file__, [", *[case_line(c) for c in cases]]
    lines += ["])", ""]
    return "\n".join(lines)


def _draft_line(c: dict) -> str:
    """The case's call without its indentation, trailing comma and origin comment."""
    return case_line(c).strip().rsplit("),  # ", 1)[0] + ")"


def tensor_bytes(cases: list[dict], scratch: str) -> bytes:
    """Every case's tensors as one flat dict, ``torch.save``d to bytes (the archive's name is then
    fixed, so the bytes depend on the tensors alone). Keys whose tensors are equal (dtype, shape and
    bytes) share one tensor, which ``torch.save`` stores once."""
    import hashlib

    import torch

    out: dict[str, Any] = {}
    by_content: dict[str, Any] = {}

    def shared(t: Any) -> Any:
        try:
            flat = t.contiguous().reshape(-1)
            raw = flat.to(torch.uint8) if t.dtype == torch.bool else flat.view(torch.uint8)
            data = raw.numpy().tobytes()
        except (RuntimeError, TypeError):  # a layout without plain bytes: kept apart
            return t
        digest = hashlib.blake2b(data + repr((str(t.dtype), tuple(t.shape))).encode(), digest_size=16).hexdigest()
        return by_content.setdefault(digest, t.contiguous())

    cache: dict[str, dict] = {}
    for c in sorted(cases, key=lambda c: c["name"]):
        path = os.path.join(scratch, c["tensors"])
        if path not in cache:
            cache.clear()
            cache[path] = torch.load(path, map_location="cpu", weights_only=True)
        saved = cache[path]
        for i in range(c["inputs"]):
            out[f"{c['name']}/{i}"] = shared(saved[f"in{i}"])
        for i in range(c["constants"]):
            out[f"{c['name']}/c{i}"] = shared(saved[f"c{i}"])
    buffer = io.BytesIO()
    torch.save(out, buffer)
    return buffer.getvalue()


def write_atomic(path: str, data: bytes | str) -> None:
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)
    os.replace(tmp, path)


def write_suite(folder: str, cases: list[dict], plan: dict, scratch: str, draft: bool = False) -> list[str]:
    """Registries, data file and __init__.py into ``folder``; returns the registry files written."""
    os.makedirs(folder, exist_ok=True)
    by_file: dict[str, list[dict]] = collections.defaultdict(list)
    for c in sorted(cases, key=lambda c: (package_file(c["group"]), c["group"], c["name"].split("[")[0], c["rank"])):
        by_file[package_file(c["group"])].append(c)
    written = []
    for name, group in sorted(by_file.items()):
        write_atomic(os.path.join(folder, name), registry_text(group, plan["library"], plan.get("version", ""), draft))
        written.append(name)
    for stale in sorted(os.listdir(folder)):
        path = os.path.join(folder, stale)
        if stale.startswith("cases_") and stale.endswith(".py") and stale not in written and is_generated(path):
            os.remove(path)
    write_atomic(os.path.join(folder, DATA_FILE), tensor_bytes(cases, scratch))
    init = os.path.join(folder, "__init__.py")
    if not os.path.exists(init) or is_generated(init):
        write_atomic(init, f"{GENERATED_MARK} (docs/harvest.md).\n"
                           f'"""Cases harvested from {plan["library"]}\'s runnable examples."""\n\n'
                           f'LIBRARY = "{plan["library"]}"\n')
    return written


def draft(scratch: str, max_variants: int) -> dict:
    plan = json.load(open(os.path.join(scratch, "plan.json"), encoding="utf-8"))
    record = Phase(os.path.join(scratch, "record.jsonl"))
    chosen, left = choose(plan, record, max_variants)
    folder = os.path.join(scratch, "draft")
    write_suite(folder, chosen, plan, scratch, draft=True)
    with open(os.path.join(scratch, "draft.json"), "w", encoding="utf-8") as f:
        json.dump({"cases": chosen, "left": left}, f, sort_keys=True)
    return {"cases": [c["name"] for c in chosen],
            "registries": sorted(os.path.join(folder, n) for n in os.listdir(folder)
                                 if n.startswith("cases_") and n.endswith(".py"))}


# ---------------------------------------------------------------------------------------------
# final


def _error_group(text: str) -> str:
    """An error as the summary groups it: its type and message, numbers and quoted names kept,
    cut at 120 characters."""
    return text[:120]


def final(scratch: str, out: str) -> dict:
    plan = json.load(open(os.path.join(scratch, "plan.json"), encoding="utf-8"))
    drafted = json.load(open(os.path.join(scratch, "draft.json"), encoding="utf-8"))
    record = Phase(os.path.join(scratch, "record.jsonl"))
    check = Phase(os.path.join(scratch, "check.jsonl"))
    results: dict[str, dict] = {}
    for unit, events in check.events.items():
        for e in events:
            if e.get("kind") == "check":
                results[e["case"]] = e
    for unit, end in check.ends.items():
        name = (check.payloads.get(unit) or {}).get("case")
        if name and end["end"] != "done" and name not in results:
            results[name] = {"drop": f"the checks {_end_text(end)} (at: {end.get('where', '?')})"}

    cases, dropped = [], []
    for c in drafted["cases"]:
        r = results.get(c["name"], {"drop": "the checks gave no result"})
        if r.get("drop"):
            dropped.append({"case": c["name"], "operator": c["operator"], "why": r["drop"]})
            continue
        cases.append({**c, "check": r.get("check", True), "atol": r.get("atol"), "note": r.get("note", ""),
                      "fresh": r.get("fresh")})
    write_suite(out, cases, plan, scratch)
    summary = summarize(plan, record, cases, dropped, drafted["left"], overrides(out))
    write_atomic(os.path.join(out, SUMMARY_FILE), json.dumps(summary, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    return summary


def _end_text(end: dict) -> str:
    kind = end["end"]
    if kind == "timeout":
        return f"timed out ({end.get('detail', '')})".replace(" ()", "")
    if kind == "memory":
        return f"went over the memory limit ({end.get('detail', '')})"
    return f"crashed ({end.get('detail', '')})"


def summarize(plan: dict, record: Phase, cases: list[dict], dropped: list[dict], left: list[dict],
              replaced: dict) -> dict:
    """Every operator's outcome, and the counts the summary prints."""
    units = {i: u for i, u in enumerate(plan["units"])}
    own_failure: dict[str, str] = {}
    for unit in sorted(set(record.ends) | set(record.events)):
        root = record.root(unit)
        payload = units.get(root) or {}
        if payload.get("kind") != "doc":
            continue
        op = payload["operator"]
        end = record.ends.get(unit)
        if end is not None and end["end"] != "done" and op not in own_failure:
            own_failure[op] = f"the example at {end.get('where', '?')} {_end_text(end)}"
        for e in record.events.get(unit, []):
            if e.get("kind") == "example_error" and op not in own_failure:
                own_failure[op] = e["error"]
            if e.get("kind") == "harness_error" and op not in own_failure:
                own_failure[op] = f"opsweep: {e['error']}"
    test_failures = []
    for unit, end in sorted(record.ends.items()):
        payload = record.payloads.get(unit) or units.get(record.root(unit)) or {}
        if payload.get("kind") == "tests" and end["end"] != "done":
            test_failures.append({"test": end.get("where", "?"), "error": _end_text(end)})

    by_op: dict[str, list[dict]] = collections.defaultdict(list)
    for c in cases:
        by_op[c["operator"]].append(c)
    why_calls: dict[str, list[str]] = collections.defaultdict(list)
    for call in left:
        why_calls[call["operator"]].append(call.get("why") or "")
    for d in dropped:
        why_calls[d["operator"]].append(d["why"])

    rows = []
    for o in plan["operators"]:
        name = o["name"]
        mine = by_op.get(name, [])
        row: dict[str, Any] = {"name": name, "kind": o["kind"], "examples": o["examples"]}
        if mine:
            row["status"] = "harvested"
            row["sources"] = sorted({c["source"] for c in mine})
            row["cases"] = sorted((c["name"] for c in mine), key=_variant_order)
        else:
            row["status"] = "none"
            row["why"], row["reason"] = _why_none(o, why_calls.get(name, []), own_failure.get(name))
        rows.append(row)

    failed = collections.defaultdict(list)
    for r in rows:
        if r["status"] == "none" and r["reason"] == "example failed":
            failed[_error_group(r["why"])].append(r["name"])
    reasons = collections.Counter(r["reason"] for r in rows if r["status"] == "none")
    harvested = [r for r in rows if r["status"] == "harvested"]
    return {
        "schema": SCHEMA,
        "library": plan["library"],
        "version": plan.get("version", ""),
        "operators": len(rows),
        "with_examples": sum(1 for o in plan["operators"] if o["examples"]),
        "harvested": len(harvested),
        "cases": len(cases),
        "by_source": {
            "docs": sum(1 for r in harvested if "docs" in r["sources"]),
            "tests": sum(1 for r in harvested if "tests" in r["sources"]),
        },
        "cases_by_source": dict(sorted(collections.Counter(c["source"] for c in cases).items())),
        "no_example": reasons.get("no example", 0),
        "example_failed": {
            "count": reasons.get("example failed", 0),
            "by_error": sorted(({"error": k, "count": len(v), "operators": sorted(v)} for k, v in failed.items()),
                               key=lambda g: (-g["count"], g["error"])),
        },
        "no_tensor_output": reasons.get("no tensor output", 0),
        "none_by_reason": dict(sorted(reasons.items())),
        "random": sum(1 for c in cases if c.get("check") is False),
        "measured_tolerance": sum(1 for c in cases if c.get("atol") is not None),
        "fresh_opt_out": sum(1 for c in cases if c.get("fresh")),
        "dropped": sorted(dropped, key=lambda d: d["case"]),
        "overridden": [{"case": k, "reason": v[0], "registry": v[1]} for k, v in sorted(replaced.items())
                       if k in {c["name"] for c in cases}],
        "test_failures": test_failures,
        "per_operator": rows,
    }


# The order in which the reasons a call gave no case explain an operator without one: the most
# specific first.
_REASON_KINDS = (
    ("the rebuilt call", "fails when rebuilt"),
    ("its registry line raises", "fails when rebuilt"),
    ("cannot be fingerprinted", "fails when rebuilt"),
    ("the checks", "fails when rebuilt"),
    ("cannot be rebuilt", "not rebuildable"),
    ("cannot be imported", "not rebuildable"),
    ("no call of the example", "not rebuildable"),
    ("output object of a module call", "not rebuildable"),
    ("no tensor argument", "no tensor argument"),
    ("--max-tensor-mib", "tensors over the size cap"),
    ("its output holds no tensor", "no tensor output"),
    ("its example raised", "example failed"),
    ("raises on purpose", "raises in its example"),
    ("did not return", "example failed"),
)


_VARIANT = re.compile(r"^(.*)\[([^:\]]*)(?::(\d+))?\]$")


def _variant_order(name: str) -> tuple[str, str, int]:
    """A case name's place among its operator's: by source, then variant number ("scale[test]"
    before "scale[test:2]" before "scale[test:10]")."""
    m = _VARIANT.match(name)
    return (m.group(1), m.group(2), int(m.group(3) or 1)) if m else (name, "", 0)


def _why_none(op: dict, whys: list[str], own_failure: str | None) -> tuple[str, str]:
    """(the sentence, the reason kind) for an operator without a case."""
    for needle, kind in _REASON_KINDS:
        hit = next((w for w in whys if needle in w), None)
        if hit is not None:
            if kind == "example failed" and own_failure:
                return own_failure, kind
            return hit, kind
    if own_failure:
        return own_failure, "example failed"
    if not op["examples"]:
        return "no >>> example in its docstring, and no other example calls it", "no example"
    return "its examples do not call it from their own code", "not called by its example"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m opsweep.harvest.assemble")
    p.add_argument("step", choices=("draft", "final"))
    p.add_argument("--scratch", required=True)
    p.add_argument("--max-variants", type=int, default=3)
    p.add_argument("-o", "--out", default=None)
    args = p.parse_args(argv)
    try:
        if args.step == "draft":
            result = draft(args.scratch, args.max_variants)
        else:
            if not args.out:
                raise ValueError("final needs -o OUT")
            result = final(args.scratch, args.out)
    except (OSError, ValueError, KeyError) as e:
        print(json.dumps({"error": " ".join(f"{type(e).__name__}: {e}".split())}))
        return 2
    print(json.dumps(result, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
