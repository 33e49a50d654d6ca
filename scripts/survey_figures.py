#!/usr/bin/env python3
"""The figures the closing notes give about a survey, computed from its committed results.

    python3 scripts/survey_figures.py snapshots/kornia/results.jsonl [--before OLD_SNAPSHOT.json]
        [--matrix LABEL=results.jsonl ...] [--examples 5] [-o docs/survey-figures.md]

Reads the results text form (docs/formats.md section 4.1, versions 1 and 2) and prints Markdown:
- every path's statuses (supported = ok, ok-breaks, ok-unverified, ok-static, ok-recompiles;
  failures = mismatch, fail, crash, timeout; n/a), and with ``--before`` the same counts from an
  older snapshot.json beside them (issue 11: verdicts before and after);
- what the checks caught: captures that matched eager on their trace inputs but not on the fresh
  input set, and random captures whose randomness was frozen, with examples;
- the onnx path's sub-verdicts (issue 14): per runtime and opset, how many ran (a file exported
  and passed the checker) and their statuses; the operators onnxruntime runs but another runtime
  does not, grouped by runtime, step and reason, with examples; opset differences; the time the
  sub-verdicts add to the onnx path;
- the dynamic-shape paths (issue 15): statuses, operators supported on a static path and not
  plainly at other shapes (by dynamic status, with examples), the distribution of recompile
  counts, the time the dynamic paths add;
- the job time per path and each run's wall time;
- with ``--matrix``, several surveys side by side (issue 16): supported per path, pass all three.

Each (case, path) counts once, with its latest result. In a partial survey some of those may be
from an older harness, to be re-probed (``opsweep run --dry-run`` says how many are current); in a
finished one every result is current.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from datetime import datetime
from typing import Any, Iterable

SUPPORTED = ("ok", "ok-breaks", "ok-unverified", "ok-static", "ok-recompiles")
FAILURES = ("mismatch", "fail", "crash", "timeout")
STATUS_ORDER = ("ok", "ok-breaks", "ok-unverified", "ok-static", "ok-recompiles", "mismatch", "fail", "crash",
                "timeout", "n/a")
STATIC = ("onnx", "export", "compile")
DYNAMIC = {"export-dynamic": "export", "onnx-dynamic": "onnx", "compile-dynamic": "compile"}
FRESH_MISMATCH = "matches eager on its trace inputs only; on fresh inputs"
FRESH_RAISE = "ran on its trace inputs but raised on fresh inputs"
FROZEN = "randomness frozen at capture"


class Survey:
    """The results, runs and paths of one results text file."""

    def __init__(self, path: str):
        self.path = path
        self.runs: dict[int, dict[str, Any]] = {}
        self.results: dict[tuple[str, str], dict[str, Any]] = {}
        self.paths: dict[str, dict[str, Any]] = {}
        with open(path, encoding="utf-8") as fh:
            header = json.loads(fh.readline())
            if header.get("format") != "opsweep-results-text":
                raise SystemExit(f"{path}: not an opsweep results text file")
            for line in fh:
                j = json.loads(line)
                if "result" in j:
                    self.results[(j["result"], j["path"])] = j
                elif "run" in j and "started" in j:
                    self.runs[j["run"]] = j
                    for p in j.get("paths", []):
                        self.paths.setdefault(p["id"], p)

    def of_path(self, path: str) -> dict[str, dict[str, Any]]:
        return {case: r for (case, p), r in self.results.items() if p == path}

    def path_ids(self) -> list[str]:
        present = {p for _, p in self.results}
        ordered = sorted(self.paths, key=lambda p: (self.paths[p].get("order", 99), p))
        return [p for p in ordered if p in present] + sorted(present - set(self.paths))


def counts(statuses: Iterable[str]) -> collections.Counter:
    return collections.Counter(statuses)


def status_table(columns: list[tuple[str, collections.Counter]]) -> list[str]:
    seen = [s for s in STATUS_ORDER if any(c[s] for _, c in columns)]
    seen += sorted({s for _, c in columns for s in c} - set(seen))
    out = ["| status | " + " | ".join(name for name, _ in columns) + " |",
           "|---|" + "---:|" * len(columns)]
    for s in seen:
        out.append(f"| {s} | " + " | ".join(f"{c[s]:,}" for _, c in columns) + " |")
    for label, group in (("supported", SUPPORTED), ("failures", FAILURES)):
        out.append(f"| **{label}** | " + " | ".join(f"{sum(c[s] for s in group):,}" for _, c in columns) + " |")
    out.append("| **probed (all but n/a)** | " + " | ".join(f"{sum(c.values()) - c['n/a']:,}" for _, c in columns) + " |")
    out.append("| **jobs** | " + " | ".join(f"{sum(c.values()):,}" for _, c in columns) + " |")
    return out


def examples(names: Iterable[str], n: int) -> str:
    names = sorted(names)
    shown = ", ".join(f"`{x}`" for x in names[:n])
    return shown + (f" and {len(names) - n} more" if len(names) > n else "")


def short(text: str, limit: int = 90) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def reason_of(sub: dict[str, Any]) -> str:
    """A grouping key for a failure: its error type, else its detail's first words."""
    err = sub.get("error") or {}
    if err.get("type"):
        return f"{err['type'].rsplit('.', 1)[-1]}: {short(err.get('message', ''), 70)}"
    return short(sub.get("detail", ""), 80)


def seconds(r: dict[str, Any]) -> float:
    return float(r.get("duration_s") or 0.0)


def section_paths(s: Survey, before: dict[str, collections.Counter] | None) -> list[str]:
    out = ["## Verdicts per path", ""]
    cols = []
    for p in s.path_ids():
        c = counts(r["status"] for r in s.of_path(p).values())
        if before is not None and p in before:
            cols.append((f"{p} before", before[p]))
        cols.append((p if before is None else f"{p} now", c))
    out += status_table(cols) + [""]
    return out


def section_checks(s: Survey, n: int) -> list[str]:
    out = ["## What the fidelity checks caught", ""]
    rows = []
    for p in s.path_ids():
        fresh_mm, fresh_raise, frozen, passed, not_run = [], [], [], 0, 0
        for case, r in s.of_path(p).items():
            rec = r.get("record") or {}
            detail = rec.get("detail") or ""
            if r["status"] == "mismatch" and detail.startswith(FRESH_MISMATCH):
                fresh_mm.append(case)
            elif r["status"] == "fail" and detail.startswith(FRESH_RAISE):
                fresh_raise.append(case)
            elif r["status"] == "mismatch" and FROZEN in detail:
                frozen.append(case)
            fi = (rec.get("checks") or {}).get("fresh_inputs") or {}
            if fi.get("ran") and fi.get("passed"):
                passed += 1
            elif fi and not fi.get("ran"):
                not_run += 1
        rows.append((p, fresh_mm, fresh_raise, frozen, passed, not_run))
    out += ["| path | fresh inputs: mismatch | fresh inputs: raised | randomness frozen | fresh check passed | fresh check not run |",
            "|---|---:|---:|---:|---:|---:|"]
    for p, a, b, c, passed, not_run in rows:
        out.append(f"| {p} | {len(a)} | {len(b)} | {len(c)} | {passed:,} | {not_run:,} |")
    out.append("")
    for p, a, b, c, _, _ in rows:
        for label, names in (("mismatch on fresh inputs only", a), ("raised on fresh inputs only", b),
                             ("randomness frozen", c)):
            if names:
                out.append(f"- {p}, {label}: {examples(names, n)}")
    out.append("")
    return out


def section_runtimes(s: Survey, n: int) -> list[str]:
    onnx = s.of_path("onnx")
    if not onnx:
        return []
    out = ["## ONNX runtimes and opsets (the onnx path's sub-verdicts)", ""]
    subs: dict[str, dict[str, dict[str, Any]]] = collections.defaultdict(dict)
    for case, r in onnx.items():
        for sid, sub in ((r.get("record") or {}).get("subverdicts") or {}).items():
            subs[sid][case] = sub
    exported = [c for c, r in onnx.items() if (r.get("record") or {}).get("step") not in ("export", "eager", "skip", "no-tensor")
                and r["status"] != "n/a"]
    ort_ok = {c for c, r in onnx.items() if r["status"] in SUPPORTED}
    out.append(f"onnx path: {len(onnx):,} jobs, {len(ort_ok):,} supported in onnxruntime, "
               f"{len(exported):,} got past the export.")
    out.append("")
    cols = [(sid, counts(x["status"] for x in subs[sid].values())) for sid in sorted(subs)]
    if cols:
        out += status_table(cols) + [""]
    for sid in sorted(subs):
        if sid.startswith("opset"):
            continue
        elsewhere = {c: x for c, x in subs[sid].items() if c in ort_ok and x["status"] not in SUPPORTED}
        if not elsewhere:
            continue
        out.append(f"### {sid}: runs in onnxruntime, not in {sid} ({len(elsewhere)})")
        out.append("")
        groups = collections.defaultdict(list)
        for c, x in elsewhere.items():
            groups[(x["status"], x.get("step", ""), reason_of(x))].append(c)
        for (status, step, why), names in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            out.append(f"- {len(names)} {status} at {step or '-'}: {why} ({examples(names, n)})")
        out.append("")
    for sid in sorted(k for k in subs if k.startswith("opset")):
        better = sorted(c for c, x in subs[sid].items() if x["status"] in SUPPORTED and c not in ort_ok)
        worse = sorted(c for c, x in subs[sid].items() if x["status"] not in SUPPORTED and c in ort_ok)
        out.append(f"- {sid} vs opset 18: {len(worse)} supported at 18 and not at {sid[5:]} "
                   f"({examples(worse, n) or 'none'}); {len(better)} the other way ({examples(better, n) or 'none'})")
    total = sum(seconds(r) for r in onnx.values())
    extra = sum(float(((x.get("timings") or {}).get("total_s")) or 0.0) for by in subs.values() for x in by.values())
    per = {sid: sum(float(((x.get("timings") or {}).get("total_s")) or 0.0) for x in by.values()) for sid, by in subs.items()}
    if total:
        base = total - extra
        out += ["", f"Time: the onnx jobs took {total / 60:.1f} job-minutes, {extra / 60:.1f} of them in the "
                    f"sub-verdicts: {100 * extra / base:.0f}% over the path without them "
                    f"({', '.join(f'{k} {v / 60:.1f}' for k, v in sorted(per.items()))} job-minutes)."]
    out.append("")
    return out


def section_dynamic(s: Survey, n: int) -> list[str]:
    present = [p for p in DYNAMIC if s.of_path(p)]
    if not present:
        return []
    out = ["## Dynamic shapes", ""]
    cols = [(p, counts(r["status"] for r in s.of_path(p).values())) for p in present]
    out += status_table(cols) + [""]
    for p in present:
        static = s.of_path(DYNAMIC[p])
        dyn = s.of_path(p)
        plain_ok = {c for c, r in static.items() if r["status"] in ("ok", "ok-unverified")}
        groups = collections.defaultdict(list)
        for c in plain_ok:
            d = dyn.get(c)
            if d is None or d["status"] in ("ok", "ok-unverified", "n/a"):
                continue
            groups[d["status"]].append(c)
        total = sum(len(v) for v in groups.values())
        out.append(f"- {DYNAMIC[p]} ok and {p} not ok: {total}"
                   + "".join(f"; {st} {len(v)} ({examples(v, n)})" for st, v in sorted(groups.items())))
    comp = s.of_path("compile-dynamic")
    if comp:
        dist = collections.Counter()
        for r in comp.values():
            rc = ((r.get("record") or {}).get("dynamic") or {}).get("recompiles")
            if rc is not None:
                dist[rc] += 1
        out += ["", "Recompiles over the three calls (compile-dynamic): "
                + ", ".join(f"{k}: {v:,}" for k, v in sorted(dist.items()))]
    static_s = sum(seconds(r) for p in STATIC for r in s.of_path(p).values())
    dyn_s = sum(seconds(r) for p in present for r in s.of_path(p).values())
    if static_s:
        out += ["", f"Time: the dynamic paths took {dyn_s / 3600:.2f} job-hours against {static_s / 3600:.2f} for the "
                    f"static ones (+{100 * dyn_s / static_s:.0f}%)."]
    out.append("")
    return out


def section_time(s: Survey) -> list[str]:
    out = ["## Time", "", "| path | jobs | job-hours | mean s |", "|---|---:|---:|---:|"]
    for p in s.path_ids():
        rs = list(s.of_path(p).values())
        t = sum(seconds(r) for r in rs)
        out.append(f"| {p} | {len(rs):,} | {t / 3600:.2f} | {t / max(1, len(rs)):.1f} |")
    out += ["", "| run | started | wall | results in this file |", "|---|---|---:|---:|"]
    per_run = collections.Counter(r["run"] for r in s.results.values())
    for rid, run in sorted(s.runs.items()):
        try:
            wall = (datetime.fromisoformat(run["finished"].replace("Z", "+00:00"))
                    - datetime.fromisoformat(run["started"].replace("Z", "+00:00"))).total_seconds()
            wall_text = f"{wall / 3600:.2f} h"
        except (KeyError, ValueError, AttributeError):
            wall_text = "?"
        out.append(f"| {rid} | {run.get('started', '')} | {wall_text} | {per_run[rid]:,} |")
    out.append("")
    return out


def section_matrix(entries: list[tuple[str, Survey]]) -> list[str]:
    out = ["## Torch releases side by side", ""]
    paths = [p for p in STATIC + tuple(DYNAMIC) if any(sv.of_path(p) for _, sv in entries)]
    out += ["| survey | " + " | ".join(f"{p} supported" for p in paths) + " | all three static |",
            "|---|" + "---:|" * (len(paths) + 1)]
    for label, sv in entries:
        cells = []
        for p in paths:
            rs = sv.of_path(p)
            cells.append(f"{sum(r['status'] in SUPPORTED for r in rs.values()):,} / {len(rs):,}")
        cases = {c for (c, _) in sv.results}
        all3 = sum(all((sv.results.get((c, p)) or {}).get("status") in SUPPORTED for p in STATIC) for c in cases)
        out.append(f"| {label} | " + " | ".join(cells) + f" | {all3:,} |")
    out.append("")
    return out


def snapshot_counts(path: str) -> dict[str, collections.Counter]:
    with open(path, encoding="utf-8") as fh:
        snap = json.load(fh)
    out: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for rec in snap.get("records", []):
        for p, o in (rec.get("paths") or {}).items():
            out[p][o.get("status", "?")] += 1
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", help="a results text file (opsweep results export)")
    ap.add_argument("--before", help="an older snapshot.json whose statuses to show beside")
    ap.add_argument("--matrix", nargs="*", default=[], metavar="LABEL=FILE", help="more surveys to set side by side")
    ap.add_argument("--examples", type=int, default=5)
    ap.add_argument("-o", "--output", help="write the Markdown here too")
    args = ap.parse_args(argv)
    s = Survey(args.results)
    before = snapshot_counts(args.before) if args.before else None
    lines = [f"# Survey figures: {args.results}", "",
             f"{len(s.results):,} results of {len({c for c, _ in s.results}):,} cases on {len(s.path_ids())} paths.", ""]
    lines += section_paths(s, before)
    lines += section_checks(s, args.examples)
    lines += section_runtimes(s, args.examples)
    lines += section_dynamic(s, args.examples)
    lines += section_time(s)
    if args.matrix:
        entries = [("this", s)]
        for item in args.matrix:
            label, _, file = item.partition("=")
            if not file:
                ap.error(f"--matrix takes LABEL=FILE, not {item!r}")
            entries.append((label, Survey(file)))
        lines += section_matrix(entries)
    text = "\n".join(lines).rstrip() + "\n"
    sys.stdout.write(text)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
