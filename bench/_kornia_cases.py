"""The bundled kornia registries' cases by name, for the benches that run jobs in this process."""

from __future__ import annotations

import argparse
import glob
import os
import sys
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def kornia_cases() -> dict[str, Any]:
    """``{name: Case}`` of every case of the bundled kornia registries."""
    from opsweep.registry import load_registries

    files = sorted(glob.glob(os.path.join(ROOT, "python", "opsweep", "registries", "kornia", "cases_*.py")))
    return {lc.case.name: lc.case for lc in load_registries(files)}


def named_cases(names: list[str]) -> dict[str, Any] | None:
    """``{name: Case}`` for ``names`` from the bundled kornia registries, or None (and the unknown
    names on stderr) when some name is not a case."""
    by_name = kornia_cases()
    missing = [n for n in names if n not in by_name]
    if missing:
        print(f"unknown cases: {', '.join(missing)}", file=sys.stderr)
        return None
    return {n: by_name[n] for n in names}


def job_bench_setup(args: argparse.Namespace, sample: list[str]) -> tuple[dict[str, Any], Any, tuple[int, ...]] | None:
    """What a bench that runs ``run_job`` in this process needs, set up like a worker: its torch
    threads (``args.threads`` where the bench has that option, else one), the onnx path's requested opsets (``args.opset``, as ``opsweep run --opset``), the
    named cases (``args.cases``, else ``sample``) and the kornia library, from the options of
    ``job_bench_parser``. None (the reason on stderr) for a bad --repeat, opset or name."""
    if args.repeat < 1:
        print("--repeat must be at least 1", file=sys.stderr)
        return None
    import torch

    torch.set_num_threads(getattr(args, "threads", 1))
    from opsweep.library import load_library
    from opsweep.runtimes import opsets

    requested, error = opsets.parse_opsets(args.opset)
    if requested is None:
        print(error, file=sys.stderr)
        return None
    opsets.set_requested(requested)
    by_name = named_cases(args.cases or sample)
    if by_name is None:
        return None
    return by_name, load_library("kornia"), requested


def job_bench_parser(cases_help: str, repeat_help: str) -> argparse.ArgumentParser:
    """The options the in-process job benches share: case names, ``--opset``, ``--repeat``, ``--json``."""
    ap = argparse.ArgumentParser()
    ap.add_argument("cases", nargs="*", help=cases_help)
    ap.add_argument("--opset", default="17,25", help="the onnx path's other opsets, as `opsweep run --opset`")
    ap.add_argument("--repeat", type=int, default=2, help=repeat_help)
    ap.add_argument("--json", default="", help="also write the figures to this file")
    return ap
