#!/usr/bin/env python3
"""Audits the fresh input sets of registry cases: are they valid inputs, is the comparison on them
meaningful?

Every captured program is also run on a second input set (opsweep/fresh_set.py
``draw_fresh_inputs``: each floating input redrawn uniformly in its own [min, max], unless the case
gives its own set or opts out) and a difference from eager there is published as a ``mismatch``
("matches eager on its trace inputs only"). That verdict is only true when the fresh inputs are
valid inputs of the operator and eager is well-behaved on them. This script checks that, eager
only (no capture), for every case:

    PYTHONPATH=python nice -n 10 python3 scripts/audit_fresh_inputs.py [REGISTRY ...]
        [--out audit.jsonl] [--only NAME ... | --only-file FILE] [--export] [--resume] [--summary-only]

REGISTRY defaults to every python/opsweep_suites/kornia/cases_*.py. For each case that is not
skipped it builds the target (``materialize``), draws the fresh set as the harness does (same
seed), runs eager on the trace inputs and on the fresh inputs (``opsweep.job.eager_calls``, seed 0,
each on a fresh module, as ``ProbeContext.eager_on``) and flags:

  raises       eager raises on the fresh inputs but not on the trace inputs
  nonfinite    an output has NaN/inf on the fresh inputs but not on the trace inputs
  explodes     an output's max |value| on the fresh inputs is > 1e3 x the trace's (floor 1e-3)
  shape        an output's shape differs between trace and fresh (value-dependent shapes)
  identical    every output is bitwise identical on both sets: the fresh set changes nothing the
               operator reads, so the check cannot catch a baked value (informative)
  sensitive    check=True only: eager on the fresh inputs and on the same inputs perturbed by a
               relative 1e-6 differ beyond the case's tolerance, while on the trace inputs they do
               not (ill-conditioned fresh set: a capture's rounding alone can decide the verdict)
  structured   an input looks structured by its values or its case's name (identity, rotation,
               camera intrinsics, homography-like, 4x4 / 3x4 poses, 2x3 affines / LAFs, unit
               vectors or quaternions, xyxy boxes, 0/1 masks or integer values stored as float,
               sorted values, probability vectors, symmetric positive definite matrices, parameter
               vectors mixing scales) and the harness would redraw it uniformly. With the case's own
               fresh set the same detectors run on that set: a structure the trace input has and
               the fresh one lost is flagged ``structure-lost``.

Cases without a fresh check (own opt-out, no floating input to vary) are listed with the reason.
``--export`` also runs the real export path (``opsweep.job.run_job(case, "export")``) on every case
whose fresh check would run and records its status, detail and ``checks``; mismatches on fresh
inputs are listed at the end. One JSON line per case goes to ``--out`` as it finishes (``--resume``
skips the cases already there; a case that killed the process is recorded as ``crashed``), and a
summary is printed. Run it at low priority (``nice -n 10``): torch uses one thread.

Measured on the shared 2-core VM (loaded by other work): the eager audit of all 2,046 kornia cases
takes 2 to 3 minutes of wall time (about 40 s of CPU); with ``--export``, 1,069 cases of the geometry,
filters and feature registries took 21 minutes.
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import re
import sys
import time
import traceback
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_REGISTRIES = os.path.join(ROOT, "python", "opsweep_suites", "kornia", "cases_*.py")

EXPLODE_RATIO = 1e3
EXPLODE_FLOOR = 1e-3
PERTURB_REL = 1e-6

# case or target names that say an input has structure the uniform redraw destroys
STRUCTURED_NAMES = re.compile(
    r"rotation|quaternion|axis_angle|angle_axis|rotmat|so3|se3|so2|se2|pose|extrinsic|intrinsic|camera|pinhole|"
    r"homograph|laf|boxes|bbox|keypoint|essential|fundamental|projection|rt_matrix|euler|quat",
    re.IGNORECASE,
)


# ---------------------------------------------------------------------------------------------
# structure detectors (values of one input tensor)


def _close(a: Any, b: Any, atol: float = 1e-4) -> bool:
    import torch

    return bool(torch.allclose(a, b, atol=atol, rtol=1e-4))


def structures(x: Any) -> list[str]:
    """What structure the values of ``x`` have that a uniform redraw in [min, max] would destroy.
    [] for non-floating, empty or constant tensors (the harness keeps those)."""
    import torch

    if not isinstance(x, torch.Tensor) or not x.is_floating_point() or x.numel() < 2:
        return []
    x = x.detach().to(torch.float64)
    if not torch.isfinite(x).all():
        return []
    lo, hi = float(x.min()), float(x.max())
    if lo == hi:
        return []
    found: list[str] = []
    if x.dim() >= 2:
        r, c = x.shape[-2:]
        m = x.reshape(-1, r, c)
        if r == c and r in (2, 3, 4):
            eye = torch.eye(r, dtype=m.dtype).expand_as(m)
            if _close(m, eye, 1e-7):
                found.append(f"identity {r}x{r}")
            elif _close(m @ m.transpose(-1, -2), eye):
                found.append(f"rotation / orthogonal {r}x{r}")
            if _close(m, m.transpose(-1, -2), 1e-7) and not _close(m, eye, 1e-7):
                try:
                    if bool((torch.linalg.eigvalsh(m) > 0).all()):
                        found.append(f"symmetric positive definite {r}x{r}")
                except Exception:  # noqa: BLE001
                    pass
        if r == 3 and c == 3:
            last = m[:, 2]
            if _close(last, torch.tensor([0.0, 0.0, 1.0], dtype=m.dtype).expand_as(last), 1e-9) and bool(
                (m[:, 1, 0] == 0).all()
            ):
                found.append("camera intrinsics (upper triangular, last row 0 0 1)")
            elif bool((m[:, 2, 2] == 1).all()):
                found.append("homography-like 3x3 (H[2,2] = 1)")
        if r == 4 and c == 4:
            last = m[:, 3]
            if _close(last, torch.tensor([0.0, 0.0, 0.0, 1.0], dtype=m.dtype).expand_as(last), 1e-9):
                rot = m[:, :3, :3]
                eye3 = torch.eye(3, dtype=m.dtype).expand_as(rot)
                if _close(rot @ rot.transpose(-1, -2), eye3):
                    found.append("4x4 rigid transform")
                else:
                    found.append("4x4 homogeneous matrix (last row 0 0 0 1)")
        if r == 3 and c == 4:
            rot = m[:, :3, :3]
            eye3 = torch.eye(3, dtype=m.dtype).expand_as(rot)
            if _close(rot @ rot.transpose(-1, -2), eye3):
                found.append("3x4 extrinsics [R|t]")
            else:
                found.append("3x4 projection matrix")
        if r == 2 and c == 3:
            found.append("2x3 affine / LAF")
    d = x.shape[-1]
    if d in (2, 3, 4) and x.numel() > d:
        norms = x.norm(dim=-1)
        if _close(norms, torch.ones_like(norms), 1e-4):
            found.append(f"unit vectors / quaternions (last dim {d})")
    if d == 4 and x.numel() > 4:
        if bool((x[..., 0] < x[..., 2]).all()) and bool((x[..., 1] < x[..., 3]).all()):
            found.append("xyxy boxes (x1 < x2, y1 < y2)")
    if x.dim() >= 2 and x.shape[-2:] == (4, 2) and x.numel() >= 8:
        q = x.reshape(-1, 4, 2)
        if _close(q[:, 0, 1], q[:, 1, 1], 1e-9) and _close(q[:, 0, 0], q[:, 3, 0], 1e-9):
            found.append("box corners (4 x 2)")
    values = torch.unique(x)
    if values.numel() <= 2 and bool(((values == 0) | (values == 1)).all()):
        found.append("0/1 mask stored as float")
    elif bool((x == x.round()).all()) and values.numel() > 2:
        found.append("integer values stored as float")
    if d >= 3 and x.numel() > d and bool((x.diff(dim=-1) >= 0).all()):
        found.append("sorted along the last dim")
    if d >= 2 and bool((x >= 0).all()) and _close(x.sum(-1), torch.ones_like(x.sum(-1)), 1e-5):
        found.append("probability vectors (last dim sums to 1)")
    if x.numel() <= 64 and x.dim() >= 1 and d >= 3:
        col = x.reshape(-1, d).abs().amax(0)
        nz = col[col > 0]
        if nz.numel() >= 2 and float(nz.max() / nz.min()) > 100:
            found.append("parameter vector mixing scales (columns differ > 100x)")
    return found


# kinds that a valid second value need not keep (integer focal lengths, the scales of a parameter vector)
INCIDENTAL = ("integer values stored as float", "parameter vector mixing scales")


def lost_structures(trace: Any, fresh: Any) -> list[str]:
    """The structures of ``trace`` that ``fresh`` does not have (own fresh sets), incidental ones aside."""
    mine = set(structures(fresh))
    return [s for s in structures(trace) if s not in mine and not s.startswith(INCIDENTAL)]


# ---------------------------------------------------------------------------------------------
# one case


def _max_abs(t: Any) -> float:
    import torch

    if not isinstance(t, torch.Tensor) or t.numel() == 0:
        return 0.0
    if not (t.is_floating_point() or t.is_complex()):
        t = t.to(torch.float64)
    a = t.detach().abs().to(torch.float64)
    a = a[torch.isfinite(a)]
    return float(a.max()) if a.numel() else 0.0


def _nonfinite(t: Any) -> int:
    import torch

    if not isinstance(t, torch.Tensor) or not (t.is_floating_point() or t.is_complex()):
        return 0
    return int((~torch.isfinite(t)).sum())


def _perturbed(inputs: tuple, seed: int) -> tuple:
    import torch

    g = torch.Generator().manual_seed(seed)
    out = []
    for x in inputs:
        if x.is_floating_point() and x.numel():
            n = torch.randn(x.shape, generator=g, dtype=torch.float64)
            out.append((x.to(torch.float64) * (1 + PERTURB_REL * n)).to(x.dtype))
        else:
            out.append(x.clone())
    return tuple(out)


def _eager(case: Any, inputs: tuple) -> list:
    from opsweep.job import eager_calls

    return eager_calls(case, [(tuple(x.clone() for x in inputs), 0)])[0]


def _describe(e: BaseException) -> str:
    text = str(e).strip().splitlines()[0] if str(e).strip() else ""
    return f"{type(e).__name__}: {text[:200]}".rstrip(": ")


def _reset_torch_state(default_dtype: Any) -> None:
    import torch

    torch.set_default_dtype(default_dtype)
    torch.set_grad_enabled(True)


def audit_case(case: Any) -> dict[str, Any]:
    """The audit record of one (materialized) case."""
    import torch

    from opsweep.compare import compare
    from opsweep.fresh_set import draw_fresh_inputs
    from opsweep.randomness import outputs_equal

    rec: dict[str, Any] = {"name": case.name, "check": case.check, "flags": [], "inputs": []}
    name_hint = bool(STRUCTURED_NAMES.search(case.name))
    fresh, why = draw_fresh_inputs(case)
    own = case.fresh_inputs is not None and not isinstance(case.fresh_inputs, str)
    rec["fresh"] = "own" if own else ("none" if fresh is None else "drawn")
    rec["fresh_why"] = why
    for i, x in enumerate(case.inputs):
        s = structures(x)
        info: dict[str, Any] = {"index": i, "shape": list(x.shape), "dtype": str(x.dtype).replace("torch.", ""), "structures": s}
        if s and fresh is not None:
            if own:
                lost = lost_structures(x, fresh[i])
                if lost:
                    info["lost"] = lost
            elif not torch.equal(fresh[i], x):
                info["lost"] = s
        rec["inputs"].append(info)
    if any(i.get("lost") for i in rec["inputs"]):
        rec["flags"].append("structure-lost" if own else "structured")
    if fresh is None:
        rec["name_hint"] = name_hint
        return rec
    try:
        trace_out = _eager(case, case.inputs)
    except Exception as e:  # noqa: BLE001
        rec["trace_error"] = _describe(e)
        return rec
    try:
        fresh_out = _eager(case, fresh)
    except Exception as e:  # noqa: BLE001
        rec["fresh_error"] = _describe(e)
        rec["flags"].append("raises")
        return rec
    outs = []
    for k, (t, f) in enumerate(zip(trace_out, fresh_out)):
        o = {"index": k, "shape": list(t.shape), "trace_max": _max_abs(t), "fresh_max": _max_abs(f)}
        if list(t.shape) != list(f.shape):
            o["fresh_shape"] = list(f.shape)
        o["trace_nonfinite"], o["fresh_nonfinite"] = _nonfinite(t), _nonfinite(f)
        outs.append(o)
    rec["outputs"] = outs
    if len(trace_out) != len(fresh_out) or any("fresh_shape" in o for o in outs):
        rec["flags"].append("shape")
    if any(o["fresh_nonfinite"] and not o["trace_nonfinite"] for o in outs):
        rec["flags"].append("nonfinite")
    if any(o["fresh_max"] > EXPLODE_RATIO * max(o["trace_max"], EXPLODE_FLOOR) for o in outs):
        rec["flags"].append("explodes")
    if outputs_equal(trace_out, fresh_out):
        rec["flags"].append("identical")
    if case.check and "shape" not in rec["flags"]:
        try:
            fresh_p = _eager(case, _perturbed(fresh, 1))
            trace_p = _eager(case, _perturbed(case.inputs, 2))
            f_problem = compare(fresh_out, fresh_p, case.atol, case.rtol)
            t_problem = compare(trace_out, trace_p, case.atol, case.rtol)
            if f_problem:
                rec["fresh_sensitivity"] = f_problem
            if t_problem:
                rec["trace_sensitivity"] = t_problem
            if f_problem and not t_problem:
                rec["flags"].append("sensitive")
        except Exception as e:  # noqa: BLE001 - an exact-equality check in the operator (StereoCamera)
            rec["sensitivity_error"] = _describe(e)
    if name_hint and not any(i["structures"] for i in rec["inputs"]) and rec["fresh"] == "drawn":
        rec["name_hint"] = True
    return rec


def export_case(case: Any) -> dict[str, Any]:
    from opsweep.job import run_job

    r = run_job(case, "export", library=None, threads=1)
    return {"status": r["status"], "step": r["step"], "detail": r["detail"][:600], "checks": r["checks"],
            "total_s": r["timings"]["total_s"]}


# ---------------------------------------------------------------------------------------------
# driver


def _load(out: str) -> dict[str, dict[str, Any]]:
    done: dict[str, dict[str, Any]] = {}
    started: set[str] = set()
    if os.path.exists(out):
        with open(out) as f:
            for line in f:
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a truncated last line
                if rec.get("start"):
                    started.add(rec["name"])
                else:
                    done[rec["name"]] = rec
    for name in started - set(done):
        done[name] = {"name": name, "crashed": True, "flags": ["crashed"]}
    return done


def summarize(records: list[dict[str, Any]], seconds: float, stream: Any = sys.stdout) -> None:
    p = lambda *a: print(*a, file=stream)  # noqa: E731
    counts: dict[str, list[str]] = {}
    for r in records:
        for f in r.get("flags", []):
            counts.setdefault(f, []).append(r["name"])
    checked = [r for r in records if not r.get("skipped")]
    p(f"cases: {len(records)} ({len(records) - len(checked)} skipped by the registry)")
    by_fresh: dict[str, int] = {}
    for r in checked:
        by_fresh[r.get("fresh", "?")] = by_fresh.get(r.get("fresh", "?"), 0) + 1
    p("fresh sets: " + ", ".join(f"{k} {v}" for k, v in sorted(by_fresh.items())))
    for flag in ("raises", "nonfinite", "explodes", "shape", "sensitive", "identical", "structured", "structure-lost", "crashed"):
        p(f"  {flag:15s} {len(counts.get(flag, []))}")
    for flag in ("raises", "nonfinite", "explodes", "shape", "sensitive", "structured", "structure-lost", "crashed"):
        if counts.get(flag):
            p(f"\n== {flag}")
            for name in counts[flag]:
                r = next(x for x in records if x["name"] == name)
                extra = r.get("fresh_error") or r.get("fresh_sensitivity") or ""
                lost = "; ".join(f"in{i['index']}: {', '.join(i['lost'])}" for i in r.get("inputs", []) if i.get("lost"))
                p(f"  {name}  {extra[:120]}  {lost[:160] if flag in ('structured', 'structure-lost') else ''}".rstrip())
    exported = [r for r in records if "export" in r]
    if exported:
        st: dict[str, int] = {}
        for r in exported:
            st[r["export"]["status"]] = st.get(r["export"]["status"], 0) + 1
        p(f"\nexport path: {len(exported)} cases: " + ", ".join(f"{k} {v}" for k, v in sorted(st.items())))
        fresh_mm = [r for r in exported if r["export"]["status"] == "mismatch" and "trace inputs only" in r["export"]["detail"]]
        p(f"export mismatches on fresh inputs: {len(fresh_mm)}")
        for r in fresh_mm:
            p(f"  {r['name']}: {r['export']['detail'][:200]}")
        fresh_fail = [r for r in exported if "raised on fresh inputs" in r["export"]["detail"]]
        p(f"export failures on fresh inputs only: {len(fresh_fail)}")
        for r in fresh_fail:
            p(f"  {r['name']}: {r['export']['detail'][:200]}")
    p(f"\nwall time: {seconds:.0f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("registries", nargs="*", help="registry files (default: the bundled kornia registries)")
    parser.add_argument("--out", default="fresh_audit.jsonl", help="one JSON line per case")
    parser.add_argument("--only", nargs="*", default=None, help="case names to audit")
    parser.add_argument("--only-file", default=None, help="a file of case names to audit, one a line")
    parser.add_argument("--export", action="store_true", help="also run the export path where the fresh check runs")
    parser.add_argument("--resume", action="store_true", help="skip the cases already in --out")
    parser.add_argument("--summary-only", action="store_true", help="print the summary of --out and exit")
    args = parser.parse_args(argv)

    if args.summary_only:
        records = list(_load(args.out).values())
        summarize(records, 0.0)
        return 0

    import torch

    torch.set_num_threads(1)
    from opsweep.case import materialize
    from opsweep.registry import load_registries

    files = args.registries or sorted(glob.glob(DEFAULT_REGISTRIES))
    missing = [f for f in files if not os.path.isfile(f)]
    if missing:
        print(f"audit_fresh_inputs: registry file not found: {missing[0]}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    loaded = load_registries(files)
    cases = [lc.case for lc in loaded]
    if args.only_file is not None:
        with open(args.only_file) as f:
            args.only = (args.only or []) + [line.rstrip("\n") for line in f if line.strip()]
    if args.only is not None:
        wanted = set(args.only)
        unknown = wanted - {c.name for c in cases}
        if unknown:
            print(f"audit_fresh_inputs: no such case: {sorted(unknown)[0]}", file=sys.stderr)
            return 2
        cases = [c for c in cases if c.name in wanted]
    done = _load(args.out) if args.resume else {}
    mode = "a" if args.resume else "w"
    default_dtype = torch.get_default_dtype()
    with open(args.out, mode) as out:
        if args.resume:
            for name, rec in done.items():  # crashes found on resume are recorded once
                if rec.get("crashed"):
                    out.write(json.dumps(rec, sort_keys=True) + "\n")
        for n, c in enumerate(cases):
            if c.name in done:
                continue
            out.write(json.dumps({"name": c.name, "start": True}) + "\n")
            out.flush()
            t0 = time.perf_counter()
            if c.skip:
                rec = {"name": c.name, "skipped": c.skip, "flags": []}
            else:
                try:
                    built = materialize(c)
                    rec = audit_case(built)
                    if args.export and rec.get("fresh") != "none" and "trace_error" not in rec and "raises" not in rec["flags"]:
                        rec["export"] = export_case(built)
                except Exception as e:  # noqa: BLE001 - the audit of one case never stops the run
                    rec = {"name": c.name, "flags": ["audit-error"], "error": _describe(e),
                           "traceback": traceback.format_exc()[-2000:]}
                _reset_torch_state(default_dtype)
            rec["seconds"] = round(time.perf_counter() - t0, 3)
            out.write(json.dumps(rec, sort_keys=True) + "\n")
            out.flush()
            if n % 100 == 0:
                print(f"[{n}/{len(cases)}] {c.name} {time.perf_counter() - start:.0f}s", file=sys.stderr, flush=True)
    records = [r for r in _load(args.out).values() if args.only is None or r["name"] in set(args.only)]
    summarize(records, time.perf_counter() - start)
    return 0


if __name__ == "__main__":
    sys.exit(main())
